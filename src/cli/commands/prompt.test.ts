import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderCatalog } from '../../disclosure/catalog.js';
import { countTokens } from '../../disclosure/token-counter.js';
import { createFsSkillRepository } from '../../repository/fs-skill-repository.js';
import { main } from '../main.js';

const examples = resolve(import.meta.dirname, '../../../examples/skills');

async function runCli(args: string[], cwd = process.cwd()): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (text: string) => void (stdout += text), stderr: (text: string) => void (stderr += text), cwd, env: {} };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

describe('skillbox prompt', () => {
  it('prints exactly the catalog renderCatalog gives for the knowledge profile', async () => {
    const skills = await (await createFsSkillRepository({ roots: [examples] })).list();
    const result = await runCli(['prompt', '--root', examples]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${renderCatalog({ skills, tools: ['skill_load', 'skill_list_docs', 'skill_select_docs', 'skill_read'] })}\n`);
    expect(result.stdout).toContain('- weather-tools: Weather information query tools including current weather, forecast, and city search.\n');
    expect(result.stdout).not.toContain('skill_run');
  });

  it('renders XML for the full profile and keeps to a token budget', async () => {
    const full = await runCli(['prompt', '--root', examples, '--format', 'xml', '--profile', 'full']);
    expect(full.stdout.startsWith('<available_skills>\n<skill>\n<name>\nfile-ops\n</name>')).toBe(true);
    expect(full.stdout).toContain('skill_run runs a command');
    const budgeted = await runCli(['prompt', '--root', examples, '--budget', '160']);
    expect(countTokens(budgeted.stdout.trimEnd())).toBeLessThanOrEqual(160);
    expect(budgeted.stdout).toMatch(/^Available skills( \(showing \d of 4 skills; the others are listed by name\))?:/);
    for (const name of ['file-ops', 'python-math', 'user-file-ops', 'weather-tools']) expect(budgeted.stdout).toContain(name);
  });

  it('prints nothing when there are no skills, and rejects bad options', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'skillbox-prompt-'));
    try {
      const result = await runCli(['prompt', '--root', empty]);
      expect(result).toMatchObject({ code: 0, stdout: '' });
      expect(result.stderr).toMatch(/No skills found in .*; the model gets no catalog/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
    expect((await runCli(['prompt', '--budget', '-3'])).stderr).toMatch(/--budget must be a positive whole number of tokens, got "-3"|--budget/);
    expect((await runCli(['prompt', '--format', 'yaml', '--root', examples])).stderr).toContain('--format must be text or xml, got "yaml"');
    expect((await runCli(['prompt', '--profile', 'all', '--root', examples])).code).toBe(2);
  });
});
