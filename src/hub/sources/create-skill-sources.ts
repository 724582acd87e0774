import type { SkillSource } from '../skill-source.js';
import { createClawHubSource } from './clawhub-source.js';
import { createGitSource } from './git-source.js';
import { createGitHubSource } from './github-source.js';
import { createMarketplaceSource } from './marketplace-source.js';
import { createNpmSource } from './npm-source.js';
import { createSkillsShSource } from './skills-sh-source.js';
import type { SourceFetchLimits } from './source-limits.js';
import { createWellKnownSource } from './well-known-source.js';

/** Where the remote sources talk to and how much they accept; every field has a working default. */
export interface SkillSourcesOptions {
  /** GitHub's API, archive host and web address (tests point them at loopback servers). */
  readonly github?: {
    readonly apiBaseUrl?: string;
    readonly archiveOrigins?: readonly string[];
    readonly webBaseUrl?: string;
    /** The API token; `GITHUB_TOKEN` (then `GH_TOKEN`) from `environment` when not given. */
    readonly token?: string;
  };
  readonly npm?: {
    readonly registryUrl?: string;
    readonly token?: string;
    readonly tarballOrigins?: readonly string[];
  };
  readonly git?: { readonly allowInsecureTransports?: boolean; readonly temporaryDirectory?: string };
  readonly wellKnown?: { readonly excludedHosts?: readonly string[] };
  readonly skillsSh?: { readonly baseUrl?: string };
  readonly clawHub?: {
    readonly baseUrl?: string;
    readonly token?: string;
    readonly downloadOrigins?: readonly string[];
  };
  /** Network and size limits shared by every source. */
  readonly limits?: Partial<SourceFetchLimits>;
  /** Where tokens are read from when not given, `process.env` by default. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

/**
 * The remote skill sources in the order the installer should ask them whether a reference is
 * theirs: the prefixed forms first (`npm:`, `marketplace:`, `clawhub:`, `skills.sh/`), then git URLs,
 * then other http(s) URLs (well-known indexes), and the GitHub shorthand `owner/repo` last, since
 * it is the loosest. A local folder source belongs before all of them (`./`, `/` and `~` never
 * match a remote source, but a bare `a/b` is GitHub's).
 */
export function createSkillSources(options: SkillSourcesOptions = {}): SkillSource[] {
  const environment = options.environment ?? process.env;
  const limits = options.limits;
  const githubToken = options.github?.token ?? environment.GITHUB_TOKEN ?? environment.GH_TOKEN;
  const github = createGitHubSource({ ...options.github, token: githubToken, ...(limits ? { limits } : {}) });
  const shared = limits ? { limits } : {};
  return [
    createNpmSource({ ...options.npm, ...shared }),
    createMarketplaceSource(github),
    createClawHubSource(github, { ...options.clawHub, ...shared }),
    createSkillsShSource(github, { ...options.skillsSh, ...shared }),
    createGitSource({ ...options.git, ...shared }),
    createWellKnownSource({ ...options.wellKnown, ...shared }),
    github,
  ];
}
