import { describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import type { WorkspaceRuntime } from '../runtime/runtime-types.js';
import { createRequirementChecker, type RequirementCheckerOptions } from './check-requirements.js';
import { readSkillRequirements } from './skill-requirements.js';

function requirements(fields: Record<string, unknown>) {
  const read = readSkillRequirements({ requires: fields });
  if (read.requirements === undefined) throw new Error(`fixture did not parse: ${read.warnings.join('; ')}`);
  return read.requirements;
}

describe('createRequirementChecker options', () => {
  it('defaults environment and network to what the execution tools pass by default: nothing', async () => {
    const checker = createRequirementChecker({ runtime: new LocalRuntime() });
    const result = await checker.check(requirements({ bins: ['sh'], env: ['API_KEY'], network: true }));
    expect(result.missingNames).toEqual(['API_KEY', 'network']);
    expect(result.missing[0]).toBe('environment variable API_KEY (not passed to commands: allowHostEnv)');
  });

  it('names each wrong option instead of failing with a TypeError', () => {
    const wrong = () =>
      createRequirementChecker({
        runtime: {} as WorkspaceRuntime,
        environment: 'PATH=/bin' as never,
        network: 'yes' as never,
      });
    expect(wrong).toThrow(SkillboxConfigError);
    expect(wrong).toThrow(
      'createRequirementChecker: 3 invalid options:\n' +
        '  - "runtime" must be a WorkspaceRuntime (createRuntime(), as the execution tools get); the checker runs its probes there\n' +
        '  - "environment" must map variable names to strings (the host variables passed to commands: allowHostEnv)\n' +
        '  - "network" must be true or false',
    );
    expect(() => createRequirementChecker(undefined as unknown as RequirementCheckerOptions)).toThrow(
      'createRequirementChecker: option "options" must be an object such as { runtime }',
    );
  });
});
