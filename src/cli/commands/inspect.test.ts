import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../main.js';

const examples = path.resolve('examples/skills');

describe('skillbox inspect', () => {
  it('prints a loopback URL that serves the skills, and stops when told', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'skillbox-inspect-'));
    const stop = new AbortController();
    let stdout = '';
    let exit: Promise<number> | undefined;
    const printed = new Promise<string>((resolve) => {
      const io = {
        stdout: (text: string) => {
          stdout += text;
          const url = /http:\/\/\S+/.exec(stdout)?.[0];
          if (url !== undefined) resolve(url);
        },
        stderr: () => undefined,
        cwd: home,
        env: { HOME: home },
        signal: stop.signal,
      };
      exit = main(['inspect', '--root', examples], io);
    });
    try {
      const url = await printed;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const skills = (await (await fetch(new URL('/api/skills', url))).json()) as { skills: Array<{ name: string }> };
      expect(skills.skills.map((skill) => skill.name)).toContain('python-math');
      // No store was named and chat's SQLite file does not exist in this HOME: the page says so.
      expect(await (await fetch(new URL('/api/sessions', url))).json()).toMatchObject({ store: false });
      stop.abort();
      expect(await exit).toBe(0);
    } finally {
      stop.abort();
      await rm(home, { recursive: true, force: true });
    }
  });

  it('refuses a store it cannot name, naming the flag', async () => {
    let stderr = '';
    const code = await main(['inspect', '--root', examples, '--store', 'mysql://x'], {
      stdout: () => undefined,
      stderr: (text) => void (stderr += text),
      cwd: os.tmpdir(),
      env: {},
    });
    expect(code).toBe(2);
    expect(stderr).toContain('--store must be sqlite:PATH, redis://... or postgres://...');
  });

  it('refuses a --workspaces that is not a folder, naming the flag and the path', async () => {
    let stderr = '';
    const missing = path.join(os.tmpdir(), 'skillbox-no-such-workspaces');
    const code = await main(['inspect', '--root', examples, '--workspaces', missing], {
      stdout: () => undefined,
      stderr: (text) => void (stderr += text),
      cwd: os.tmpdir(),
      env: {},
    });
    expect(code).toBe(2);
    expect(stderr).toContain(`--workspaces: no folder at ${missing}`);
  });
});
