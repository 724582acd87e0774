import { execFile } from 'node:child_process';
import { mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const execute = promisify(execFile);

/** The repository this file belongs to: what `npm pack` packs. */
export const repositoryRoot = resolve(import.meta.dirname, '../..');

/** What `npm pack` reported: the tarball's file name and every path it holds. */
export interface PackedProject {
  /** The empty project the tarball was installed into (the caller removes it). */
  folder: string;
  packedPaths: string[];
}

/** The newest modification time under a folder, to tell whether dist/ was built from the current src/. */
async function newestChange(folder: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, (await stat(join(entry.parentPath, entry.name))).mtimeMs);
  }
  return newest;
}

/**
 * What a user gets from `npm i skillbox`: the tarball `npm pack` makes of this repository, installed
 * into a new empty project (named `prefix...` under the system's temporary folder) with nothing else.
 * Refuses a dist/ older than src/: the tarball holds dist/ as it is, and packing a stale build would
 * test old code.
 */
export async function installPackedPackage(prefix: string): Promise<PackedProject> {
  if ((await newestChange(resolve(repositoryRoot, 'src'))) > (await newestChange(resolve(repositoryRoot, 'dist')))) {
    throw new Error('dist/ is older than src/: run `npm run build` before this test');
  }
  const folder = await mkdtemp(join(tmpdir(), prefix));
  const { stdout } = await execute('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', folder], {
    cwd: repositoryRoot,
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (packed === undefined) throw new Error(`npm pack reported no tarball: ${stdout}`);
  await writeFile(join(folder, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // The local npm cache first: the registry is only asked for what the cache lacks.
  await execute('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `./${packed.filename}`], {
    cwd: folder,
  });
  return { folder, packedPaths: packed.files.map((file) => file.path) };
}

/**
 * Type-checks `files` of a consumer project the way a user's strict build would, under one module
 * resolution (`module`, `moduleResolution`), against the types the installed package ships. Returns
 * tsc's report: empty when it passed.
 */
export async function typeCheckConsumer(
  folder: string,
  name: string,
  resolution: { module: string; moduleResolution: string },
  files: readonly string[],
): Promise<string> {
  const config = join(folder, `tsconfig.${name}.json`);
  await writeFile(
    config,
    JSON.stringify({
      compilerOptions: {
        ...resolution,
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [resolve(repositoryRoot, 'node_modules/@types')],
      },
      files,
    }),
  );
  const tsc = resolve(repositoryRoot, 'node_modules/typescript/bin/tsc');
  return execute(process.execPath, [tsc, '-p', config], { cwd: folder }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}
