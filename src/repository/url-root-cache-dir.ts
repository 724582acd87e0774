import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export interface SkillsCacheDirOptions {
  /** Where `SKILLS_CACHE_DIR` and `XDG_CACHE_HOME` are read from; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Home folder for `~/.cache`; defaults to `os.homedir()`. */
  home?: string;
  /** A relative `SKILLS_CACHE_DIR` resolves against this; defaults to `process.cwd()`. */
  cwd?: string;
}

/**
 * Where URL skills roots are downloaded to: `SKILLS_CACHE_DIR` when set, else
 * `$XDG_CACHE_HOME/skillbox/skills` when that is an absolute path (the XDG rule), else
 * `~/.cache/skillbox/skills`.
 */
export function defaultSkillsCacheDir(options: SkillsCacheDirOptions = {}): string {
  const env = options.env ?? process.env;
  const configured = env.SKILLS_CACHE_DIR?.trim();
  if (configured) return resolve(options.cwd ?? process.cwd(), configured);
  const xdg = env.XDG_CACHE_HOME?.trim();
  const cacheHome = xdg && isAbsolute(xdg) ? xdg : join(options.home ?? homedir(), '.cache');
  return join(cacheHome, 'skillbox', 'skills');
}
