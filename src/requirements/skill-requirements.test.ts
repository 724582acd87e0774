import { describe, expect, it } from 'vitest';
import { describeRequirements, readSkillRequirements } from './skill-requirements.js';

describe('readSkillRequirements', () => {
  it('reads the requires mapping: lists as YAML lists or space/comma-separated strings', () => {
    const { requirements, warnings } = readSkillRequirements({
      requires: { bins: ['ffmpeg', 'jq'], anyBins: 'python3, python', env: 'API_KEY', os: ['linux'], network: true },
    });
    expect(warnings).toEqual([]);
    expect(requirements).toEqual({
      programs: ['ffmpeg', 'jq'],
      anyPrograms: ['python3', 'python'],
      env: ['API_KEY'],
      os: ['linux'],
      network: true,
    });
    expect(describeRequirements(requirements!)).toBe(
      'bins: ffmpeg jq; any of: python3 python; env: API_KEY; os: linux; network',
    );
  });

  it('reads the flat string keys of a specification-style metadata map', () => {
    const { requirements } = readSkillRequirements({ 'requires-bins': 'pandoc', 'requires-network': 'true' });
    expect(requirements).toEqual({ programs: ['pandoc'], anyPrograms: [], env: [], os: [], network: true });
  });

  it('leaves out names that could change a probe command, with a warning naming the field', () => {
    const { requirements, warnings } = readSkillRequirements({
      requires: { bins: ['ok-tool', '$(rm -rf ~)', 'a;b', '../bin/x'], env: ['GOOD', 'BAD-NAME'], network: 'yes' },
    });
    expect(requirements?.programs).toEqual(['ok-tool']);
    expect(requirements?.env).toEqual(['GOOD']);
    expect(requirements?.network).toBe(false);
    expect(warnings).toEqual([
      'metadata requires.bins: "$(rm -rf ~)" is not a valid name; ignored',
      'metadata requires.bins: "a;b" is not a valid name; ignored',
      'metadata requires.bins: "../bin/x" is not a valid name; ignored',
      'metadata requires.env: "BAD-NAME" is not a valid name; ignored',
      'metadata requires.network: must be true or false; got "yes"; ignored',
    ]);
  });

  it('has no requirements without metadata, or with other metadata only', () => {
    expect(readSkillRequirements(undefined).requirements).toBeUndefined();
    expect(readSkillRequirements({ author: 'me' }).requirements).toBeUndefined();
    expect(readSkillRequirements({ requires: 'ffmpeg' }).warnings).toEqual([
      'metadata requires: must be a mapping (bins, anyBins, env, os, network); ignored',
    ]);
  });
});
