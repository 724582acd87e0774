/**
 * Caller-supplied context for visibility filters (who is asking). Repositories pass it through
 * untouched; only filters read it.
 */
export interface SkillContext {
  userId?: string;
  tenantId?: string;
  roles?: readonly string[];
  [key: string]: unknown;
}

/** What the model's catalog needs: a name and a description, plus where the skill lives. */
export interface SkillSummary {
  name: string;
  description: string;
  /** Absolute path of the skill folder for filesystem skills; undefined for skills defined in code. */
  path?: string;
  /** The root the skill was found under (absolute path or URL), when it came from a root. */
  root?: string;
  /**
   * `false` when the skill asks to be kept out of the model's view (frontmatter
   * `disable-model-invocation: true` or `metadata.internal: true`); absent otherwise. The
   * disclosure layer then leaves it out of the catalog and the model's tools, while caller-declared
   * loads still work (see docs/progressive-disclosure.md).
   */
  modelInvocable?: boolean;
}

/** A fully loaded skill. */
export interface Skill extends SkillSummary {
  /** SKILL.md body, frontmatter stripped. */
  body: string;
  /** Text files of the skill other than its SKILL.md, as sorted `/`-separated paths relative to the skill folder. */
  docs: string[];
  /** The body's `Tools:` section. */
  tools: string[];
  /** Frontmatter `allowed-tools`. */
  allowedTools: string[];
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  frontmatter: Record<string, unknown>;
  /** Lenient-loading warnings for this skill. */
  warnings: string[];
}

/** A SKILL.md that could not be loaded, with the reason. */
export interface SkippedSkill {
  path: string;
  reason: string;
}

/** A skill hidden by an earlier skill of the same name. */
export interface ShadowedSkill {
  name: string;
  path: string;
  /** Path (or id) of the skill that won. */
  winner: string;
}

/** What a repository found when it scanned its roots: skills, skipped folders, shadowed names, warnings. */
export interface RepositoryReport {
  skipped: SkippedSkill[];
  shadowed: ShadowedSkill[];
  /** Scan-level warnings (depth or entry bounds reached, unreadable folders, ...). */
  warnings: string[];
}

/**
 * Where skills come from. Every method that takes a name treats a hidden skill exactly like an
 * unknown one and throws SkillNotFoundError.
 */
export interface SkillRepository {
  /** Visible skills, sorted by name (a stable order, so catalogs are byte-identical). */
  list(context?: SkillContext): Promise<SkillSummary[]>;
  get(name: string, context?: SkillContext): Promise<Skill>;
  /** Every file of the skill (not only docs), sorted, relative `/`-separated paths, SKILL.md included. */
  listFiles(name: string, context?: SkillContext): Promise<string[]>;
  /** One file of the skill; refuses absolute paths, `..` and links that leave the skill folder. */
  readFile(name: string, relativePath: string, context?: SkillContext): Promise<Buffer>;
  /** Skipped, shadowed and scan warnings from the last scan. */
  report(): Promise<RepositoryReport>;
  /** Re-scan sources so added and removed skills are seen. */
  refresh(): Promise<void>;
  /**
   * Optional change counter: a number that only grows, and grows whenever `list()` may return
   * something else than before, for any context (it is bumped by `refresh()`, by a watch re-scan, and
   * when `list()` itself notices an edited SKILL.md). A caller that renders from the list, as the
   * per-step catalog does, re-lists only when it changed. Absent or `undefined`: the repository
   * cannot tell, and such callers list every time.
   */
  generation?(): number | undefined;
}
