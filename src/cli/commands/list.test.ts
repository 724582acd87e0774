import { realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSkillTree, type SkillTree, skillMarkdown } from '../../repository/testing/skill-tree.js';
import { main } from '../main.js';

const examples = resolve(import.meta.dirname, '../../../examples/skills');
let tree: SkillTree | undefined;
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

async function runList(
  args: string[],
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    cwd,
    env,
  };
  const code = await main(['list', ...args], io);
  return { code, stdout, stderr };
}

async function fixture(): Promise<{ tree: SkillTree; real: string }> {
  tree = await createSkillTree({
    'first/tool/SKILL.md': `${skillMarkdown('tool', 'Uses tools.', 'Tools:\n- fetch_data\n')}`,
    'first/tool/docs/guide.md': 'guide',
    'first/tool/scripts/run.sh': 'echo',
    'first/Mismatch/SKILL.md': skillMarkdown('other-name', 'Name differs from its folder.'),
    'first/broken/SKILL.md': '---\nname: broken\n---\n',
    'second/tool/SKILL.md': skillMarkdown('tool', 'Shadowed copy.'),
  });
  return { tree, real: await realpath(tree.dir) };
}

describe('skillbox list --json', () => {
  it('prints exactly the documented shape with absolute paths', async () => {
    const { real } = await fixture();
    const result = await runList(['--root', 'first', '--root', 'second', '--json'], real);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(output)).toEqual(['skills', 'skipped', 'shadowed']);
    expect(output.skills).toEqual([
      {
        name: 'other-name',
        description: 'Name differs from its folder.',
        path: `${real}/first/Mismatch`,
        root: `${real}/first`,
        docs: [],
        tools: [],
        warnings: [expect.stringContaining('Mismatch')],
        model_visible: true,
      },
      {
        name: 'tool',
        description: 'Uses tools.',
        path: `${real}/first/tool`,
        root: `${real}/first`,
        docs: ['docs/guide.md'],
        tools: ['fetch_data'],
        warnings: [],
        model_visible: true,
      },
    ]);
    expect(output.skipped).toEqual([
      { path: `${real}/first/broken/SKILL.md`, reason: expect.stringContaining('description') },
    ]);
    expect(output.shadowed).toEqual([{ name: 'tool', path: `${real}/second/tool`, winner: `${real}/first/tool` }]);
    expect(result.stderr).toBe('');
  });

  it('lists the bundled examples', async () => {
    const result = await runList(['--root', examples, '--json']);
    const output = JSON.parse(result.stdout) as { skills: { name: string; tools: string[] }[] };
    expect(output.skills.map((skill) => skill.name)).toEqual([
      'file-ops',
      'python-math',
      'user-file-ops',
      'weather-tools',
    ]);
    expect(output.skills.find((skill) => skill.name === 'weather-tools')?.tools).toEqual([
      'get_current_weather',
      'get_weather_forecast',
      'search_city_by_name',
    ]);
  });
});

describe('skillbox list', () => {
  it('prints an aligned table, then skipped and shadowed skills, warnings on stderr', async () => {
    const { real } = await fixture();
    const result = await runList(['--root', 'first', '--root', 'second'], real);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'NAME        DOCS  TOOLS  DESCRIPTION',
      'other-name  0     0      Name differs from its folder.',
      'tool        1     1      Uses tools.',
    ]);
    expect(result.stdout).toContain(`2 skills in ${real}/first, ${real}/second\n`);
    expect(result.stdout).toContain(`Skipped:\n  ${real}/first/broken/SKILL.md: `);
    expect(result.stdout).toContain(
      `Shadowed (an earlier skill has the name):\n  tool: ${real}/second/tool (uses ${real}/first/tool)\n`,
    );
    expect(result.stderr).toMatch(/^warning: other-name: .*Mismatch/);
  });

  it('uses the standard roots without --root, and fails naming a missing --root', async () => {
    tree = await createSkillTree({ '.claude/skills/local/SKILL.md': skillMarkdown('local', 'From ./.claude/skills.') });
    const real = await realpath(tree.dir);
    const standard = await runList([], real, { HOME: real });
    expect(standard.stdout).toMatch(/^NAME {3}DOCS {2}TOOLS {2}DESCRIPTION\nlocal/);
    const missing = await runList(['--root', 'nowhere'], real);
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr: `skillbox list: skills root ${real}/nowhere does not exist\n`,
    });
    const oneOfTwo = await runList(['--root', '.claude/skills', '--root', 'nowhere', '--root', 'elsewhere'], real);
    expect(oneOfTwo).toEqual({
      code: 1,
      stdout: '',
      stderr: `skillbox list: 2 skills roots cannot be used:\n  - skills root ${real}/nowhere does not exist\n  - skills root ${real}/elsewhere does not exist\n`,
    });
    // SKILLS_ROOT is set once for every command: a missing entry there stays a warning.
    const fromEnvironment = await runList([], real, { HOME: real, SKILLS_ROOT: `${real}/gone` });
    expect(fromEnvironment.code).toBe(0);
    expect(fromEnvironment.stderr).toBe(`warning: skills root ${real}/gone does not exist\n`);
  });

  it('lists each skill once when one root holds another, in either order', async () => {
    const parent = resolve(examples, '..');
    const names = (stdout: string): string[] =>
      (JSON.parse(stdout) as { skills: { name: string }[] }).skills.map((skill) => skill.name);
    const alone = names((await runList(['--root', examples, '--json'])).stdout);
    expect(alone.length).toBeGreaterThan(1);
    for (const roots of [
      [parent, examples],
      [examples, parent],
    ]) {
      const result = await runList([...roots.flatMap((root) => ['--root', root]), '--json']);
      expect(result.code).toBe(0);
      expect(names(result.stdout)).toEqual(alone);
      expect(JSON.parse(result.stdout)).toMatchObject({ shadowed: [] });
    }
  });

  it('rejects unknown options with usage and exit 2', async () => {
    const result = await runList(['--bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^skillbox list: .*--bogus[\s\S]*Usage: skillbox list/);
  });
});

describe('skillbox list and the model', () => {
  it('marks the skills the model will not see, with the field that hides them, and warns about no honoured field', async () => {
    tree = await createSkillTree({
      'open/SKILL.md': skillMarkdown('open', 'Seen by the model.'),
      'manual/SKILL.md':
        '---\nname: manual\ndescription: Run by hand.\ndisable-model-invocation: true\nuser-invocable: true\nargument-hint: "[file]"\n---\nBody.\n',
      'tooling/SKILL.md':
        '---\nname: tooling\ndescription: For the build only.\nmetadata:\n  internal: true\n---\nBody.\n',
    });
    const real = await realpath(tree.dir);
    const text = await runList(['--root', real]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^NAME +DOCS +TOOLS +MODEL +DESCRIPTION\nmanual +0 +0 +hidden +Run by hand\.\nopen +0 +0 +sees +Seen by the model\.\ntooling +0 +0 +hidden +For the build only\.\n/,
    );
    expect(text.stdout).toContain(
      '\nHidden from the model (your code can still load them):\n  manual: disable-model-invocation: true\n  tooling: metadata.internal: true\n',
    );
    // The Claude Code fields skillbox knows are not "unexpected" when skills are loaded.
    expect(text.stderr).toBe('');
    const json = JSON.parse((await runList(['--root', real, '--json'])).stdout) as {
      skills: Array<{ name: string; model_visible: boolean; hidden_reason?: string }>;
    };
    expect(
      json.skills.map(({ name, model_visible, hidden_reason }) => ({ name, model_visible, hidden_reason })),
    ).toEqual([
      { name: 'manual', model_visible: false, hidden_reason: 'disable-model-invocation: true' },
      { name: 'open', model_visible: true, hidden_reason: undefined },
      { name: 'tooling', model_visible: false, hidden_reason: 'metadata.internal: true' },
    ]);
  });

  it('warns on stderr when the named root holds no skill', async () => {
    tree = await createSkillTree({ 'notes/readme.md': 'no skills here' });
    const real = await realpath(tree.dir);
    const result = await runList(['--root', real]);
    expect(result).toEqual({
      code: 0,
      stdout: `No skills found in ${real}.\n`,
      stderr: `warning: skills root ${real} holds no skill (no SKILL.md in it or below it)\n`,
    });
  });
});

describe('skillbox list --query', () => {
  it('prints the best matches with their scores, as a table or JSON', async () => {
    const result = await runList(['--root', examples, '--query', 'weather forecast', '--limit', '2']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SCORE\s+DESCRIPTION$/);
    expect(lines[1]).toMatch(/^weather-tools\s+\d+\.\d\d\s+/);
    expect(lines.length).toBeLessThanOrEqual(3);
    const json = JSON.parse((await runList(['--root', examples, '--query', 'weather forecast', '--json'])).stdout);
    expect(json.query).toBe('weather forecast');
    expect(json.results[0]).toEqual({
      name: 'weather-tools',
      description: expect.any(String),
      score: expect.any(Number),
    });
  });

  it('says when nothing matches, and refuses --limit without --query', async () => {
    const none = await runList(['--root', examples, '--query', 'quantum chromodynamics']);
    expect(none.stdout).toBe('No skill matches "quantum chromodynamics".\n');
    const bad = await runList(['--root', examples, '--limit', '3']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--limit and --bodies go with --query');
  });
});

describe('skillbox list with declared requirements', () => {
  it('shows each declaring skill with what it needs and what is missing in the chosen runtime', async () => {
    tree = await createSkillTree({
      'skills/plain/SKILL.md': skillMarkdown('plain', 'Needs nothing.'),
      'skills/transcode/SKILL.md':
        '---\nname: transcode\ndescription: Transcode videos.\nmetadata:\n  requires:\n    bins: [sh, skillbox-missing-transcoder]\n    network: true\n---\nBody.\n',
      'skills/shell/SKILL.md':
        '---\nname: shell\ndescription: Shell things.\nmetadata:\n  requires-bins: sh\n---\nBody.\n',
    });
    const result = await runList(['--root', join(tree.dir, 'skills'), '--runtime', 'local']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Requirements (checked in the local runtime as skill_run sees them with default options):\n' +
        '  shell: bins: sh (met)\n' +
        '  transcode: bins: sh skillbox-missing-transcoder; network (MISSING skillbox-missing-transcoder, network)\n',
    );
    const json = JSON.parse(
      (await runList(['--root', join(tree.dir, 'skills'), '--runtime', 'local', '--json'])).stdout,
    );
    const transcode = json.skills.find((skill: { name: string }) => skill.name === 'transcode');
    expect(transcode.requires).toEqual({
      programs: ['sh', 'skillbox-missing-transcoder'],
      anyPrograms: [],
      env: [],
      os: [],
      network: true,
    });
    expect(transcode.missing).toEqual([
      'program "skillbox-missing-transcoder" (not on PATH in the local runtime)',
      'network access (commands run without network: the network option)',
    ]);
    expect(json.skills.find((skill: { name: string }) => skill.name === 'plain').requires).toBeUndefined();
  });
});
