import { parseSkillMarkdown } from '../../format/parse-skill.js';
import { imageFormatOf, notInertReason } from './inert-files.js';
import { interpreterCallsIn } from './interpreter-calls.js';
import { codeLanguageOf } from './looks-like-code.js';
import type { ScanFinding, SkillScanReport } from './scan-finding.js';
import { scanEncodedBlobs, scanProse, scanScriptText } from './scan-text.js';
import { extensionOf, npmScriptNames, runnerOfName, shebangInterpreter } from './script-kinds.js';

/** One file as the scan sees it; links and special files come from a folder scan only (a fetched skill has none). */
export type ScannedEntry =
  | {
      readonly kind: 'file';
      readonly path: string;
      readonly bytes: Uint8Array;
      readonly executable: boolean;
      readonly size?: number;
    }
  | { readonly kind: 'link'; readonly path: string; readonly target: string }
  | { readonly kind: 'special'; readonly path: string; readonly what: string };

/** Files over this size are listed as large (default 1 MiB): a skill is text, and a big file deserves a look. */
export const defaultLargeFileBytes = 1024 * 1024;

/** The kind of a binary by its first bytes, or undefined when the bytes look like text. */
function binaryKind(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46) return 'ELF executable';
  if (bytes[0] === 0x4d && bytes[1] === 0x5a) return 'Windows (PE) executable';
  const magic = bytes.length >= 4 ? Buffer.from(bytes.subarray(0, 4)).readUInt32BE(0) : 0;
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(magic)) return 'Mach-O executable';
  if (bytes[0] === 0x00 && bytes[1] === 0x61 && bytes[2] === 0x73 && bytes[3] === 0x6d) return 'WebAssembly module';
  const head = bytes.subarray(0, 8000);
  return head.includes(0) ? 'binary data' : undefined;
}

/** Where the text checks look for lines that run a bundled file: SKILL.md and the skill's prose. */
function mayTellToRun(path: string): boolean {
  const extension = extensionOf(path);
  return path === 'SKILL.md' || extension === 'md' || extension === 'markdown' || extension === 'txt';
}

/** Each file some line of the skill's prose runs through an interpreter, with the first such line. */
function filesRunByProse(entries: readonly ScannedEntry[]): Map<string, string> {
  const files = new Set(entries.flatMap((entry) => (entry.kind === 'file' ? [entry.path] : [])));
  const runBy = new Map<string, string>();
  for (const entry of entries) {
    if (entry.kind !== 'file' || !mayTellToRun(entry.path)) continue;
    for (const call of interpreterCallsIn(Buffer.from(entry.bytes).toString('utf8'), files))
      if (!runBy.has(call.path) && call.path !== entry.path)
        runBy.set(call.path, `run through ${call.interpreter} by ${entry.path} line ${call.line}`);
  }
  return runBy;
}

/**
 * What runs a text file: its `#!` line, its name (extension or whole name), npm scripts in a
 * `package.json`, or code in a file whose name does not say so (Python saved as `notes.txt`).
 */
function scriptOf(path: string, text: string): { detail: string; named: boolean } | undefined {
  const interpreter = shebangInterpreter(text) ?? runnerOfName(path);
  if (interpreter !== undefined) return { detail: `${interpreter} script`, named: true };
  if (path === 'package.json' || path.endsWith('/package.json')) {
    const scripts = npmScriptNames(text);
    if (scripts.length > 0) return { detail: `npm scripts (${scripts.slice(0, 8).join(', ')})`, named: true };
  }
  const extension = extensionOf(path);
  if (extension === 'md' || extension === 'markdown') return undefined;
  const language = codeLanguageOf(text);
  if (language === undefined) return undefined;
  return {
    detail: `${language} code in ${extension === '' ? 'a file without an extension' : `a .${extension} file`}`,
    named: false,
  };
}

/**
 * Everything a reviewer must see before a skill runs: what can execute (scripts with their
 * interpreters, known by `#!`, by one of many extensions and build-file names, by code under a
 * prose name, or by a line of the skill's prose that runs the file through an interpreter;
 * executables; binaries), files of a type not known to be inert, hidden files, links, special and
 * large files, the tools SKILL.md asks to be allowed, network and process use, encoded blobs, and
 * invisible or bidirectional Unicode in any text file.
 */
export function scanSkill(
  skill: string,
  entries: readonly ScannedEntry[],
  options: { readonly largeFileBytes?: number } = {},
): SkillScanReport {
  const largeFileBytes = options.largeFileBytes ?? defaultLargeFileBytes;
  const findings: ScanFinding[] = [];
  const runByProse = filesRunByProse(entries);
  let bytes = 0;
  let files = 0;
  for (const entry of entries) {
    const { path } = entry;
    if (path.split('/').some((segment) => segment.startsWith('.')))
      findings.push({ kind: 'hidden-file', path, detail: 'a hidden file or folder' });
    if (entry.kind === 'link') {
      findings.push({ kind: 'link', path, detail: `a link to ${entry.target}` });
      continue;
    }
    if (entry.kind === 'special') {
      findings.push({ kind: 'special-file', path, detail: entry.what });
      continue;
    }
    files += 1;
    const size = entry.size ?? entry.bytes.length;
    bytes += size;
    if (size > largeFileBytes) findings.push({ kind: 'large-file', path, detail: `${size} bytes` });
    const image = imageFormatOf(entry.bytes);
    const binary = image === undefined ? binaryKind(entry.bytes) : undefined;
    const text = image === undefined && binary === undefined ? Buffer.from(entry.bytes).toString('utf8') : undefined;
    let runnable = false;
    if (binary !== undefined) {
      findings.push({ kind: 'binary', path, detail: binary });
      runnable = true;
    }
    const script = text === undefined ? undefined : scriptOf(path, text);
    const runBy = runByProse.get(path);
    if (script !== undefined) findings.push({ kind: 'script', path, detail: script.detail });
    else if (runBy !== undefined) findings.push({ kind: 'script', path, detail: runBy });
    if (script !== undefined || runBy !== undefined) runnable = true;
    if (text !== undefined) findings.push(...scanScriptText(path, text, { urls: script?.named === true }));
    if (entry.executable) {
      findings.push({
        kind: 'executable',
        path,
        detail:
          binary !== undefined
            ? `executable ${binary}`
            : script === undefined
              ? 'executable bit set'
              : `executable (${script.detail.replace(/ script$/, '')})`,
      });
      runnable = true;
    }
    if (text !== undefined) {
      findings.push(...scanProse(path, text));
      findings.push(...scanEncodedBlobs(path, text));
    }
    if (!runnable) {
      const reason = notInertReason(path, entry.bytes, text);
      if (reason !== undefined) findings.push({ kind: 'unknown-type', path, detail: reason });
    }
    if (path === 'SKILL.md') {
      try {
        const parsed = parseSkillMarkdown(entry.bytes, { file: 'SKILL.md' });
        if (parsed.allowedTools.length > 0)
          findings.push({ kind: 'allowed-tools', path, detail: parsed.allowedTools.join(' ') });
      } catch {
        // An unparsable SKILL.md is refused by the installer with the parser's own message.
      }
    }
  }
  return { skill, files, bytes, findings };
}
