/** The result of parsing one SKILL.md leniently (the runtime view). */
export interface ParsedSkill {
  /** Frontmatter `name` (trimmed) when it is a non-empty string, else the folder name given to the parser. */
  name: string;
  /** Frontmatter `description`, trimmed; never empty (an empty one is a SkillParseError). */
  description: string;
  /** The Markdown after the frontmatter, line ends normalised to `\n`. */
  body: string;
  /** Items of the body's `Tools:` section, case kept, in order. */
  tools: string[];
  /** `allowed-tools`, from a space- or comma-separated string or a YAML list. */
  allowedTools: string[];
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  /** The whole frontmatter mapping as the YAML library produced it. */
  frontmatter: Record<string, unknown>;
  /** 1-based line of the body's first line in the original file. */
  bodyStartLine: number;
  /** Human-readable warnings (rule broken but loaded anyway, colon fallback used, ...). */
  warnings: string[];
}

/** Options of `parseSkillMarkdown`: the file name errors name and the folder name `name` is compared with. */
export interface ParseSkillOptions {
  /** Path of the file, used in error messages. */
  file?: string;
  /** Name of the skill folder: the fallback name, and what `name` is compared with. */
  folderName?: string;
}
