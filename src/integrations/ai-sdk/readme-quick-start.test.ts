import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../../test/support/services.js';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import type { SkillAgentEvent } from './agent-events.js';
import { createSkillAgent } from './skill-agent.js';
import { createScriptedModel } from './testing/scripted-model.js';

// The README's quick start with a scripted model in place of the endpoint: the skill, the runtime
// and the calls are the README's own (the script is read from the README, so the two cannot drift).
const readme = readFileSync(resolve(import.meta.dirname, '../../../README.md'), 'utf8');
const script = /const fib = '([^']*)';/.exec(readme)?.[1]?.replaceAll('\\n', '\n');

describe('the README quick start', () => {
  it('has the script it runs', () => {
    expect(script).toContain('print(a)');
  });

  it.runIf(sandboxWorks)(
    'loads the skill and runs its script in the sandbox, then close() removes the workspace',
    async () => {
      const { model } = createScriptedModel([
        { toolCalls: [{ name: 'skill_load', input: { skill: 'fibonacci' }, id: 'load' }] },
        {
          toolCalls: [
            { name: 'skill_run', input: { skill: 'fibonacci', command: 'python3 scripts/fib.py 10' }, id: 'run' },
          ],
        },
        { text: '0 1 1 2 3 5 8 13 21 34' },
      ]);
      const agent = createSkillAgent({
        model,
        repository: createMemorySkillRepository([
          {
            name: 'fibonacci',
            description: 'Prints Fibonacci numbers. Use when asked for them.',
            body: 'Run `python3 scripts/fib.py N`.',
            files: { 'scripts/fib.py': script ?? '' },
          },
        ]),
        runtime: createRuntime(),
      });
      const events: SkillAgentEvent[] = [];
      for await (const event of agent.run({
        userId: 'me',
        sessionId: `first-${process.pid}`,
        message: 'The first 10 Fibonacci numbers?',
      }))
        events.push(event);
      const calls = events.flatMap((event) => (event.type === 'tool-call' ? [event.toolName] : []));
      expect(calls).toEqual(['skill_load', 'skill_run']);
      const run = events.find((event) => event.type === 'tool-result' && event.toolName === 'skill_run');
      const output = JSON.stringify(run);
      expect(output).toContain('34');
      expect(output).toContain('"exit_code":0');
      await agent.close();
    },
  );
});
