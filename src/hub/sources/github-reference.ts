/** `owner/repo[/path][@ref]`, with an optional `github:` prefix, taken apart. */
export interface GitHubReference {
  readonly owner: string;
  readonly repo: string;
  /** The folder inside the repository, `''` for its root. */
  readonly path: string;
  readonly ref: string | undefined;
}

const ownerPattern = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const repoPattern = /^[A-Za-z0-9._-]{1,100}$/;
const segmentPattern = /^[^\s\\:@]+$/;

/** The reference taken apart, or undefined when it is not in the GitHub shorthand. */
export function parseGitHubReference(reference: string): GitHubReference | undefined {
  const text = reference.startsWith('github:') ? reference.slice('github:'.length) : reference;
  const at = text.indexOf('@');
  const location = at === -1 ? text : text.slice(0, at);
  const ref = at === -1 ? undefined : text.slice(at + 1);
  if (ref !== undefined && !/^[^\s~^:?*[\\]+$/.test(ref)) return undefined;
  const [owner, repo, ...rest] = location.split('/');
  if (owner === undefined || repo === undefined) return undefined;
  if (!ownerPattern.test(owner) || !repoPattern.test(repo) || repo === '.' || repo === '..') return undefined;
  const path = rest.filter((segment) => segment !== '');
  if (path.some((segment) => segment === '.' || segment === '..' || !segmentPattern.test(segment))) return undefined;
  return { owner, repo: repo.replace(/\.git$/, ''), path: path.join('/'), ref: ref === '' ? undefined : ref };
}
