import { describe, expect, it } from 'vitest';
import { WorkspacePathError } from './errors.js';
import { toWorkspaceRelative } from './workspace-paths.js';

const context = { hostRoot: '/tmp/base/ws_s_1', guestRoot: '/workspace', runDir: 'runs/run_1' };

describe('toWorkspaceRelative', () => {
  it.each([
    ['$OUTPUT_DIR/a.txt', '', 'out/a.txt'],
    ['${WORK_DIR}/inputs', '', 'work/inputs'],
    ['$WORKSPACE_DIR', 'skills/x', ''],
    ['$SKILLS_DIR/x/scripts', '', 'skills/x/scripts'],
    ['$RUN_DIR/log.txt', '', 'runs/run_1/log.txt'],
    ['workspace://out/r.json', '', 'out/r.json'],
    ['/workspace/work', 'skills/x', 'work'],
    ['/tmp/base/ws_s_1/out/x', '', 'out/x'],
    ['scripts', 'skills/x', 'skills/x/scripts'],
    ['../../out', 'skills/x', 'out'],
    ['out\\sub\\f.txt', '', 'out/sub/f.txt'],
    ['', 'skills/x', 'skills/x'],
  ])('%s from "%s" is %s', (input, base, expected) => {
    expect(toWorkspaceRelative(input, base, context)).toBe(expected);
  });

  it.each([
    ['../../..', 'skills/x'],
    ['/etc/passwd', ''],
    ['/workspacex/a', ''],
    ['$HOME/x', ''],
    ['a\0b', ''],
    ['$OUTPUT_DIR/../../x', ''],
  ])('refuses %s', (input, base) => {
    expect(() => toWorkspaceRelative(input, base, context)).toThrow(WorkspacePathError);
  });

  it('refuses $RUN_DIR outside a run', () => {
    expect(() => toWorkspaceRelative('$RUN_DIR/x', '', { hostRoot: '/h', guestRoot: '/h' })).toThrow(/RUN_DIR/);
  });
});
