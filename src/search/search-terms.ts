/**
 * Words so common in skill names and descriptions that matching them says nothing about which skill
 * fits ("Use when the user asks for ..."). BM25 already weighs common words down; leaving them out
 * also keeps the postings of every index small.
 */
const stopWords: ReadonlySet<string> = new Set(
  (
    'a an and are as at be but by can do does for from has have how i if in into is it its me my no not of on or ' +
    'our so than that the their them then there these they this to use used uses using was we what when where ' +
    'which while who why will with without you your'
  ).split(' '),
);

/**
 * A light English suffix stripper: plurals and the common verb endings, so "screenshots" finds
 * "screenshot" and "deploying" finds "deploy". Deliberately lighter than a Porter stemmer, which
 * conflates more words that differ in meaning ("generic" and "generate" both become "gener").
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  return withoutFinalE(stripEnding(word));
}

function stripEnding(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ing') && word.length > 5) return undouble(word.slice(0, -3));
  if (word.endsWith('ed') && word.length > 4 && !word.endsWith('eed')) return undouble(word.slice(0, -2));
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is'))
    return word.slice(0, -1);
  return word;
}

/** "capture", "captured" and "capturing" all become "captur"; "images" and "image" become "imag". */
function withoutFinalE(word: string): string {
  return word.length > 4 && word.endsWith('e') && !word.endsWith('ee') ? word.slice(0, -1) : word;
}

/** "mapped" → "mapp" → "map": a doubled final consonant left by a stripped ending. */
function undouble(word: string): string {
  const last = word.at(-1);
  return word.length > 3 && last === word.at(-2) && last !== undefined && !'aeiouls'.includes(last)
    ? word.slice(0, -1)
    : word;
}

/**
 * The terms a text is indexed and searched by: lower-cased words of letters and digits (so
 * `git-flow-branch-creator`, `snake_case` and `camelCase` split into their words), accents folded,
 * stop words left out, each stemmed. The same function serves documents and queries, so a query
 * matches exactly the forms the index holds.
 */
export function searchTerms(text: string): string[] {
  const spaced = text.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2');
  const folded = spaced
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const terms: string[] = [];
  for (const word of folded.split(/[^\p{L}\p{N}]+/u)) {
    if (word === '' || stopWords.has(word)) continue;
    terms.push(stem(word));
  }
  return terms;
}
