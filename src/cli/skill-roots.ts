import { homedir } from 'node:os';
import { modelHiddenReason } from '../format/model-invocation.js';
import { UnusableSkillRootError } from '../repository/errors.js';
import { FsSkillRepository } from '../repository/fs-skill-repository.js';
import { standardSkillRoots } from '../repository/standard-roots.js';
import type { SkillSummary } from '../repository/types.js';
import type { CliIo } from './command.js';
import { startProgress } from './progress.js';
import { warningLine } from './terminal-style.js';

/**
 * The repository a command works on: the `--root` folders in the order given, or the standard roots
 * (SKILLS_ROOT, then .agents/skills, .claude/skills and skills from the current folder up to its
 * project root, then ~/.agents/skills, ~/.claude/skills) when there are none, resolved against
 * `io.cwd` and `io.env`. A `--root` that is missing or unusable throws UnusableSkillRootError
 * (exit 1): the user asked for it, so an empty result would hide a typo. A missing standard root
 * is silent and a missing SKILLS_ROOT entry a warning, as they are set once for every command.
 * Scan warnings (a URL root, a link not followed, a named root with no skill) go to standard
 * error, so a command's standard output stays clean.
 */
export async function openRepositoryFromArgs(roots: string[], io: CliIo, command: string): Promise<FsSkillRepository> {
  // Scanning a large tree or downloading a URL root can take a while; say so on a terminal.
  const progress = startProgress(
    io,
    command,
    roots.some((root) => /^https?:\/\//i.test(root)) ? 'downloading and scanning skill roots' : 'scanning skill roots',
  );
  let repository: FsSkillRepository;
  // The first scan's warnings wait until we know whether a named root is unusable (then that is the
  // error, said once); a later scan's (a watch) go to standard error as they come.
  let firstScan: string[] | undefined = [];
  const onWarning = (warning: string): void => {
    if (firstScan !== undefined) firstScan.push(warning);
    else io.stderr(warningLine(io, warning));
  };
  try {
    repository = await FsSkillRepository.open({
      ...(roots.length > 0 ? { roots } : {}),
      cwd: io.cwd,
      env: io.env,
      home: io.env.HOME ?? homedir(),
      ...(io.locked === true ? { locked: true } : {}),
      onWarning,
    });
  } finally {
    progress.done();
  }
  const warnings = firstScan;
  firstScan = undefined;
  if (roots.length > 0 && repository.rootProblems().length > 0)
    throw new UnusableSkillRootError(repository.rootProblems());
  for (const warning of warnings) io.stderr(warningLine(io, warning));
  return repository;
}

/**
 * The roots a command scanned, for a message that explains why no skill was found: the folders
 * themselves, the standard ones spelled out when none of them exists (a server started from `/`
 * must say where it looked, not just that it found nothing).
 */
export function describeRoots(repository: FsSkillRepository, roots: string[], io: Pick<CliIo, 'cwd' | 'env'>): string {
  const scanned = repository.roots();
  if (scanned.length > 0) return scanned.join(', ');
  if (roots.length > 0) return `${roots.join(', ')} (none usable)`;
  const standard = [...new Set(standardSkillRoots({ cwd: io.cwd, env: io.env, home: io.env.HOME ?? homedir() }))];
  return `the standard roots, none of which exists: ${standard.join(', ')} (name a folder with --root, or set SKILLS_ROOT)`;
}

/** Reasons listed one per line before the rest are counted; `skillbox list` shows them all. */
const reasonsShown = 5;

/**
 * What a serving command (mcp, chat) says on standard error about the skills the model will not
 * get: skipped (cannot be loaded), shadowed (an earlier skill has the name) and hidden from the
 * model (disable-model-invocation, metadata.internal), each with its reason, so a user who misses
 * a skill in the host learns why without running `skillbox list`.
 */
export async function describeLeftOutSkills(
  repository: FsSkillRepository,
  summaries: readonly SkillSummary[],
  command: string,
): Promise<string> {
  const report = await repository.report();
  const hidden: string[] = [];
  for (const summary of summaries) {
    if (summary.modelInvocable !== false) continue;
    const skill = await repository.get(summary.name);
    hidden.push(`${summary.name}: ${modelHiddenReason(skill.frontmatter) ?? 'not model-invocable'}`);
  }
  const groups: Array<[string, string[]]> = [
    ['skipped (cannot be loaded)', report.skipped.map((entry) => `${entry.path}: ${entry.reason}`)],
    [
      'shadowed (an earlier skill has the name)',
      report.shadowed.map((entry) => `${entry.path}: "${entry.name}" is ${entry.winner}`),
    ],
    ['hidden from the model', hidden],
  ];
  const lines: string[] = [];
  for (const [label, reasons] of groups) {
    if (reasons.length === 0) continue;
    lines.push(`skillbox ${command}: ${reasons.length} skill${reasons.length === 1 ? '' : 's'} ${label}:\n`);
    for (const reason of reasons.slice(0, reasonsShown)) lines.push(`  ${reason}\n`);
    if (reasons.length > reasonsShown)
      lines.push(`  … and ${reasons.length - reasonsShown} more (skillbox list shows them all)\n`);
  }
  return lines.join('');
}
