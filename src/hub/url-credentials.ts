/** `scheme://user:password@` at the start of a URL (a `git+` prefix allowed), up to the last `@` before the path. */
const userInformation = /^((?:git\+)?[a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;

/**
 * The reference without the user name, password or token a URL may carry
 * (`https://user:secret@host/repo.git` gives `https://host/repo.git`): what a lock file, a log
 * line or a message may hold. A checked-in lock must never carry a secret; the source is fetched
 * again with the credentials git finds itself (a credential helper, `~/.netrc`).
 */
export function withoutUrlCredentials(reference: string): string {
  return reference.replace(userInformation, '$1');
}
