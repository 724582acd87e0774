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
  const io = {
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    cwd,
    env: {},
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

describe('skillbox prompt', () => {
  it('prints exactly the catalog renderCatalog gives for the knowledge profile', async () => {
    const skills = await (await createFsSkillRepository({ roots: [examples] })).list();
    const result = await runCli(['prompt', '--root', examples]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `${renderCatalog({ skills, tools: ['skill_load', 'skill_list_docs', 'skill_select_docs', 'skill_read'] })}\n`,
    );
    expect(result.stdout).toContain(
      '- weather-tools: Weather information query tools including current weather, forecast, and city search.\n',
    );
    expect(result.stdout).not.toContain('skill_run');
  });

  it('renders XML for the full profile and keeps to a token budget', async () => {
    const full = await runCli(['prompt', '--root', examples, '--format', 'xml', '--profile', 'full']);
    expect(full.stdout.startsWith('<available_skills>\n<skill>\n<name>\nfile-ops\n</name>')).toBe(true);
    expect(full.stdout).toContain('skill_run runs a command');
    const unbudgeted = countTokens((await runCli(['prompt', '--root', examples])).stdout.trimEnd());
    const budgeted = await runCli(['prompt', '--root', examples, '--budget', '160']);
    // The budget is well below the full catalog, so something must give: the shortened text must fit.
    expect(unbudgeted).toBeGreaterThan(200);
    expect(countTokens(budgeted.stdout.trimEnd())).toBeLessThanOrEqual(160);
    expect(budgeted.stderr).toBe('');
    // 160 tokens leave room for the guidance and the names, not for four descriptions.
    expect(budgeted.stdout).toMatch(
      /^Available skills \(showing [1-3] of 4 skills; the others are listed by name\):\n/,
    );
    expect(budgeted.stdout).toMatch(/\nOther skills: [a-z-]+(, [a-z-]+)*\n/);
    for (const name of ['file-ops', 'python-math', 'user-file-ops', 'weather-tools'])
      expect(budgeted.stdout).toContain(name);
  });

  it('warns on stderr when even the names exceed the budget, and still lists every skill', async () => {
    const result = await runCli(['prompt', '--root', examples, '--budget', '20']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Available skills \(showing 0 of 4 skills; the others are listed by name\):\nOther skills: file-ops, python-math, user-file-ops, weather-tools\n/,
    );
    const tokens = countTokens(result.stdout.trimEnd());
    expect(tokens).toBeGreaterThan(20);
    expect(result.stderr).toBe(
      `warning: the catalog is ${tokens} tokens, over the --budget of 20: even the names of all 4 skills do not fit (0 shown with a description). Raise --budget or show fewer skills.\n`,
    );
  });

  it('without --root, names every standard folder it looked in when none exists', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'skillbox-prompt-'));
    try {
      let stderr = '';
      const code = await main(['prompt'], {
        stdout: () => {},
        stderr: (text) => void (stderr += text),
        cwd: empty,
        env: { HOME: empty },
      });
      expect(code).toBe(0);
      expect(stderr).toContain(
        `No skills found in the standard roots, none of which exists: ${join(empty, '.agents/skills')}, ${join(empty, '.claude/skills')}, ${join(empty, 'skills')}`,
      );
      expect(stderr).toContain('(name a folder with --root, or set SKILLS_ROOT)');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
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
    for (const bad of ['-3', '0', '2.5', 'ten']) {
      const result = await runCli(['prompt', '--root', examples, `--budget=${bad}`]);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr.split('\n')[0]).toBe(
        `skillbox prompt: --budget must be a positive whole number of tokens, got "${bad}"`,
      );
    }
    expect((await runCli(['prompt', '--format', 'yaml', '--root', examples])).stderr).toContain(
      '--format must be text or xml, got "yaml"',
    );
    expect((await runCli(['prompt', '--profile', 'all', '--root', examples])).code).toBe(2);
  });
});
