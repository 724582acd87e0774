// An agent worker of the scale benchmark, started as `node --import tsx scale-agent-worker.ts <json>`
// (a bare `tsx` would leave a child alive after the benchmark's kill -9): it serves the session
// object over h2c, runs skill scripts on sandbox workers through the remote runtime (behind the
// benchmark's haproxy), and shares the PostgreSQL session store and the Redis turn feed with the
// other agent workers, as a deployment of several machines would.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { serveSkillSessions } from '../src/integrations/restate/serve-skill-sessions.js';
import { createSkillSessionObject } from '../src/integrations/restate/skill-session-object.js';
import { createFsSkillRepository } from '../src/repository/fs-skill-repository.js';
import { openPostgresSessionStore } from '../src/sessions/postgres/postgres-session-store.js';
import { openRedisTurnEventFeed } from '../src/sessions/redis/redis-turn-event-feed.js';
import { createRemoteRuntime } from '../src/worker/remote-runtime.js';
import { WorkspaceManager } from '../src/workspace/workspace-manager.js';

export interface ScaleAgentWorkerConfig {
  port: number;
  modelBaseUrl: string;
  skillsRoot: string;
  postgresUrl: string;
  /** A schema of this benchmark run alone, dropped when it ends. */
  postgresSchema: string;
  redisUrl: string;
  redisPrefix: string;
  /** The sandbox workers' balancer. */
  sandboxUrl: string;
  sandboxSecret: string;
  /** Shared by every agent worker, so a session's workspace has one name whichever worker runs its turn. */
  workspaceDir: string;
  /** Sent to the model in `x-bench-agent-worker`, so the benchmark knows which worker asked for a step. */
  name: string;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ScaleAgentWorkerConfig;
const repository = await createFsSkillRepository({ roots: [config.skillsRoot] });
const provider = createOpenAICompatible({
  name: 'scripted',
  baseURL: config.modelBaseUrl,
  apiKey: 'k',
  includeUsage: true,
  headers: { 'x-bench-agent-worker': config.name },
});
const object = await createSkillSessionObject({
  agent: {
    model: provider.chatModel('scripted'),
    repository,
    sessions: await openPostgresSessionStore({ connectionString: config.postgresUrl, schema: config.postgresSchema }),
    workspaces: new WorkspaceManager({
      runtime: createRemoteRuntime({ url: config.sandboxUrl, secret: config.sandboxSecret }),
      repository,
      baseDir: config.workspaceDir,
    }),
  },
  feed: await openRedisTurnEventFeed({ url: config.redisUrl, keyPrefix: config.redisPrefix }),
  // The sandbox workers share a PostgreSQL run ledger: a run lost with its agent worker is asked again.
  runLedger: true,
});
const server = await serveSkillSessions([object], { port: config.port });
process.stdout.write(`ready ${server.url}\n`);
