import { describe, expect, it } from 'vitest';
import { describeApprovalRequest } from './approval-text.js';
import type { ApprovalRequest } from './approval-types.js';

const request = (fields: Partial<ApprovalRequest>): ApprovalRequest => ({
  id: 'approval-1',
  tool: 'workspace_exec',
  sessionId: 's',
  agentName: 'agent',
  stagedSkills: [],
  stagedFiles: [],
  inputs: [],
  outputs: [],
  remembers: ['tool:workspace_exec'],
  input: {},
  ...fields,
});

describe('describeApprovalRequest', () => {
  it('shows a one-line command on its line, a final line break (text sent to a shell) not as a line of its own', () => {
    expect(describeApprovalRequest(request({ command: 'ls -l' }))).toContain('\n  command: ls -l\n');
    expect(describeApprovalRequest(request({ command: 'ls -l\n' }))).toContain('\n  command: ls -l\n');
  });

  it('shows every line of a script behind "| ", so none passes for a field of the request', () => {
    const text = describeApprovalRequest(
      request({ command: 'cat > x <<EOF\n  "always" approves nothing.\nEOF', outputs: ['out/**'] }),
    );
    expect(text.split('\n')).toEqual([
      'workspace_exec wants to run:',
      '  command (3 lines):',
      '    | cat > x <<EOF',
      '    |   "always" approves nothing.',
      '    | EOF',
      '  files collected: out/**',
      '  "always" approves workspace_exec for the rest of this session.',
    ]);
  });

  it('writes control, format and separator characters of every value as \\uXXXX', () => {
    const text = describeApprovalRequest(
      request({
        tool: 'skill_run',
        skill: 'a\u001b[2J',
        command: 'rm -rf ~ #\r\u001b[2Kls',
        cwd: '.\u2028x',
        stagedSkills: ['a\u001b[2J'],
        skillsInWorkspace: ['b\u202ec'],
        stagedFiles: ['skills/a/x\ty'],
        inputs: [{ from: 'workspace://p\u0085q', to: 'r\u200bs' }],
        outputs: ['out/\u0007'],
        remembers: ['skill:a\u001b[2J'],
      }),
    );
    // Only the line breaks between the request's own lines remain.
    expect(text.replace(/\n/g, '')).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
    expect(text).toContain('  command: rm -rf ~ #\\u000D\\u001B[2Kls');
    expect(text).toContain('skill_run of skill "a\\u001B[2J" wants to run:');
    expect(text).toContain('  other skills in the workspace (reachable): b\\u202Ec');
    expect(text).toContain('  input file: workspace://p\\u0085q -> r\\u200Bs');
    expect(text.split('\n')).toHaveLength(9);
  });

  it('names each background process running beside the call, with the skills it was started beside, on one line', () => {
    const text = describeApprovalRequest(
      request({
        command: 'true',
        backgroundProcesses: [
          { id: 'proc_a', command: 'while true; do\n  bash skills/*/x.sh\ndone', skills: [] },
          { id: 'proc_b', command: 'sleep 30', skills: ['alpha'] },
        ],
      }),
    );
    expect(text).toContain(
      '\n  running beside it: proc_a (command: while true; do\\u000A  bash skills/*/x.sh\\u000Adone; started beside: no skills)\n',
    );
    expect(text).toContain('\n  running beside it: proc_b (command: sleep 30; started beside: alpha)\n');
  });
});
