import { SkillboxError } from '../errors.js';

/**
 * A URL skills root that could not be made into a folder: the download failed or broke a limit, the
 * archive was refused, or the cache could not be written. The message starts with the URL (without
 * any user name or password in it) and, for a refused archive, names the entry.
 */
export class UrlRootError extends SkillboxError {
  readonly url: string;
  readonly reason: string;

  constructor(url: string, reason: string, options?: { cause?: unknown }) {
    super('URL_ROOT_FAILED', `skills root ${url}: ${reason}`, options);
    this.url = url;
    this.reason = reason;
  }
}

/** The URL as it may be shown and logged: user name and password removed. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}
