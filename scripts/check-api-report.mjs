// The public API report: every name each package subpath exports, with its kind, compared with the
// committed api/<subpath>.api.md files. A new or removed export makes `npm test` fail until the
// report is regenerated, so changing the public surface is a visible decision in review.
//
//   node scripts/check-api-report.mjs           compare (used by `npm test`)
//   node scripts/check-api-report.mjs --update  rewrite api/*.api.md from the sources
//   node scripts/check-api-report.mjs --summary print name counts per subpath (values / types)
//
// It reads the sources through the TypeScript compiler API rather than dist/ so it needs no build;
// the subpaths and their entry files come from package.json `exports` (dist/X.js -> src/X.ts).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
const reportDir = join(root, 'api');
const args = new Set(process.argv.slice(2));

const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const entries = Object.entries(packageJson.exports)
  .filter(([, target]) => typeof target === 'object' && typeof target.default === 'string')
  .map(([subpath, target]) => ({
    subpath,
    file: join(root, target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
  }));

const program = ts.createProgram(
  entries.map((entry) => entry.file),
  {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  },
);
const checker = program.getTypeChecker();

function kindOf(symbol) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const flags = target.flags;
  if (flags & ts.SymbolFlags.Class) return 'class';
  if (flags & ts.SymbolFlags.Enum) return 'enum';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Variable) {
    const declaration = target.valueDeclaration;
    const list = declaration?.parent;
    return list && ts.isVariableDeclarationList(list) && list.flags & ts.NodeFlags.Const ? 'const' : 'variable';
  }
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  if (flags & ts.SymbolFlags.Namespace) return 'namespace';
  return 'unknown';
}

function isTypeOnlyExport(symbol) {
  // `export type { X }` of a class still exports only the type side.
  return (symbol.declarations ?? []).some(
    (declaration) =>
      ts.isTypeOnlyExportDeclaration?.(declaration) ||
      (ts.isExportSpecifier(declaration) && (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly)),
  );
}

function summaryOf(symbol) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  let text = ts.displayPartsToString(target.getDocumentationComment(checker));
  if (text === '') {
    const tags = (target.declarations ?? []).flatMap((declaration) => ts.getJSDocCommentsAndTags(declaration));
    const comment = tags.find((tag) => ts.isJSDoc(tag))?.comment;
    text = typeof comment === 'string' ? comment : (ts.getTextOfJSDocComment(comment) ?? '');
  }
  // The first sentence (or line) is the one-line description docs/api.md shows.
  const flat = text
    .replace(/```[\s\S]*?```/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const end = flat.search(/\.(\s|$)/);
  const sentence = end === -1 ? flat : flat.slice(0, end + 1);
  if (sentence.length <= 200) return sentence;
  return `${sentence.slice(0, sentence.lastIndexOf(' ', 199))} …`;
}

function sourceFolderOf(symbol) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const file = target.declarations?.[0]?.getSourceFile().fileName ?? '';
  return (
    file
      .slice(join(root, 'src').length + 1)
      .split('/')
      .slice(0, -1)
      .join('/') || '.'
  );
}

function hasDocComment(symbol) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  if (target.getDocumentationComment(checker).length > 0) return true;
  // A const's comment sits on its statement, which getDocumentationComment does not always read.
  return (target.declarations ?? []).some((declaration) => ts.getJSDocCommentsAndTags(declaration).length > 0);
}

function exportsOf(entry) {
  const source = program.getSourceFile(entry.file);
  if (!source) throw new Error(`api report: ${entry.file} (package.json exports "${entry.subpath}") does not exist`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return [];
  return checker
    .getExportsOfModule(moduleSymbol)
    .map((symbol) => {
      let kind = kindOf(symbol);
      const valueKinds = ['class', 'enum', 'function', 'const', 'variable'];
      if (valueKinds.includes(kind) && isTypeOnlyExport(symbol)) kind = `type-only ${kind}`;
      return {
        name: symbol.name,
        kind,
        value: valueKinds.includes(kind),
        documented: hasDocComment(symbol),
        summary: summaryOf(symbol),
        folder: sourceFolderOf(symbol),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

function reportFileName(subpath) {
  return subpath === '.' ? 'skillbox.api.md' : `skillbox-${subpath.slice(2).replaceAll('/', '-')}.api.md`;
}

function render(entry, names) {
  const packageName = entry.subpath === '.' ? packageJson.name : `${packageJson.name}/${entry.subpath.slice(2)}`;
  const values = names.filter((name) => name.value).length;
  return [
    `# API report: \`${packageName}\``,
    '',
    `Generated by \`node scripts/check-api-report.mjs --update\` from ${entry.file.slice(root.length)}. Do not edit by hand.`,
    '',
    `${names.length} names: ${values} runtime values, ${names.length - values} types.`,
    '',
    '| name | kind |',
    '| --- | --- |',
    ...names.map((name) => `| ${name.name} | ${name.kind} |`),
    '',
  ].join('\n');
}

const results = entries.map((entry) => ({ entry, names: exportsOf(entry) }));

// docs/api.md: generated from the same walk, so the page lists exactly the public names, each with
// the first sentence of its TSDoc, grouped by the layer that defines it.
const subpathPurpose = {
  '.': 'What an application needs: parse and validate skills, repositories, the catalog, the tool and runtime factories, workspaces, session types, errors.',
  './disclosure':
    'Building blocks for framework authors who drive progressive disclosure from their own loop: pure state transitions, the catalog report, request materialisation and compaction, token counting, SKILL.md pieces.',
  './ai-sdk': 'The Vercel AI SDK integration: an agent runner, toolkits, dynamic tool selection (needs `ai`).',
  './mcp': 'The skills as tools of any MCP client (needs `@modelcontextprotocol/sdk`).',
  './restate':
    'Durable agent turns: a session as a Restate virtual object, journaled model steps and tool calls, a client and the turn feed (needs `@restatedev/restate-sdk` and `ai`).',
  './langchain':
    'The LangChain v1 integration: a `createAgent` middleware with the disclosure state in the LangGraph state, and a deepagents sandbox backend (needs `langchain`, `@langchain/core`, `@langchain/langgraph`; the backend `deepagents`).',
  './mastra':
    'Mastra: a skillbox repository as a Mastra `SkillSource` and a skillbox workspace as a Mastra `WorkspaceSandbox` (types from `@mastra/core`).',
  './openai-agents':
    'The OpenAI Agents SDK adapter: skill tools as function tools enabled per model call, the catalog in the instructions, loaded skills in each request, the SDK `Session` over a skillbox store (needs `@openai/agents`).',
  './sessions/sqlite': 'A session store in SQLite (needs `better-sqlite3`).',
  './sessions/redis': 'A session store in Redis (needs `ioredis`).',
  './sessions/postgres': 'A session store in PostgreSQL (needs `pg`).',
  './worker':
    'Sandbox workers: `createSandboxWorker` serves skill runs over signed HTTP, `createRemoteRuntime` uses one from an agent worker, run ledgers (memory, PostgreSQL: needs `pg`), the workspace custody hook.',
  './hub':
    'Installing skills: sources, the installer behind `skillbox add` / `install` / `verify`, `skills-lock.json` (shared with the `skills` CLI), and the scan a reviewer reads before a skill runs.',
  './testing':
    'For your tests: conformance suites for your own runtime or session store, a scripted model, a recording runtime (needs `vitest` and `ai`).',
};
const folderTitle = {
  '.': 'Errors',
  format: 'SKILL.md format',
  repository: 'Repositories',
  'repository/archive': 'Repositories',
  disclosure: 'Catalog and disclosure',
  tools: 'Model-facing tools',
  workspace: 'Workspaces',
  'workspace/outputs': 'Workspaces',
  'workspace/tools': 'Workspaces',
  runtime: 'Runtimes',
  'runtime/testing': 'Testing',
  sessions: 'Sessions',
  'sessions/sqlite': 'Sessions',
  'sessions/redis': 'Sessions',
  'sessions/postgres': 'Sessions',
  worker: 'Sandbox workers',
  'worker/testing': 'Testing',
  approvals: 'Approvals',
  'integrations/ai-sdk': 'AI SDK',
  'integrations/mcp': 'MCP',
  'integrations/restate': 'Durable turns',
  'integrations/langchain': 'LangChain',
  'integrations/mastra': 'Mastra',
  'integrations/openai-agents': 'OpenAI Agents SDK',
  'integrations/ai-sdk/testing': 'Testing',
  'workspace/testing': 'Testing',
  'sessions/testing': 'Testing',
  hub: 'Sources',
  'hub/sources': 'Sources',
  'hub/install': 'Installer',
  'hub/scan': 'Scan',
  'hub/upload': 'Uploads to providers',
};
function renderApiPage() {
  const lines = [
    '# API',
    '',
    'Every public name of every entry point, with one line each. Generated by',
    '`node scripts/check-api-report.mjs --update` from the TSDoc of the sources; `npm test` fails when',
    'this page, `api/*.api.md` and the exports disagree. Anything not listed here is internal and may',
    'change without notice. What each subpath is for, and why a name is where it is:',
    '',
    '- The root keeps what an application needs; a name moves there only when an application (not a',
    '  framework) needs it. Errors are matched with `isSkillboxError(error, code)`; a class is exported',
    '  only where the error carries fields a caller reads.',
    '- `skillbox/disclosure` holds the pieces under the tools, for framework authors.',
    "- Types that share a name with the AI SDK's are not exported under that name: the request message",
    '  type is `SkillModelMessage`.',
    '',
  ];
  for (const { entry, names } of results) {
    const specifier = entry.subpath === '.' ? packageJson.name : `${packageJson.name}/${entry.subpath.slice(2)}`;
    lines.push(`## \`${specifier}\``, '', subpathPurpose[entry.subpath] ?? '', '');
    const groups = new Map();
    for (const name of names) {
      const title = folderTitle[name.folder] ?? name.folder;
      if (!groups.has(title)) groups.set(title, []);
      groups.get(title).push(name);
    }
    const order = [...new Set(Object.values(folderTitle))];
    const rank = (title) => (order.includes(title) ? order.indexOf(title) : order.length);
    for (const [title, members] of [...groups].sort((a, b) => rank(a[0]) - rank(b[0]))) {
      lines.push(`### ${title}`, '');
      for (const name of members) lines.push(`- \`${name.name}\` (${name.kind}): ${name.summary || 'UNDOCUMENTED'}`);
      lines.push('');
    }
  }
  return lines.join('\n');
}
const apiPagePath = join(root, 'docs/api.md');

if (args.has('--summary')) {
  for (const { entry, names } of results) {
    const values = names.filter((name) => name.value).length;
    console.log(`${entry.subpath}\t${names.length} names\t${values} values\t${names.length - values} types`);
  }
  process.exit(0);
}

if (args.has('--update')) {
  mkdirSync(reportDir, { recursive: true });
  for (const file of readdirSync(reportDir)) if (file.endsWith('.api.md')) rmSync(join(reportDir, file));
  for (const { entry, names } of results)
    writeFileSync(join(reportDir, reportFileName(entry.subpath)), render(entry, names));
  writeFileSync(apiPagePath, renderApiPage());
  console.log(`api report: wrote ${results.length} files in api/`);
  process.exit(0);
}

const problems = [];
// Every public name has TSDoc (editors show it) and a line in docs/api.md (readers find it).
for (const { entry, names } of results) {
  for (const name of names) if (!name.documented) problems.push(`${entry.subpath}: ${name.name} has no TSDoc comment`);
}
// A name the AI SDK also exports would give an application importing both two different types of
// one name (the message types were such a case); export ours under a Skill prefix instead.
const aiTypes = join(root, 'node_modules/ai/dist/index.d.ts');
if (existsSync(aiTypes)) {
  const aiProgram = ts.createProgram([aiTypes], { skipLibCheck: true, noEmit: true });
  const aiChecker = aiProgram.getTypeChecker();
  const aiModule = aiChecker.getSymbolAtLocation(aiProgram.getSourceFile(aiTypes));
  const aiNames = new Set(aiModule ? aiChecker.getExportsOfModule(aiModule).map((symbol) => symbol.name) : []);
  for (const { entry, names } of results) {
    for (const name of names)
      if (aiNames.has(name.name))
        problems.push(`${entry.subpath}: ${name.name} is also a name the AI SDK ('ai') exports`);
  }
}
if (!existsSync(apiPagePath) || readFileSync(apiPagePath, 'utf8') !== renderApiPage()) {
  problems.push('docs/api.md does not match the exports and their TSDoc');
}
const expectedFiles = new Set(results.map(({ entry }) => reportFileName(entry.subpath)));
for (const { entry, names } of results) {
  const file = join(reportDir, reportFileName(entry.subpath));
  if (!existsSync(file)) {
    problems.push(`${entry.subpath}: no committed report api/${reportFileName(entry.subpath)}`);
    continue;
  }
  const committed = readFileSync(file, 'utf8');
  const committedRows = new Map(
    [...committed.matchAll(/^\| (\S+) \| ([^|]+) \|$/gm)]
      .filter((match) => match[1] !== 'name' && match[1] !== '---')
      .map((match) => [match[1], match[2].trim()]),
  );
  const currentRows = new Map(names.map((name) => [name.name, name.kind]));
  for (const [name, kind] of currentRows) {
    if (!committedRows.has(name)) problems.push(`${entry.subpath}: new export ${name} (${kind})`);
    else if (committedRows.get(name) !== kind)
      problems.push(`${entry.subpath}: ${name} changed kind ${committedRows.get(name)} -> ${kind}`);
  }
  for (const name of committedRows.keys()) {
    if (!currentRows.has(name)) problems.push(`${entry.subpath}: export ${name} was removed`);
  }
}
if (existsSync(reportDir)) {
  for (const file of readdirSync(reportDir)) {
    if (file.endsWith('.api.md') && !expectedFiles.has(file))
      problems.push(`api/${file}: no package.json export matches it`);
  }
}

if (problems.length > 0) {
  console.error('api report: the public API differs from the committed report in api/:');
  for (const problem of problems) console.error(`  - ${problem}`);
  console.error(
    'If the change is intended, give each new name a TSDoc comment, run `node scripts/check-api-report.mjs --update`',
  );
  console.error(
    '(it rewrites api/*.api.md and docs/api.md) and commit both with the change, so the reviewer sees the new surface.',
  );
  process.exit(1);
}
console.log(`api report: ${results.length} subpaths match api/*.api.md`);
