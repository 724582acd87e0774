import { createInterface } from 'node:readline';
import type { InstallerOptions, InstallProgress } from '../hub/install/installer.js';
import { formatScanReports } from '../hub/scan/format-scan-report.js';
import type { SkillScanReport } from '../hub/scan/scan-finding.js';
import { createSourceRegistry, type SourceRegistry } from '../hub/source-registry.js';
import { createSkillSources } from '../hub/sources/create-skill-sources.js';
import { createLocalSkillSource } from '../hub/sources/local-source.js';
import { type CliIo, CliUsageError } from './command.js';
import { startProgress } from './progress.js';
import { terminalSafe } from './terminal-safe-text.js';

/**
 * The sources the CLI installs from, most specific syntax first: the local folder source takes
 * paths (`./x`, `/x`, `~/x`, `file:`), which no remote source claims, so it goes before the bare
 * `owner/repo` that GitHub takes last. `SKILLBOX_SOURCES` (comma-separated source types, such as
 * `local,git`) keeps only those: an offline machine or a locked-down CI never reaches the others.
 */
export function createCliSourceRegistry(io: CliIo, flags: { allowUnencryptedGit?: boolean } = {}): SourceRegistry {
  // A mirror or an internal server in place of a public catalogue: npm's own registry setting, and
  // one variable for each searchable catalogue.
  const registryUrl = io.env.npm_config_registry || io.env.NPM_CONFIG_REGISTRY;
  const skillsShUrl = io.env.SKILLBOX_SKILLS_SH_URL;
  const clawHubUrl = io.env.SKILLBOX_CLAWHUB_URL;
  const all = [
    createLocalSkillSource({ cwd: io.cwd }),
    ...createSkillSources({
      environment: io.env,
      ...(flags.allowUnencryptedGit === true ? { git: { allowInsecureTransports: true } } : {}),
      ...(registryUrl ? { npm: { registryUrl } } : {}),
      ...(skillsShUrl ? { skillsSh: { baseUrl: skillsShUrl } } : {}),
      ...(clawHubUrl ? { clawHub: { baseUrl: clawHubUrl } } : {}),
    }),
  ];
  const wanted = io.env.SKILLBOX_SOURCES?.split(',')
    .map((type) => type.trim())
    .filter((type) => type !== '');
  if (wanted === undefined || wanted.length === 0) return createSourceRegistry(all);
  const unknown = wanted.filter((type) => !all.some((source) => source.type === type));
  if (unknown.length > 0)
    throw new CliUsageError(
      `SKILLBOX_SOURCES names unknown source types: ${unknown.join(', ')} (known: ${all.map((source) => source.type).join(', ')})`,
    );
  return createSourceRegistry(all.filter((source) => wanted.includes(source.type)));
}

/** Progress of an install: a redrawn status line on a terminal, plain lines in a pipe or a log. */
export function installProgress(
  io: CliIo,
  command: string,
): { onProgress: (progress: InstallProgress) => void; done: () => void } {
  if (io.stderrIsTerminal === true) {
    const progress = startProgress(io, command, 'starting', { delayMs: 300 });
    return { onProgress: ({ message }) => progress.update(terminalSafe(message)), done: () => progress.done() };
  }
  return { onProgress: ({ message }) => io.stderr(`skillbox ${command}: ${terminalSafe(message)}\n`), done: () => {} };
}

async function askYesNo(io: CliIo, question: string): Promise<boolean> {
  if (io.stdin === undefined) return false;
  const lines = createInterface({ input: io.stdin, terminal: false });
  io.stderr(question);
  try {
    for await (const line of lines) return /^\s*y(es)?\s*$/i.test(line);
    return false;
  } finally {
    lines.close();
  }
}

/**
 * The review step of `add`, `update` and `install`: the scan goes to standard error; a skill with
 * nothing to review installs; otherwise `--yes` accepts, a terminal is asked, and anything else
 * (a pipe, CI) refuses, because nobody has seen what would run.
 */
export function cliReview(
  io: CliIo,
  command: string,
  yes: boolean,
): (reports: readonly SkillScanReport[], facts: { readonly asLocked: boolean }) => Promise<boolean> {
  return async (reports, { asLocked }) => {
    io.stderr(terminalSafe(formatScanReports(reports)));
    if (reports.every((report) => report.findings.length === 0) || yes) return true;
    // install --frozen of exactly the locked content: reviewed when it was added (the summary above
    // still shows what it holds); --deny-scripts was applied before this.
    if (asLocked) {
      io.stderr(`skillbox ${command}: every file matches skills-lock.json, reviewed when it was added; installing\n`);
      return true;
    }
    if (io.stdinIsTerminal === true && io.stderrIsTerminal === true)
      return askYesNo(io, 'Install these skills? [y/N] ');
    io.stderr(`skillbox ${command}: the scan found files to review and no one was asked; rerun with --yes to accept\n`);
    return false;
  };
}

/** The installer options every hub command shares. */
export function installerOptionsFor(
  io: CliIo,
  command: string,
  flags: {
    to?: string | undefined;
    lock?: string | undefined;
    yes?: boolean;
    denyScripts?: boolean;
    allowUnencryptedGit?: boolean;
  },
  onProgress: (progress: InstallProgress) => void,
): InstallerOptions {
  return {
    registry: createCliSourceRegistry(io, { allowUnencryptedGit: flags.allowUnencryptedGit === true }),
    cwd: io.cwd,
    ...(flags.to === undefined ? {} : { target: flags.to }),
    ...(flags.lock === undefined ? {} : { lockFile: flags.lock }),
    denyScripts: flags.denyScripts === true,
    review: cliReview(io, command, flags.yes === true),
    onProgress,
  };
}

/** The usage line of `--allow-unencrypted-git`, shared by add, update and install. */
export const gitTransportUsage = `  --allow-unencrypted-git
                 also fetch git repositories over http:// and git:// (an internal server): they
                 neither encrypt nor authenticate the server; the lock's commit id still pins
                 the content`;

/** Usage lines for the options every installing command shares. */
export const targetOptionsUsage = `  --to DIR       the folder skills are installed in (default ./.agents/skills)
  --lock FILE    the lock file (default ./skills-lock.json for a .agents/skills or .claude/skills
                 folder, else DIR/skills-lock.json)`;
