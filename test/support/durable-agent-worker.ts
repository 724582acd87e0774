// An agent worker for the durable-turn tests, started as `node --import tsx durable-agent-worker.ts
// <json>`: it serves the session object over h2c on the given port, with the scripted
// OpenAI-compatible server as the model, skills from a folder, a SQLite (or PostgreSQL) session
// store and the Redis turn feed, all shared with the other workers (and restarts) of the test. With
// `sandboxWorker` its commands run on sandbox workers (`createRemoteRuntime`) instead of the host.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { serveSkillSessions } from '../../src/integrations/restate/serve-skill-sessions.js';
import { createSkillSessionObject } from '../../src/integrations/restate/skill-session-object.js';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { openPostgresSessionStore } from '../../src/sessions/postgres/postgres-session-store.js';
import { openRedisTurnEventFeed } from '../../src/sessions/redis/redis-turn-event-feed.js';
import { openSqliteSessionStore } from '../../src/sessions/sqlite/sqlite-session-store.js';
import { createRemoteRuntime } from '../../src/worker/remote-runtime.js';
import { WorkspaceManager } from '../../src/workspace/workspace-manager.js';

export interface DurableAgentWorkerConfig {
  port: number;
  modelBaseUrl: string;
  skillsRoot: string;
  sqlitePath: string;
  redisUrl: string;
  redisPrefix: string;
  workspaceDir: string;
  /** Skills whose runs need a person's approval. */
  approvalSkills?: string[];
  /** Sessions in PostgreSQL (this schema) instead of `sqlitePath`, so several agent workers share them. */
  postgres?: { url: string; schema: string };
  /** Run commands on sandbox workers behind this URL (a balancer or one `skillbox worker`). */
  sandboxWorker?: { url: string; secret: string };
  /** `createSkillSessionObject`'s `runLedger`. */
  runLedger?: boolean;
  /** Sent as `x-agent-worker` with each model request, so a test can tell which worker ran a step. */
  name?: string;
}

const config = JSON.parse(process.argv[2] ?? '{}') as DurableAgentWorkerConfig;
const repository = await createFsSkillRepository({ roots: [config.skillsRoot] });
const provider = createOpenAICompatible({
  name: 'scripted',
  baseURL: config.modelBaseUrl,
  apiKey: 'k',
  includeUsage: true,
  ...(config.name !== undefined ? { headers: { 'x-agent-worker': config.name } } : {}),
});
const object = await createSkillSessionObject({
  agent: {
    model: provider.chatModel('scripted'),
    repository,
    sessions:
      config.postgres !== undefined
        ? await openPostgresSessionStore({ connectionString: config.postgres.url, schema: config.postgres.schema })
        : await openSqliteSessionStore({ path: config.sqlitePath }),
    workspaces: new WorkspaceManager({
      runtime:
        config.sandboxWorker !== undefined
          ? createRemoteRuntime({ url: config.sandboxWorker.url, secret: config.sandboxWorker.secret })
          : createRuntime({ kind: 'local' }),
      repository,
      baseDir: config.workspaceDir,
    }),
    ...(config.approvalSkills !== undefined ? { approval: { skills: config.approvalSkills } } : {}),
  },
  feed: await openRedisTurnEventFeed({ url: config.redisUrl, keyPrefix: config.redisPrefix }),
  ...(config.runLedger === true ? { runLedger: true } : {}),
});
const server = await serveSkillSessions([object], { port: config.port });
process.stdout.write(`ready ${server.url}\n`);
