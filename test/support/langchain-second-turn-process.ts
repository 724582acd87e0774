// A second process for the LangChain middleware test: it rebuilds a MemorySaver from the bytes the
// first process's saver held (the serialised checkpoints a database checkpointer would store),
// makes a new agent with the skill middleware and runs one more turn on the same thread.
//   node --import tsx langchain-second-turn-process.ts <dump.json> <baseUrl> <skills root>
import { readFile } from 'node:fs/promises';
import { MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import { createSkillMiddleware } from '../../src/integrations/langchain/index.js';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';

const [dumpFile, baseUrl, skillsRoot] = process.argv.slice(2) as [string, string, string];
const revive = (_key: string, value: unknown) =>
  typeof value === 'object' && value !== null && 'base64' in value
    ? new Uint8Array(Buffer.from((value as { base64: string }).base64, 'base64'))
    : value;
const dump = JSON.parse(await readFile(dumpFile, 'utf8'), revive) as Pick<MemorySaver, 'storage' | 'writes'>;
const checkpointer = new MemorySaver();
checkpointer.storage = dump.storage;
checkpointer.writes = dump.writes;
const repository = await FsSkillRepository.open({ roots: [skillsRoot] });
const agent = createAgent({
  model: new ChatOpenAI({ model: 'scripted', apiKey: 'test', configuration: { baseURL: baseUrl } }),
  tools: [],
  middleware: [createSkillMiddleware({ repository, loadMode: 'session' })],
  checkpointer,
});
await agent.invoke({ messages: [{ role: 'user', content: 'And now?' }] }, { configurable: { thread_id: 'processes' } });
