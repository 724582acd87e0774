import type { ScanFindingKind, SkillScanReport } from './scan-finding.js';

const kindLabels: Record<ScanFindingKind, string> = {
  executable: 'executable',
  script: 'script',
  binary: 'binary',
  'hidden-file': 'hidden',
  link: 'link',
  'special-file': 'special file',
  'unknown-type': 'unknown type',
  'large-file': 'large file',
  'allowed-tools': 'allowed-tools',
  network: 'network',
  shell: 'shell',
  'encoded-blob': 'encoded blob',
  'invisible-unicode': 'invisible text',
  'bidi-unicode': 'bidi text',
};

/** The scan as plain lines for a terminal or a log: one block per skill, one line per finding. */
export function formatScanReports(reports: readonly SkillScanReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    const count = report.findings.length;
    lines.push(
      `${report.skill}: ${report.files} file${report.files === 1 ? '' : 's'}, ${report.bytes} bytes, ${count === 0 ? 'nothing to review' : `${count} finding${count === 1 ? '' : 's'} to review`}`,
    );
    for (const finding of report.findings)
      lines.push(
        `  ${kindLabels[finding.kind].padEnd(14)} ${finding.path}${finding.line === undefined ? '' : `:${finding.line}`}  ${finding.detail}`,
      );
  }
  return `${lines.join('\n')}\n`;
}
