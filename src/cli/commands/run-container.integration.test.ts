import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerEngineWorks, containerImage, containerSocket } from '../../../test/support/services.js';
import { main } from '../main.js';

const examples = path.resolve('examples/skills');

/** The workspace names of the skillbox containers the test engine has, running or not. */
function skillboxWorkspaceNames(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const asked = request({ socketPath: containerSocket, path: '/v1.41/containers/json?all=true' }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () =>
        resolve(
          (JSON.parse(body) as Array<{ Labels: Record<string, string> | null }>)
            .map((container) => container.Labels?.['io.skillbox.workspace-name'])
            .filter((name): name is string => name !== undefined),
        ),
      );
    });
    asked.once('error', reject);
    asked.end();
  });
}

async function cli(args: string[], home: string, command = 'run') {
  let stdout = '';
  let stderr = '';
  const code = await main([command, ...args], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: home,
    env: { HOME: home },
  });
  return { code, stdout, stderr };
}

describe('skillbox run --runtime container', () => {
  let home = '';
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'skillbox-cli-container-'));
  });
  afterAll(async () => rm(home, { recursive: true, force: true }));

  it('refuses --image without --runtime container, and --runtime container without --image', async () => {
    const stray = await cli(
      ['python-math', '--root', examples, '--runtime', 'local', '--image', 'x', '--', 'true'],
      home,
    );
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('--image applies only to --runtime container');
    const missing = await cli(['python-math', '--root', examples, '--runtime', 'container', '--', 'true'], home);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--runtime container needs --image IMAGE');
  });

  it.runIf(containerEngineWorks)('runs a skill script in the image and returns its output file', async () => {
    const result = await cli(
      [
        'python-math',
        '--root',
        examples,
        '--runtime',
        'container',
        '--image',
        containerImage,
        '--engine',
        containerSocket,
        '--',
        'python3 scripts/fib.py 6 > out/fib.txt; id -u',
      ],
      home,
    );
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as {
      stdout: string;
      output_files: Array<{ name: string; content: string }>;
    };
    expect(json.stdout).toBe('65534\n');
    expect(json.output_files.map((file) => [file.name, file.content.trim().split('\n').length])).toEqual([
      ['out/fib.txt', 6],
    ]);
  });

  it.runIf(containerEngineWorks)(
    'lists requirements as the image meets them, leaving no container behind',
    async () => {
      const root = path.join(home, 'skills');
      await mkdir(path.join(root, 'needs-jq'), { recursive: true });
      await writeFile(
        path.join(root, 'needs-jq', 'SKILL.md'),
        '---\nname: needs-jq\ndescription: Needs jq and python3.\nmetadata:\n  requires-bins: "jq python3"\n---\nBody\n',
      );
      // The probe's workspace is named below TMPDIR: its own here, so other test files' containers are not counted.
      const probes = path.join(home, 'probes');
      await mkdir(probes);
      const tmpdirBefore = process.env.TMPDIR;
      process.env.TMPDIR = probes;
      try {
        const result = await cli(
          ['--root', root, '--runtime', 'container', '--image', containerImage, '--engine', containerSocket],
          home,
          'list',
        );
        expect(result.code).toBe(0);
        expect(result.stdout).toContain('needs-jq: bins: jq python3 (MISSING jq)');
      } finally {
        if (tmpdirBefore === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = tmpdirBefore;
      }
      expect((await skillboxWorkspaceNames()).filter((name) => name.startsWith(`${probes}/`))).toEqual([]);
    },
  );
});
