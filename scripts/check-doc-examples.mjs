// Type-checks every ```ts block in docs/*.md and README.md against the sources, so documentation examples
// cannot drift from the API. Blocks fenced as ```ts ignore are skipped (for fragments).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const docsDir = join(root, 'docs');
const outDir = join(root, '.doc-examples');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

let count = 0;
// The README's quick start is the first code a user copies: checked like the pages of docs/.
const pages = [
  ...(existsSync(docsDir) ? readdirSync(docsDir).filter((file) => file.endsWith('.md')) : []).map((file) => ({
    page: file,
    path: join(docsDir, file),
  })),
  ...(existsSync(join(root, 'README.md')) ? [{ page: 'project-README.md', path: join(root, 'README.md') }] : []),
];
for (const { page, path } of pages) {
  const text = readFileSync(path, 'utf8');
  const blocks = [...text.matchAll(/^```(ts|typescript)([^\n]*)\n([\s\S]*?)^```/gm)];
  blocks.forEach((match, index) => {
    if (/\bignore\b/.test(match[2] ?? '')) return;
    const file = join(outDir, `${page.replace(/\.md$/, '')}-${index + 1}.ts`);
    // Each block is its own module so top-level names do not collide across examples.
    writeFileSync(file, `${match[3]}\nexport {};\n`);
    count += 1;
  });
}

if (count === 0) {
  console.log('doc examples: none found');
  process.exit(0);
}

const tsconfig = {
  extends: '../tsconfig.json',
  compilerOptions: {
    noEmit: true,
    rootDir: '..',
    noUnusedLocals: false,
    paths: {
      skillbox: ['../src/index.ts'],
      'skillbox/disclosure': ['../src/disclosure/index.ts'],
      'skillbox/testing': ['../src/conformance/index.ts'],
      'skillbox/ai-sdk': ['../src/integrations/ai-sdk/index.ts'],
      'skillbox/mcp': ['../src/integrations/mcp/index.ts'],
      'skillbox/langchain': ['../src/integrations/langchain/index.ts'],
      'skillbox/mastra': ['../src/integrations/mastra/index.ts'],
      'skillbox/openai-agents': ['../src/integrations/openai-agents/index.ts'],
      'skillbox/hub': ['../src/hub/index.ts'],
      'skillbox/sessions/*': ['../src/sessions/*/index.ts'],
    },
  },
  include: ['./*.ts'],
};
writeFileSync(join(outDir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
try {
  execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(outDir, 'tsconfig.json')], { stdio: 'inherit' });
} catch {
  console.error('doc examples: type errors (files in .doc-examples/ name the page and block number)');
  process.exit(1);
}
console.log(`doc examples: ${count} blocks from ${pages.length} pages type-check`);
