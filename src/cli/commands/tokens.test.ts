import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { renderCatalog } from '../../disclosure/catalog.js';
import { countTokens } from '../../disclosure/token-counter.js';
import { createFsSkillRepository } from '../../repository/fs-skill-repository.js';
import { main } from '../main.js';

const examples = resolve(import.meta.dirname, '../../../examples/skills');

async function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    cwd: process.cwd(),
    env: {},
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

describe('skillbox tokens', () => {
  it('on a terminal, says how many skills are counted of how many, not only the seconds', async () => {
    const total = (await (await createFsSkillRepository({ roots: [examples] })).list()).length;
    let stderr = '';
    // The line shows after a second; fake clocks let each counted skill take "a second" here.
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'Date'] });
    try {
      let settled = false;
      const pending = main(['tokens', '--root', examples], {
        stdout: () => {},
        stderr: (text: string) => void (stderr += text),
        cwd: process.cwd(),
        env: {},
        stderrIsTerminal: true,
      }).finally(() => {
        settled = true;
      });
      while (!settled) {
        vi.advanceTimersByTime(1100);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(await pending).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    expect(stderr).toMatch(new RegExp(`counting the tokens of skills: \\d+ of ${total} done… \\d+s`));
  });

  it('prints the documented JSON keys with consistent totals', async () => {
    const result = await runCli(['tokens', '--root', examples, '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      tokenizer: string;
      skills: Record<string, number | string>[];
      totals: Record<string, number>;
    };
    expect(Object.keys(report)).toEqual(['tokenizer', 'skills', 'totals']);
    expect(report.tokenizer).toBe('o200k_base');
    expect(report.skills.map((skill) => skill.name)).toEqual([
      'file-ops',
      'python-math',
      'user-file-ops',
      'weather-tools',
    ]);
    for (const skill of report.skills) {
      expect(Object.keys(skill)).toEqual([
        'name',
        'name_description_tokens',
        'catalog_tokens',
        'body_tokens',
        'docs_tokens',
      ]);
    }
    expect(Object.keys(report.totals)).toEqual(['name_description', 'catalog', 'bodies', 'bodies_and_docs']);
    const sum = (key: string) => report.skills.reduce((total, skill) => total + (skill[key] as number), 0);
    expect(report.totals.bodies).toBe(sum('body_tokens'));
    expect(report.totals.bodies_and_docs).toBe(sum('body_tokens') + sum('docs_tokens'));
    // python-math has docs/usage.md and weather-tools docs/units.md; the others have none.
    expect(report.skills.map((skill) => (skill.docs_tokens as number) > 0)).toEqual([false, true, false, true]);
    // The entries cost at most 1.10x the names and descriptions alone (compared in integers, so
    // 1.1009x fails); the fixed header comes on top, which on these four small skills alone makes
    // the whole catalog 1.1009x.
    const header = countTokens('Available skills:\n');
    expect((report.totals.catalog! - header) * 10).toBeLessThanOrEqual(report.totals.name_description! * 11);
    expect(report.totals.catalog).toBe(
      countTokens(
        renderCatalog({ skills: await (await createFsSkillRepository({ roots: [examples] })).list(), guidance: false }),
      ),
    );
  });

  it('reports both catalog formats and the percentage saved in the table', async () => {
    const result = await runCli(['tokens', '--root', examples]);
    expect(result.stdout).toMatch(/^SKILL +NAME\+DESC +CATALOG +BODY +DOCS\n/);
    expect(result.stdout).toMatch(/\ncatalog \(text\): \d+ tokens \(\d\.\d\dx the names and descriptions\)\n/);
    expect(result.stdout).toMatch(/\ncatalog \(xml\): \d+ tokens/);
    expect(result.stdout).toMatch(/\nall bodies and docs up front: \d+ tokens; the text catalog saves \d+(\.\d)?%\n$/);
  });
});
