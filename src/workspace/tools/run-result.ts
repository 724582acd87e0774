import type { RuntimeResult } from '../../runtime/runtime-types.js';
import { type ArtifactStore, artifactReference } from '../outputs/artifact-store.js';
import { detectMimeType, isTextMimeType, sniffBytes } from '../outputs/mime-type.js';
import type { CollectedOutputs, OutputLimitHit } from '../outputs/output-collector.js';
import { escapeInvisible, hasInvisible } from '../outputs/visible-text.js';
import type { QuotaLimit } from '../workspace-quota.js';

/** One collected file as the model sees it. */
export interface OutputFile {
  /** Workspace-relative path, links resolved (`out/fib.txt`). */
  name: string;
  /** The text, when the file is text and fits the inline caps; never set for binary files. */
  content?: string;
  mime_type: string;
  size_bytes: number;
  /** True when `content` (or the bytes read) stops before the end of the file. */
  truncated: boolean;
  /** `workspace://<name>`: a stable handle to pass to other tools. */
  ref: string;
}

export interface ArtifactFile {
  name: string;
  version: number;
  /** `artifact://<name>@<version>` */
  ref: string;
}

/** The result of `skill_run` and `workspace_exec`, with the snake_case field names docs/workspaces.md lists. */
export interface SkillRunResult {
  stdout: string;
  stderr: string;
  exit_code: number;
  timed_out: boolean;
  duration_ms: number;
  output_files: OutputFile[];
  /**
   * The smallest-named small text output: what a model usually wants to read first. It names the
   * file and carries no `content`: the text is in that file's `output_files` entry, once (a copy
   * here doubled every small result the model reads).
   */
  primary_output?: Omit<OutputFile, 'content'>;
  artifact_files?: ArtifactFile[];
  warnings: string[];
  /**
   * Set, to the limits reached, when one left something out or stopped the command; absent when
   * none did. The per-file inline cap shows only as the file's `truncated`.
   */
  limits_hit?: LimitHit[];
}

/**
 * `output_files`: more files matched than are collected; `output_bytes`: a file or the call's
 * total read was cut; `inline_bytes`: the text inlined in all was cut; `stdout` / `stderr`: the
 * stream was cut; `disk` / `files`: the workspace holds more than its quota (the command was
 * stopped when it grew past it while running); `processes` / `memory` / `cpu`: the run reached a
 * resource cap of the runtime (a warning says which).
 */
export type LimitHit =
  | OutputLimitHit
  | 'inline_bytes'
  | 'stdout'
  | 'stderr'
  | QuotaLimit
  | 'processes'
  | 'memory'
  | 'cpu';

/** Caps on what a result carries inline; every one is documented in docs/workspaces.md. */
export interface InlineLimits {
  /** Bytes of text inlined per output file. */
  fileBytes: number;
  /** Bytes of text inlined over all output files of one result. */
  totalBytes: number;
  /** Largest file that can be `primary_output`. */
  primaryBytes: number;
}

export const defaultInlineLimits: InlineLimits = {
  fileBytes: 32 * 1024,
  totalBytes: 256 * 1024,
  primaryBytes: 32 * 1024,
};

/** Worded as other Agent Skills runtimes word it, kept word for word so prompts written for them still match. */
export const emptyOutputsDroppedWarning =
  'empty output_files omitted because command failed; shell redirections can create empty files before execution fails';

export interface ShapeResultInput {
  run: RuntimeResult;
  collected: CollectedOutputs;
  inline: InlineLimits;
  omitInlineContent: boolean;
  saveAsArtifacts: boolean;
  /** Prepended to every saved artifact's name (already checked: a label, not a path). */
  artifactPrefix?: string;
  /** The field that asked for the save, named in warnings; default `save_as_artifacts`. */
  saveField?: 'save_as_artifacts' | 'outputs.save';
  artifacts?: { store: ArtifactStore; scope: string };
  /** Warnings gathered before the run (staging, inputs, capped timeout). */
  warnings: string[];
  /** Limits reached outside the output caps (the workspace quota). */
  limitsHit?: readonly LimitHit[];
}

/** Turns a runtime result and collected files into the tool result. */
export async function shapeRunResult(input: ShapeResultInput): Promise<SkillRunResult> {
  const { run, collected } = input;
  const warnings = [...input.warnings, ...run.warnings, ...collected.warnings];
  const failed = run.exitCode !== 0 || run.timedOut;
  let files = collected.files;
  if (failed && files.some((file) => file.sizeBytes === 0)) {
    files = files.filter((file) => file.sizeBytes > 0);
    warnings.push(emptyOutputsDroppedWarning);
  }

  let inlineBudget = input.inline.totalBytes;
  let inlineCut = false;
  const outputFiles: OutputFile[] = files.map((file) => {
    const mimeType = detectMimeType(file.name, file.data.subarray(0, sniffBytes));
    const name = escapeInvisible(file.name);
    const entry: OutputFile = {
      name,
      mime_type: mimeType,
      size_bytes: file.sizeBytes,
      truncated: file.truncated,
      ref: `workspace://${name}`,
    };
    if (!isTextMimeType(mimeType)) return entry;
    const allowed = Math.min(input.inline.fileBytes, inlineBudget);
    if (allowed <= 0 && file.data.length > 0) {
      inlineCut = true;
      return entry;
    }
    const end = utf8Boundary(file.data, Math.min(file.data.length, allowed));
    // Cut by what the earlier files used of the total, not by the per-file cap alone.
    if (end < file.data.length && inlineBudget < input.inline.fileBytes) inlineCut = true;
    entry.content = file.data.subarray(0, end).toString('utf8');
    entry.truncated = end < file.sizeBytes;
    inlineBudget -= end;
    return entry;
  });
  if (inlineCut)
    warnings.push(
      `inline content stopped at ${input.inline.totalBytes} bytes in all; read the remaining files by their ref`,
    );

  const primary = outputFiles
    .filter(
      (file) =>
        file.content !== undefined &&
        file.content.trim() !== '' &&
        !file.truncated &&
        file.size_bytes <= input.inline.primaryBytes,
    )
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))[0];

  const result: SkillRunResult = {
    stdout: run.stdout,
    stderr: run.stderr,
    exit_code: run.exitCode,
    timed_out: run.timedOut,
    duration_ms: Math.round(run.durationMs),
    output_files: outputFiles,
    warnings,
  };
  if (primary !== undefined) {
    const { content: _content, ...pointer } = primary;
    result.primary_output = pointer;
  }

  if (input.saveAsArtifacts && files.length > 0) {
    if (input.artifacts === undefined) {
      warnings.push(
        `${input.saveField ?? 'save_as_artifacts'} requested but no artifact store is configured; outputs are not persisted`,
      );
    } else {
      result.artifact_files = [];
      for (const [index, file] of files.entries()) {
        if (file.truncated) {
          warnings.push(
            `"${file.name}" was not saved as an artifact: only its first ${file.data.length} of ${file.sizeBytes} bytes were read`,
          );
          continue;
        }
        const saved = await input.artifacts.store.save(
          { scope: input.artifacts.scope, name: `${input.artifactPrefix ?? ''}${file.name}` },
          file.data,
          (outputFiles[index] as OutputFile).mime_type,
        );
        result.artifact_files.push({
          name: escapeInvisible(saved.name),
          version: saved.version,
          ref: escapeInvisible(artifactReference(saved.name, saved.version)),
        });
      }
    }
  }

  if (input.omitInlineContent) {
    for (const file of result.output_files) delete file.content;
  }
  if (files.some((file) => hasInvisible(file.name))) {
    warnings.push(
      'output file names with control or invisible characters are shown escaped (\\uXXXX); such a ref cannot be passed to other tools, rename the file to use it',
    );
  }
  // Warnings quote names the process chose (links skipped, files not saved).
  result.warnings = warnings.map(escapeInvisible);
  const limitsHit = new Set<LimitHit>([...collected.limitsHit, ...(input.limitsHit ?? [])]);
  if (inlineCut) limitsHit.add('inline_bytes');
  if (run.stdoutTruncated) limitsHit.add('stdout');
  if (run.stderrTruncated) limitsHit.add('stderr');
  for (const cap of run.limitsHit ?? []) limitsHit.add(cap);
  if (limitsHit.size > 0) result.limits_hit = [...limitsHit];
  return result;
}

/** The largest offset <= `end` that does not cut a UTF-8 character. */
function utf8Boundary(bytes: Uint8Array, end: number): number {
  if (end >= bytes.length) return bytes.length;
  let cut = end;
  // Step back over continuation bytes to the lead byte of the character that `end` splits.
  while (cut > 0 && cut > end - 4 && ((bytes[cut] as number) & 0xc0) === 0x80) cut -= 1;
  return cut;
}
