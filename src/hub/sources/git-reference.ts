import { redactUrlCredentials } from '../url-credentials.js';
/** A git reference taken apart: `URL[#ref[:path]]`, as Docker build contexts write it. */
export interface GitReference {
  /** The URL git is given (a `git+` prefix removed). */
  readonly url: string;
  readonly ref: string | undefined;
  /** The folder inside the repository, `''` for its root. */
  readonly path: string;
}

const schemes = ['https://', 'http://', 'ssh://', 'git://', 'file://'];

/** The reference taken apart, or undefined when it is not a git URL. */
export function parseGitReference(reference: string): GitReference | undefined {
  const explicit = reference.startsWith('git+');
  const text = explicit ? reference.slice('git+'.length) : reference;
  const hash = text.indexOf('#');
  const url = hash === -1 ? text : text.slice(0, hash);
  const fragment = hash === -1 ? '' : text.slice(hash + 1);
  const scp = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/\\][^\\]*$/.test(url);
  const withScheme = schemes.some((scheme) => url.startsWith(scheme));
  if (!scp && !withScheme) return undefined;
  // A plain https or file URL is a git repository only when it says so (`git+`, or a path ending in
  // .git); otherwise it is a web page, an index or a folder.
  if (withScheme && !explicit && !url.startsWith('ssh://') && !url.startsWith('git://') && !/\.git\/?$/.test(url))
    return undefined;
  if (/\s/.test(url) || url.startsWith('-')) return undefined;
  const colon = fragment.indexOf(':');
  const ref = colon === -1 ? fragment : fragment.slice(0, colon);
  const path = colon === -1 ? '' : fragment.slice(colon + 1).replace(/^\/+|\/+$/g, '');
  if (ref !== '' && !/^[^\s~^:?*[\\]+$/.test(ref)) return undefined;
  if (path.split('/').some((segment) => segment === '..' || segment === '.')) return undefined;
  return { url, ref: ref === '' ? undefined : ref, path };
}

/** The reference with any password or token in its URL replaced, for messages and records. */
export function redactGitReference(reference: string): string {
  return redactUrlCredentials(reference);
}
