import { describe, expect, it } from 'vitest';
import { RunEnvironmentError } from './errors.js';
import { SYSTEM_PATH } from './find-executable.js';
import { assertAllowedVariable, buildRunEnvironment } from './run-environment.js';

describe('assertAllowedVariable', () => {
  it.each([
    'GLIBC_TUNABLES',
    'LD_PRELOAD',
    'BASH_ENV',
    'ENV',
    'ZDOTDIR',
    'PROMPT_COMMAND',
    'IFS',
    'PYTHONSTARTUP',
    'PYTHONHOME',
    'PERL5LIB',
    'PERL5OPT',
    'RUBYOPT',
    'NODE_OPTIONS',
    'LUA_INIT',
    'LUA_INIT_5_4',
    'GIT_EXEC_PATH',
    'GIT_CONFIG',
    'GIT_CONFIG_GLOBAL',
    'GIT_CONFIG_COUNT',
    'GIT_CONFIG_KEY_0',
    'GIT_CONFIG_VALUE_0',
    'GIT_CONFIG_PARAMETERS',
    'GIT_ASKPASS',
    'glibc_tunables',
  ])('refuses %s in every mode', (name) => {
    expect(() => assertAllowedVariable(name, 'x')).toThrow(RunEnvironmentError);
    expect(() => assertAllowedVariable(name, 'x')).toThrow(
      new RegExp(`"${name}": it changes how programs load or start`),
    );
  });

  it.each([
    'PATH',
    'PYTHONPATH',
    'PYTHONUSERBASE',
    'PYTHONWARNINGS',
    'CLASSPATH',
    'GEM_PATH',
    'PAGER',
    'GIT_PAGER',
    'EDITOR',
  ])('accepts %s without command lists and refuses it with them', (name) => {
    expect(() => assertAllowedVariable(name, '/workspace/work')).not.toThrow();
    expect(() => assertAllowedVariable(name, '/workspace/work', { restricted: true })).toThrow(
      /command restrictions are enabled/,
    );
  });

  it('accepts ordinary names and refuses malformed ones and NUL bytes', () => {
    expect(() => assertAllowedVariable('GREETING', 'hi', { restricted: true })).not.toThrow();
    expect(() => assertAllowedVariable('1X', 'x')).toThrow(/names must match/);
    expect(() => assertAllowedVariable('X', 'a\0b')).toThrow(/NUL/);
  });
});

describe('buildRunEnvironment', () => {
  const input = {
    folders: { workspace: '/w', skills: '/w/skills', work: '/w/work', output: '/w/out', run: '/w/runs/r' },
    home: '/w/work/.home',
    skill: { name: 'probe', guestPath: '/w/skills/probe', hasVirtualEnv: true },
    allowedHost: { PATH: '/opt/host/bin' },
    caller: {},
  };

  it('leads PATH with the skill folders, then the host PATH when allowed', () => {
    expect(buildRunEnvironment(input).PATH).toBe('/w/skills/probe/.venv/bin:/w/skills/probe/bin:/opt/host/bin');
  });

  it('fixes PATH to the system folders with command lists, and refuses one from the caller', () => {
    expect(buildRunEnvironment({ ...input, restricted: true }).PATH).toBe(SYSTEM_PATH);
    expect(() => buildRunEnvironment({ ...input, restricted: true, caller: { PATH: '/w/work/bin' } })).toThrow(
      /"PATH"/,
    );
  });
});
