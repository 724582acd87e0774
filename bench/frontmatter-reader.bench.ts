// Does the fast frontmatter reader (src/format/read-simple-frontmatter.ts) pay for itself on skills
// it was not tuned on? Frontmatters are generated here in shapes unlike the shared corpus's: keys in
// any order, every YAML quoting style, block scalars, lists both ways, nested metadata, comments,
// numbers and booleans, non-Latin text. Reported: the share the fast reader accepts, and
// parseSkillMarkdown (fast reader first) against parseSkillMarkdownWithFullYaml (YAML library
// only), taking turns pass by pass. Figures only; nothing fails on a number.
import fc from 'fast-check';
import { interleavedMedians, quick } from './bench-support.js';

const skills = quick ? 1_000 : 5_000;
const passes = quick ? 3 : 7;

const word = fc.constantFrom(
  'data',
  'report',
  'Käse',
  '数据',
  'deploy',
  'k8s',
  'PDF',
  'élan',
  'query',
  'graph',
  'API',
  'v2',
  'café',
  'ñandú',
  'Тест',
);
const sentence = fc.array(word, { minLength: 3, maxLength: 30 }).map((words) => `${words.join(' ')}.`);
const scalar = fc.oneof(
  sentence,
  sentence.map((text) => `"${text.replaceAll('"', '\\"')}"`),
  sentence.map((text) => `'${text.replaceAll("'", "''")}'`),
  sentence.map((text) => `${text} Use when: asked about it`),
  fc.tuple(sentence, sentence).map(([a, b]) => `>\n  ${a}\n  ${b}`),
  fc.tuple(sentence, sentence).map(([a, b]) => `|\n  ${a}\n  ${b}`),
  fc.tuple(sentence, sentence).map(([a, b]) => `>-\n    ${a}\n    ${b}`),
);
const extraLine = fc.oneof(
  fc.constant('license: Apache-2.0'),
  fc.constant('license: "MIT"'),
  fc.constant('version: 1.2'),
  fc.constant('user-invocable: true'),
  fc.constant('# a comment line'),
  fc.array(word, { minLength: 1, maxLength: 4 }).map((tools) => `allowed-tools: [${tools.join(', ')}]`),
  fc
    .array(word, { minLength: 1, maxLength: 4 })
    .map((tools) => `allowed-tools:\n${tools.map((tool) => `  - ${tool}`).join('\n')}`),
  fc
    .array(fc.tuple(word, sentence), { minLength: 1, maxLength: 3 })
    .map((pairs) => `metadata:\n${pairs.map(([key, value], index) => `  ${key}-${index}: ${value}`).join('\n')}`),
  fc.array(word, { minLength: 1, maxLength: 3 }).map((tags) => `tags: ${tags.join(', ')}`),
  fc.constant('compatibility: Requires Python 3.11+ and network access'),
);
const skillText = fc
  .record({
    name: fc.constantFrom('pdf-tools', 'data-report', 'k8s-deploy', 'graph-query'),
    description: scalar,
    extras: fc.array(extraLine, { maxLength: 5 }),
    nameFirst: fc.boolean(),
    body: sentence,
  })
  .map(({ name, description, extras, nameFirst, body }) => {
    const lines = nameFirst
      ? [`name: ${name}`, `description: ${description}`, ...extras]
      : [...extras, `description: ${description}`, `name: ${name}`];
    return `---\n${lines.join('\n')}\n---\n# ${name}\n\n${body}\n`;
  });

export async function run(): Promise<void> {
  const { readSimpleFrontmatter } = await import('../src/format/read-simple-frontmatter.js');
  const { parseSkillMarkdown, parseSkillMarkdownWithFullYaml } = await import('../src/format/parse-skill.js');
  const texts = fc.sample(skillText, { numRuns: skills, seed: 42 });
  const accepted = texts.filter((text) => {
    const result = readSimpleFrontmatter(`${text.slice(4, text.indexOf('\n---\n'))}\n`);
    return result !== undefined && !('kind' in result && result.kind === 'colon-values');
  }).length;
  console.log(
    `${skills} generated skills: the fast reader accepts ${accepted} (${((100 * accepted) / skills).toFixed(1)}%); the rest go to the YAML library`,
  );
  const pass = (parse: typeof parseSkillMarkdown) => async () => {
    for (const text of texts) parse(text, { file: 'SKILL.md', folderName: 'x' });
  };
  const medians = await interleavedMedians(
    { 'fast reader first': pass(parseSkillMarkdown), 'YAML library only': pass(parseSkillMarkdownWithFullYaml) },
    passes,
    2,
  );
  for (const [name, ms] of Object.entries(medians))
    console.log(`${name}: ${ms.toFixed(1)} ms per pass (median of ${passes}, taking turns)`);
  console.log(
    `fast reader first / YAML only: ${(medians['fast reader first'] / medians['YAML library only']).toFixed(2)}`,
  );
}
