// Figures for docs/mcp.md: `npx tsx src/integrations/mcp/testing/measure-mcp.ts`. Prints, never fails on a time.
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { renderLoadedSkill } from '../../../disclosure/loaded-content.js';
import { countTokens } from '../../../disclosure/token-counter.js';
import { FsSkillRepository } from '../../../repository/fs-skill-repository.js';
import { createSkillMcpServer } from '../skill-mcp-server.js';

const root = resolve(import.meta.dirname, '../../../..');
const examples = resolve(root, 'examples/skills');
const repository = await FsSkillRepository.open({ roots: [examples] });
const served = await createSkillMcpServer({ repository });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: 'measure', version: '1.0.0' });
await served.server.connect(serverSide);
await client.connect(clientSide);

const calls = 500;
let started = performance.now();
for (let index = 0; index < calls; index += 1) {
  await client.callTool({ name: 'skill_load', arguments: { skill: 'python-math', docs: ['docs/usage.md'] } });
}
const overMcp = (performance.now() - started) / calls;
// The floor: what any skill_load must do, read the skill and render it with its doc, without protocol or state.
started = performance.now();
for (let index = 0; index < calls; index += 1) {
  const skill = await repository.get('python-math');
  await renderLoadedSkill(skill, { name: skill.name, docs: ['docs/usage.md'], tools: '*' }, repository);
}
const floor = (performance.now() - started) / calls;
console.log(
  `skill_load with one doc, in-process MCP: ${(overMcp * 1000).toFixed(0)} µs/call; floor (get + render) ${(floor * 1000).toFixed(0)} µs; ratio ${(overMcp / floor).toFixed(1)}x`,
);
console.log(
  `catalog of the 4 example skills: ${countTokens(served.instructions)} tokens (sent as instructions and in skill_load's description)`,
);
await client.close();

started = performance.now();
const transport = new StdioClientTransport({
  command: resolve(root, 'node_modules/.bin/tsx'),
  args: [resolve(import.meta.dirname, 'serve-from-cli.ts'), '--root', examples],
  stderr: 'ignore',
});
const stdioClient = new Client({ name: 'measure', version: '1.0.0' });
await stdioClient.connect(transport);
await stdioClient.listTools();
console.log(`skillbox mcp through tsx: spawn to first tools/list ${(performance.now() - started).toFixed(0)} ms`);
await stdioClient.close();

const corpus = await FsSkillRepository.open({ roots: [process.env.SKILLBOX_CORPUS ?? '/work/shared/corpus'] });
started = performance.now();
const large = await createSkillMcpServer({ repository: corpus });
const budgeted = await createSkillMcpServer({ repository: corpus, catalogBudget: { tokens: 8000 } });
console.log(
  `corpus (${(await corpus.list()).length} skills): server built in ${((performance.now() - started) / 2).toFixed(0)} ms; catalog ${countTokens(large.instructions)} tokens, ${countTokens(budgeted.instructions)} with catalogBudget { tokens: 8000 }`,
);
