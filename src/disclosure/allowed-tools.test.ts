import { describe, expect, it } from 'vitest';
import { enforceAllowedTools, grantedToolNames } from './allowed-tools.js';

const disclosureTools = ['skill_load', 'skill_read', 'skill_run', 'workspace_exec'];
const candidates = [...disclosureTools, 'get_current_weather', 'send_email'];

describe('allowed-tools enforcement', () => {
  it('narrows pool and execution tools to the union of the loaded skills that declare it', () => {
    const result = enforceAllowedTools({
      candidates,
      disclosureTools,
      loadedSkills: [
        { name: 'weather', allowedTools: ['get_current_weather'] },
        { name: 'notes', allowedTools: [] },
      ],
    });
    expect(result).toEqual({
      active: ['skill_load', 'skill_read', 'get_current_weather'],
      withheld: ['skill_run', 'workspace_exec', 'send_email'],
    });
  });

  it('changes nothing when no loaded skill declares it', () => {
    expect(
      enforceAllowedTools({ candidates, disclosureTools, loadedSkills: [{ name: 'a', allowedTools: [] }] }).active,
    ).toEqual(candidates);
  });

  it('reads Claude Code spellings: Bash(pattern) grants Bash, Bash maps to the execution tools, Read to workspace_read', () => {
    expect([...grantedToolNames(['Read', 'Bash(git:*)', ' '])]).toEqual([
      'Read',
      'workspace_read',
      'Bash',
      'skill_run',
      'workspace_exec',
      'workspace_write_stdin',
      'workspace_poll',
      'workspace_kill',
    ]);
    expect([...grantedToolNames(['Bash'], { Bash: ['workspace_exec'] })]).toEqual(['Bash', 'workspace_exec']);
    expect([...grantedToolNames(['Edit', 'MultiEdit', 'Write', 'Glob', 'Grep', 'LS'])]).toEqual([
      'Edit',
      'workspace_edit',
      'MultiEdit',
      'Write',
      'workspace_write',
      'Glob',
      'workspace_glob',
      'Grep',
      'workspace_grep',
      'LS',
      'workspace_list',
    ]);
  });
});
