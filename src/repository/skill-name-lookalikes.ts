/**
 * Letters of other scripts drawn like a Latin letter or digit in common fonts (Cyrillic, Greek,
 * Armenian and a few Latin extensions), mapped to the Latin letter they pass for. Written for skill
 * names, which the specification keeps to lowercase letters, digits and hyphens: a name that one
 * of these turns into another origin's name would be read as that name by a model or a person.
 */
const drawnAs: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a',
  б: '6',
  в: 'b',
  г: 'r',
  д: 'a',
  е: 'e',
  ё: 'e',
  з: '3',
  и: 'u',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  п: 'n',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ц: 'u',
  ш: 'w',
  щ: 'w',
  ъ: 'b',
  ь: 'b',
  ѕ: 's',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  ү: 'y',
  ҫ: 'c',
  // Greek
  α: 'a',
  β: 'b',
  γ: 'y',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  ϲ: 'c',
  ϳ: 'j',
  // Armenian
  ա: 'w',
  գ: 'q',
  զ: 'q',
  հ: 'h',
  ո: 'n',
  ս: 'u',
  ց: 'g',
  օ: 'o',
  // Latin letters outside ASCII that are drawn as an ASCII one
  ı: 'i',
  ȷ: 'j',
  ɑ: 'a',
  ɡ: 'g',
  ɩ: 'i',
  ʋ: 'u',
  // Digits read as letters
  '0': 'o',
  '1': 'l',
};

/** Pairs of letters drawn as one letter in most fonts at small sizes. */
const drawnAsOne: ReadonlyArray<readonly [RegExp, string]> = [
  [/rn/g, 'm'],
  [/vv/g, 'w'],
];

const invisible = /\p{Default_Ignorable_Code_Point}/gu;
const letter = /\p{L}/u;

/**
 * What a name looks like: NFKC-normalised, lowercased, invisible (default-ignorable) characters
 * dropped, each look-alike letter replaced by the Latin letter it passes for. Two names with the
 * same key are twins a reader cannot tell apart (`pdf`, `р\u200Bdf` with a Cyrillic `р`, `ｐｄｆ`).
 * A coarse, hand-written subset of Unicode's confusables: it errs towards calling names twins.
 */
export function lookalikeKey(name: string): string {
  let key = '';
  for (const character of name.normalize('NFKC').toLowerCase().replace(invisible, ''))
    key += drawnAs[character] ?? character;
  for (const [pair, single] of drawnAsOne) key = key.replace(pair, single);
  return key;
}

const confusableScripts: ReadonlyArray<readonly [string, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
];

/**
 * The scripts among Latin, Cyrillic, Greek and Armenian whose letters the name mixes: these share
 * look-alike letters, so a name of more than one of them (`dеploy` with a Cyrillic `е`) passes for
 * a name of one. Digits, hyphens and letters of other scripts do not count.
 */
export function mixedLookalikeScripts(name: string): string[] {
  const found = new Set<string>();
  for (const character of name) {
    if (!letter.test(character)) continue;
    for (const [script, pattern] of confusableScripts)
      if (pattern.test(character)) {
        found.add(script);
        break;
      }
  }
  return found.size > 1 ? [...found] : [];
}
