/**
 * `scheme://user:password@` at the start of a URL (a `git+` prefix allowed), up to the last `@`
 * before the path: a password may hold a raw `@`, and everything before the last one is secret.
 */
const userInformation = /^((?:git\+)?[a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;

/** The same anywhere in a text (an error message, a line git printed), up to a delimiter of URLs in prose. */
const userInformationInText = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#'"`<>()[\]{}]*@/gi;

/** `name=value` in a query string, in a text. */
const queryParameterInText = /([?&])([^=&#\s'"`<>]+)=([^&#\s'"`<>]*)/g;

/**
 * Whether a query parameter of this name carries a credential: `access_token`, `private_token`,
 * `token`, `api_key`, `client_secret`, `password`, `X-Amz-Signature`, `sig`, `key`, `code`, ...
 * Errs towards yes: a parameter taken out of a lock or a message costs nothing; a token left in a
 * committed lock is public.
 */
export function isCredentialParameter(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    /token|secret|passw|pwd|signature|credential|api[-_]?key|session|(?:^|[-_.])auth(?:$|[-_.]|orization)/.test(
      lower,
    ) || ['key', 'sig', 'code'].includes(lower)
  );
}

function parameterName(part: string): string {
  const name = part.split('=', 1)[0] as string;
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}

/**
 * The reference without the user name, password or token a URL may carry
 * (`https://user:secret@host/repo.git` gives `https://host/repo.git`, and
 * `https://host/site?access_token=x&lang=en` gives `https://host/site?lang=en`): what a lock file,
 * a log line or a message may hold. A checked-in lock must never carry a secret; the source is
 * fetched again with the credentials git finds itself (a credential helper, `~/.netrc`).
 */
export function withoutUrlCredentials(reference: string): string {
  const withoutUser = reference.replace(userInformation, '$1');
  const question = withoutUser.indexOf('?');
  if (question === -1 || !/^(?:git\+)?[a-z][a-z0-9+.-]*:\/\//i.test(withoutUser)) return withoutUser;
  const hash = withoutUser.indexOf('#', question);
  const query = withoutUser.slice(question + 1, hash === -1 ? undefined : hash);
  const kept = query.split('&').filter((part) => part !== '' && !isCredentialParameter(parameterName(part)));
  return `${withoutUser.slice(0, question)}${kept.length === 0 ? '' : `?${kept.join('&')}`}${hash === -1 ? '' : withoutUser.slice(hash)}`;
}

/**
 * `text` with every URL's user information and every credential query value replaced by `***`
 * (`https://***@host/x`, `?access_token=***`), wherever in the text they are: for an error
 * message, which may quote a reference, a URL a server gave, or a line a program printed.
 */
export function redactUrlCredentials(text: string): string {
  return text
    .replace(userInformationInText, '$1***@')
    .replace(queryParameterInText, (whole, separator: string, name: string) =>
      isCredentialParameter(parameterName(name)) ? `${separator}${name}=***` : whole,
    );
}

/**
 * Redacts the message and stack of `error` and of every error in its `cause` chain, in place, as
 * `redactUrlCredentials` does: a library's error (fetch's "cannot be constructed from a URL that
 * includes credentials: https://user:secret@…") quotes the URL it was given, and a caller logs
 * causes. Returns `error`.
 */
export function redactErrorChain<T>(error: T): T {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth += 1) {
    const redacted = redactUrlCredentials(current.message);
    if (redacted !== current.message) {
      current.message = redacted;
      if (current.stack !== undefined) current.stack = redactUrlCredentials(current.stack);
    }
    current = current.cause;
  }
  return error;
}
