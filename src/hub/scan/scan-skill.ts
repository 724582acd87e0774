import { parseSkillMarkdown } from '../../format/parse-skill.js';
import type { ScanFinding, SkillScanReport } from './scan-finding.js';
import { scanEncodedBlobs, scanProse, scanScriptText } from './scan-text.js';

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

const scriptInterpreters: Record<string, string> = {
  sh: 'sh',
  bash: 'bash',
  zsh: 'zsh',
  py: 'python',
  js: 'node',
  mjs: 'node',
  cjs: 'node',
  ts: 'node (TypeScript)',
  rb: 'ruby',
  pl: 'perl',
  php: 'php',
  ps1: 'powershell',
  bat: 'cmd',
  cmd: 'cmd',
  lua: 'lua',
};

const proseExtensions = new Set(['md', 'markdown', 'mdx', 'txt', 'rst', 'html', 'htm']);

function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

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

function shebangInterpreter(text: string): string | undefined {
  const match = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
  if (match === null) return undefined;
  const program = match[1] as string;
  const base = program.slice(program.lastIndexOf('/') + 1);
  return base === 'env' && match[2] !== undefined ? match[2] : base;
}

/**
 * Everything a reviewer must see before a skill runs: what can execute (scripts with their
 * interpreters, executables, binaries), hidden files, links, special and large files, the tools
 * SKILL.md asks to be allowed, network and process use in scripts, encoded blobs, and invisible or
 * bidirectional Unicode in SKILL.md and docs.
 */
export function scanSkill(
  skill: string,
  entries: readonly ScannedEntry[],
  options: { readonly largeFileBytes?: number } = {},
): SkillScanReport {
  const largeFileBytes = options.largeFileBytes ?? defaultLargeFileBytes;
  const findings: ScanFinding[] = [];
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
    const binary = binaryKind(entry.bytes);
    if (binary !== undefined) {
      findings.push({ kind: 'binary', path, detail: binary });
      if (entry.executable) findings.push({ kind: 'executable', path, detail: `executable ${binary}` });
      continue;
    }
    const text = Buffer.from(entry.bytes).toString('utf8');
    const extension = extensionOf(path);
    const interpreter = shebangInterpreter(text) ?? scriptInterpreters[extension];
    if (interpreter !== undefined) {
      findings.push({ kind: 'script', path, detail: `${interpreter} script` });
      findings.push(...scanScriptText(path, text));
    }
    if (entry.executable)
      findings.push({
        kind: 'executable',
        path,
        detail: interpreter === undefined ? 'executable bit set' : `executable (${interpreter})`,
      });
    if (path === 'SKILL.md' || proseExtensions.has(extension)) findings.push(...scanProse(path, text));
    findings.push(...scanEncodedBlobs(path, text));
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
