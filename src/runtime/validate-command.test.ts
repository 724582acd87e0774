import { describe, expect, it } from 'vitest';
import type { RuntimeCommand } from './runtime-types.js';
import { maxRuntimeTimeoutMs, validateRuntimeCommand } from './validate-command.js';

// The one check of a command's fields, made above every runtime (the workspace layer calls it
// before run and start). It reads no file: a runtime checks where the folders lead when it starts.
const base: RuntimeCommand = {
  command: 'true',
  workspaceRoot: '/skillbox-no-such-workspace',
  cwd: '/skillbox-no-such-workspace/sub',
  env: { PATH: '/usr/bin' },
  timeoutMs: 1000,
  maxOutputBytes: 1024,
};
const refused = (field: string) => ({ code: 'RUNTIME_COMMAND_INVALID', field });
const check = (change: Partial<Record<keyof RuntimeCommand, unknown>>) => () =>
  validateRuntimeCommand({ ...base, ...change } as RuntimeCommand);

describe('validateRuntimeCommand', () => {
  it('passes a well-formed command without touching the disk (the folders need not exist)', () => {
    expect(check({})).not.toThrow();
    expect(check({ command: undefined, argv: ['printf', ''] })).not.toThrow();
    expect(check({ cwd: base.workspaceRoot, timeoutMs: maxRuntimeTimeoutMs, maxOutputBytes: 0 })).not.toThrow();
  });

  it('takes a run id of at most 512 characters without control characters, and retrySafe as a boolean', () => {
    expect(check({ runId: 'invocation-1/call-2', retrySafe: true })).not.toThrow();
    expect(check({ runId: '' })).toThrow(expect.objectContaining(refused('runId')));
    expect(check({ runId: 'x'.repeat(513) })).toThrow(expect.objectContaining(refused('runId')));
    expect(check({ runId: 'a\nb' })).toThrow(expect.objectContaining(refused('runId')));
    expect(check({ runId: 7 })).toThrow(expect.objectContaining(refused('runId')));
    expect(check({ retrySafe: 'yes' })).toThrow(expect.objectContaining(refused('retrySafe')));
  });

  it('wants exactly one of command and argv, neither empty nor holding NUL', () => {
    expect(check({ argv: ['true'] })).toThrow(expect.objectContaining(refused('command')));
    expect(check({ command: undefined })).toThrow(expect.objectContaining(refused('command')));
    expect(check({ command: '  ' })).toThrow(expect.objectContaining(refused('command')));
    expect(check({ command: 'echo a\0b' })).toThrow(expect.objectContaining(refused('command')));
    expect(check({ command: undefined, argv: [] })).toThrow(expect.objectContaining(refused('argv')));
    expect(check({ command: undefined, argv: [''] })).toThrow(expect.objectContaining(refused('argv')));
    expect(check({ command: undefined, argv: ['echo', 1] })).toThrow(expect.objectContaining(refused('argv')));
    expect(check({ command: undefined, argv: ['echo', 'a\0'] })).toThrow(expect.objectContaining(refused('argv[1]')));
  });

  it('refuses environment names a process cannot receive, and values that are not strings', () => {
    expect(check({ env: null })).toThrow(expect.objectContaining(refused('env')));
    expect(check({ env: { 'A=B': 'x' } })).toThrow(expect.objectContaining(refused('env.A=B')));
    expect(check({ env: { '': 'x' } })).toThrow(expect.objectContaining(refused('env.')));
    expect(check({ env: { A: 1 } })).toThrow(expect.objectContaining(refused('env.A')));
    expect(check({ env: { A: 'x\0y' } })).toThrow(expect.objectContaining(refused('env.A')));
  });

  it('holds the timeout within what a Node timer can wait, and the output cap to a count of bytes', () => {
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, maxRuntimeTimeoutMs + 1, 3_000_000_000])
      expect(check({ timeoutMs })).toThrow(expect.objectContaining(refused('timeoutMs')));
    for (const maxOutputBytes of [-1, 1.5, Number.NaN])
      expect(check({ maxOutputBytes })).toThrow(expect.objectContaining(refused('maxOutputBytes')));
    expect(check({ stdin: 5 })).toThrow(expect.objectContaining(refused('stdin')));
  });

  it('wants absolute folders, the cwd inside the workspace as written', () => {
    expect(check({ workspaceRoot: 'relative' })).toThrow(expect.objectContaining(refused('workspaceRoot')));
    expect(check({ cwd: 'sub' })).toThrow(expect.objectContaining(refused('cwd')));
    expect(check({ cwd: '/tmp' })).toThrow(expect.objectContaining(refused('cwd')));
    expect(check({ cwd: `${base.workspaceRoot}/../elsewhere` })).toThrow(expect.objectContaining(refused('cwd')));
    expect(check({ cwd: `${base.workspaceRoot}-sibling` })).toThrow(expect.objectContaining(refused('cwd')));
  });

  it('names the field and the value in its message', () => {
    expect(check({ timeoutMs: 0 })).toThrow(
      'invalid runtime command field "timeoutMs": must be a positive number of milliseconds, got 0',
    );
  });
});
