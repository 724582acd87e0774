#!/usr/bin/env node
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';

const argv = process.argv.slice(2);

// `--version` answers without loading the commands (and their dependencies): hosts and scripts
// call it to probe for skillbox, and should not pay for the MCP SDK or the tokenizer.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const { readPackageVersion } = await import('../dist/cli/package-version.js');
  process.stdout.write(`${readPackageVersion()}\n`);
} else {
  enableCompileCache();
  const { main } = await import('../dist/cli/main.js');
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`skillbox: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 2;
    },
  );
}

/**
 * Every command is a new process that compiled the same megabyte of JavaScript again; Node 22.1+
 * keeps V8's compiled code on disk and checks it against the source on the next start. Kept in
 * this user's own cache folder (`$XDG_CACHE_HOME/skillbox/compile-cache`, else `~/.cache/...`),
 * used only while the folder is theirs alone: whoever can write it could hand this process code
 * to run. Node's own `NODE_COMPILE_CACHE` / `NODE_DISABLE_COMPILE_CACHE` win; `SKILLBOX_COMPILE_CACHE=off`
 * turns it off.
 */
function enableCompileCache() {
  const env = process.env;
  if (typeof module.enableCompileCache !== 'function' || env.SKILLBOX_COMPILE_CACHE === 'off') return;
  if (env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined) return;
  try {
    const xdg = env.XDG_CACHE_HOME?.trim();
    const folder = join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache'), 'skillbox', 'compile-cache');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    // Judged where it really is, and used there: a link on the way is resolved once, not again.
    const real = realpathSync(folder);
    const uid = process.getuid?.();
    // The folder and the one holding it are this user's alone. Every folder above them is this
    // user's or root's, and no one else may write it unless it is sticky (as /tmp): whoever can
    // write a folder on the way could rename what is below it away and put their own in its place.
    for (let path = real, depth = 0; ; path = dirname(path), depth += 1) {
      const stats = lstatSync(path);
      if (!stats.isDirectory()) return;
      if (depth < 2) {
        if (stats.uid !== uid || (stats.mode & 0o022) !== 0) return;
      } else if ((stats.uid !== uid && stats.uid !== 0) || ((stats.mode & 0o022) !== 0 && (stats.mode & 0o1000) === 0))
        return;
      if (dirname(path) === path) break;
    }
    module.enableCompileCache(real);
  } catch {
    // No home, a read-only one: the command runs, compiling as before.
  }
}
