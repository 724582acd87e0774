/** What a reviewer must see about a skill before it runs, one kind per finding. */
export type ScanFindingKind =
  | 'executable'
  | 'script'
  | 'binary'
  | 'hidden-file'
  | 'link'
  | 'special-file'
  | 'unknown-type'
  | 'large-file'
  | 'allowed-tools'
  | 'network'
  | 'shell'
  | 'encoded-blob'
  | 'invisible-unicode'
  | 'bidi-unicode';

/** One thing the scan found, in one file (`path` relative to the skill folder). */
export interface ScanFinding {
  readonly kind: ScanFindingKind;
  readonly path: string;
  /** What exactly: the interpreter, the tool list, the matched call, the code points. */
  readonly detail: string;
  /** 1-based line of the first occurrence, for findings inside text. */
  readonly line?: number;
}

/** The scan of one skill. */
export interface SkillScanReport {
  readonly skill: string;
  readonly files: number;
  readonly bytes: number;
  readonly findings: readonly ScanFinding[];
}

/**
 * Kinds `--deny-scripts` refuses: something that can run (a script, an executable, a binary), and
 * a file of a type not on the inert list, which may run in a way nobody listed.
 */
export const deniedByDenyScripts: ReadonlySet<ScanFindingKind> = new Set([
  'executable',
  'script',
  'binary',
  'unknown-type',
]);
