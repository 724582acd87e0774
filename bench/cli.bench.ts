// The `skillbox` command as a person or a script meets it: whole processes, from exec to exit, of
// the built CLI (bin/skillbox.js over dist/), against the floor of a Node process that does
// nothing (`node -e 0`) and, for a sandboxed run, the same run on the local runtime plus a bare
// bubblewrap sandbox started from the same parent. The cases take turns round by round (see
// interleavedTimes), so load that comes and goes weighs on all of them alike. Figures only.
//   npm run bench -- cli [--quick]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bubblewrapArguments } from '../src/runtime/bubblewrap-arguments.js';
import { detectSandboxSupport } from '../src/runtime/sandbox-support.js';
import { formatSpread, interleavedTimes, median, pairedRatio, quick, reportRatio, spreadOf } from './bench-support.js';

const repositoryRoot = resolve(fileURLToPath(new URL('..', import.meta.url)));
const cli = join(repositoryRoot, 'bin', 'skillbox.js');
const rounds = quick ? 6 : 20;

function processTime(file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(file, args, { env, stdio: 'ignore' });
    child.on('error', fail);
    child.on('exit', (code) =>
      code === 0 ? done() : fail(new Error(`${file} ${args.join(' ')} exited with ${String(code)}`)),
    );
  });
}

export async function run(): Promise<void> {
  // The figures must be the checkout's: build dist/ first (a few seconds when it is current).
  execFileSync('npm', ['run', 'build'], { cwd: repositoryRoot, stdio: 'ignore' });
  const folder = mkdtempSync(join(tmpdir(), 'skillbox-bench-cli-'));
  try {
    const root = join(folder, 'skills');
    mkdirSync(join(root, 'probe'), { recursive: true });
    writeFileSync(join(root, 'probe', 'SKILL.md'), '---\nname: probe\ndescription: A probe skill.\n---\nRun it.\n');
    const node = process.execPath;
    const skillbox =
      (...args: string[]) =>
      () =>
        processTime(node, [cli, ...args]);
    const times = await interleavedTimes(
      {
        'node -e 0': () => processTime(node, ['-e', '0']),
        '--version': skillbox('--version'),
        list: skillbox('list', '--root', root),
        show: skillbox('show', 'probe', '--root', root),
        validate: skillbox('validate', join(root, 'probe')),
      },
      rounds,
    );
    const floor = times['node -e 0'];
    console.log(
      `whole processes, median of ${rounds} rounds [middle half]; node -e 0: ${formatSpread(spreadOf(floor), 1, ' ms')}`,
    );
    for (const [name, goal] of [
      ['--version', '<= 1.2'],
      ['list', '<= 2.5'],
      ['show', '<= 2.5'],
      ['validate', '<= 2.5'],
    ] as const) {
      const ratio = pairedRatio(times[name], floor);
      console.log(`skillbox ${name}: ${median(times[name]).toFixed(1)} ms, ${formatSpread(ratio)} x node -e 0`);
      reportRatio({ benchmark: 'cli', comparison: `skillbox ${name} (small root) / node -e 0`, ratio, goal });
    }

    const support = detectSandboxSupport();
    if (!support.available) {
      console.log(`skillbox run --runtime sandbox: n/a (${support.reason})`);
      return;
    }
    const bareWorkspace = join(folder, 'bare');
    mkdirSync(bareWorkspace);
    const bare = [
      ...bubblewrapArguments({
        workspace: { root: bareWorkspace, cwd: '/workspace' },
        network: false,
        readOnlyPaths: [],
      }),
      '/bin/true',
    ];
    const runs = await interleavedTimes(
      {
        local: skillbox('run', 'probe', '--root', root, '--runtime', 'local', '--', 'true'),
        sandbox: skillbox('run', 'probe', '--root', root, '--runtime', 'sandbox', '--', 'true'),
        'bare bwrap': () => processTime(support.bubblewrapPath, bare, {}),
      },
      rounds,
    );
    // The goal: the sandboxed run costs the local one plus a bare sandbox, plus at most 10 ms.
    const budget = runs.local.map((local, index) => local + (runs['bare bwrap'][index] as number));
    const over = runs.sandbox.map((sandbox, index) => sandbox - (budget[index] as number));
    console.log(
      `skillbox run probe -- true: local ${median(runs.local).toFixed(1)} ms, sandbox ${median(runs.sandbox).toFixed(1)} ms, bare bwrap ${median(runs['bare bwrap']).toFixed(1)} ms; sandbox - (local + bare bwrap): ${formatSpread(spreadOf(over), 1, ' ms')} (goal <= 10 ms)`,
    );
    reportRatio({
      benchmark: 'cli',
      comparison: 'skillbox run --runtime sandbox / (local + bare bwrap)',
      ratio: pairedRatio(runs.sandbox, budget),
      goal: '<= 1 + 10 ms',
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
