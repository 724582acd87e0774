// No zod here: every repository imports this file, and the repository's options check loads the
// denied-names schema only when a caller gives `deniedFileNames` (fs-skill-repository-options-check.ts).

/** Folders no scan or listing enters: tool caches and dependency trees that never hold a skill of their own. */
export const skippedFolderNames: ReadonlySet<string> = new Set(['.git', 'node_modules', '.venv', '__pycache__']);

/**
 * Names of files and folders that usually hold secrets, as case-insensitive patterns (`*` any run of
 * characters, `?` one). A skill folder is often a checkout or a working folder, and what the model
 * may read should not include the `.env` or deploy key that happens to sit there.
 */
export const defaultDeniedFileNames: readonly string[] = Object.freeze([
  // Environment files (and direnv's .envrc), including .env.local, .env.production and the templates (.env.example):
  // telling a real one from a template would need reading it.
  '.env',
  '.env.*',
  '.envrc',
  // Private keys and key stores.
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  '*.ppk',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  // Credential files of package managers, version control and other tools.
  '.npmrc',
  '.pypirc',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.git-credentials',
  '.htpasswd',
  '.dockercfg',
  '.vault-token',
  '.s3cfg',
  'credentials*.json',
  'client_secret*.json',
  'service-account*.json',
  // Folders of credentials, refused with everything below them.
  '.ssh',
  '.aws',
  '.azure',
  '.gnupg',
  '.kube',
]);

/**
 * Which paths inside a skill folder are never listed, counted as docs or served. One rule for the
 * repository's listing and reading, and for anything else that copies a skill folder (staging).
 */
export interface BundledFileRule {
  /** The denied-name patterns in force. */
  readonly deniedFileNames: readonly string[];
  /** Why a `/`-separated path relative to a skill folder is refused, or undefined when it may be served. */
  refusalOf(relativePath: string): string | undefined;
  /** Whether a walk of a skill folder leaves out an entry of this name (and, for a folder, all below it). */
  excludes(name: string): boolean;
}

const lowerSkippedFolderNames = new Set([...skippedFolderNames].map((name) => name.toLowerCase()));

/** Case-insensitive, since on a case-insensitive disk `.GIT/config` is `.git/config`. */
export function isSkippedFolderName(name: string): boolean {
  return lowerSkippedFolderNames.has(name.toLowerCase());
}

function patternExpression(pattern: string): RegExp {
  const source = [...pattern].map((character) =>
    character === '*' ? '.*' : character === '?' ? '.' : character.replace(/[\\^$.|+()[\]{}]/g, '\\$&'),
  );
  return new RegExp(`^${source.join('')}$`, 'isu');
}

/**
 * The rule for denied-name patterns already checked (`createBundledFileRule` checks them first;
 * a repository checks them with the rest of its options). The default list gives one shared rule.
 */
export function bundledFileRuleOf(deniedFileNames: readonly string[] = defaultDeniedFileNames): BundledFileRule {
  // Most repositories use the defaults: one shared rule, compiled once per process.
  if (deniedFileNames === defaultDeniedFileNames) {
    defaultRule ??= ruleFor(defaultDeniedFileNames);
    return defaultRule;
  }
  return ruleFor(deniedFileNames);
}

let defaultRule: BundledFileRule | undefined;

function ruleFor(deniedFileNames: readonly string[]): BundledFileRule {
  // Compiled on first use: a listing never asks, and a repository is often made only to list.
  let patterns: { pattern: string; expression: RegExp }[] | undefined;
  const deniedPattern = (name: string): string | undefined => {
    patterns ??= deniedFileNames.map((pattern) => ({ pattern, expression: patternExpression(pattern) }));
    return patterns.find(({ expression }) => expression.test(name))?.pattern;
  };
  return {
    deniedFileNames: Object.freeze([...deniedFileNames]),
    refusalOf(relativePath) {
      for (const segment of relativePath.split('/')) {
        if (isSkippedFolderName(segment)) return `it goes through "${segment}", which is never listed or served`;
        const pattern = deniedPattern(segment);
        if (pattern !== undefined) {
          return `"${segment}" matches the denied name "${pattern}" (files that usually hold secrets are not served; see deniedFileNames)`;
        }
      }
      return undefined;
    },
    excludes(name) {
      return isSkippedFolderName(name) || deniedPattern(name) !== undefined;
    },
  };
}
