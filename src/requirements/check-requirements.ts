import { type ConfigProblem, SkillboxConfigError } from '../config/config-error.js';
import { readSkillImage } from '../format/skill-image.js';
import type { Skill, SkillContext, SkillRepository } from '../repository/types.js';
import { SYSTEM_PATH } from '../runtime/find-executable.js';
import type { WorkspaceRuntime } from '../runtime/runtime-types.js';
import { runtimeProbe } from './runtime-probe.js';
import { readSkillRequirements, type SkillRequirements } from './skill-requirements.js';

/** Whether a skill's requirements are met where its commands run, and what is missing if not. */
export interface RequirementCheck {
  met: boolean;
  /** One line per missing thing, for the model and for people: `program "ffmpeg"`, `network access`, ... */
  missing: string[];
  /** The same, short: `ffmpeg`, `API_KEY`, `network`, `OS darwin`, `python3|python` (for a catalog mark). */
  missingNames: string[];
}

/** Where commands run: the runtime, the environment every command gets, and whether it has network. */
export interface RequirementCheckerOptions {
  runtime: WorkspaceRuntime;
  /**
   * The host variables passed to every command (the execution tools' `allowHostEnv`). Default `{}`,
   * as the execution tools pass none unless told.
   */
  environment?: Readonly<Record<string, string>>;
  /** Commands get network access (the execution tools' `network`). Default false, as theirs. */
  network?: boolean;
  /** Command allow/deny lists are set: PATH is then the fixed system PATH and a skill's bin/ is not on it. */
  restricted?: boolean;
}

/** Checks skills' requirements against one place where commands run. */
export interface RequirementChecker {
  /** Checks declared requirements; `bundled` lists the programs the skill ships in its `bin/` folder. */
  check(requirements: SkillRequirements | undefined, bundled?: readonly string[]): Promise<RequirementCheck>;
  /** Reads and checks one skill of `repository`. */
  checkSkill(skill: Skill, repository?: SkillRepository, context?: SkillContext): Promise<RequirementCheck>;
}

const met: RequirementCheck = { met: true, missing: [], missingNames: [] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The options with their defaults, or a SkillboxConfigError naming each wrong one (not a TypeError from deep inside). */
function checkedOptions(
  options: RequirementCheckerOptions,
): RequirementCheckerOptions & Required<Pick<RequirementCheckerOptions, 'environment' | 'network'>> {
  if (!isRecord(options))
    throw new SkillboxConfigError('createRequirementChecker', [
      { option: 'options', problem: 'must be an object such as { runtime }' },
    ]);
  const problems: ConfigProblem[] = [];
  const runtime: unknown = options.runtime;
  if (!isRecord(runtime) || typeof runtime.run !== 'function' || typeof runtime.kind !== 'string')
    problems.push({
      option: 'runtime',
      problem:
        'must be a WorkspaceRuntime (createRuntime(), as the execution tools get); the checker runs its probes there',
    });
  const environment: unknown = options.environment ?? {};
  if (!isRecord(environment) || Object.values(environment).some((value) => typeof value !== 'string'))
    problems.push({
      option: 'environment',
      problem: 'must map variable names to strings (the host variables passed to commands: allowHostEnv)',
    });
  const network: unknown = options.network ?? false;
  if (typeof network !== 'boolean') problems.push({ option: 'network', problem: 'must be true or false' });
  if (options.restricted !== undefined && typeof options.restricted !== 'boolean')
    problems.push({ option: 'restricted', problem: 'must be true or false' });
  if (problems.length > 0) throw new SkillboxConfigError('createRequirementChecker', problems);
  return { ...options, environment: environment as Record<string, string>, network: network as boolean };
}

/**
 * A checker for one runtime: programs and the OS are probed inside the runtime (cached per runtime,
 * see runtime-probe.ts); variables and network are known from the options, because the runtime
 * gives commands exactly that environment and that network.
 */
export function createRequirementChecker(given: RequirementCheckerOptions): RequirementChecker {
  const options = checkedOptions(given);
  const path = options.restricted === true ? SYSTEM_PATH : (options.environment.PATH ?? SYSTEM_PATH);
  const checkIn = async (
    image: string | undefined,
    requirements: SkillRequirements | undefined,
    bundled: readonly string[] = [],
  ): Promise<RequirementCheck> => {
    const probe = runtimeProbe(options.runtime, path, image);
    const where = `the ${options.runtime.kind} runtime${image === undefined ? '' : ` (image ${image})`}`;
    // A skill's image is checked first: if commands cannot run there, nothing else can be met.
    const refusal = await probe.imageRefusal();
    if (refusal !== undefined)
      return {
        met: false,
        missing: [`image "${image}" (${refusal})`],
        missingNames: [`image ${image} (${refusal.includes('does not allow') ? 'not allowed' : 'cannot run'})`],
      };
    if (requirements === undefined) return met;
    const missing: string[] = [];
    const missingNames: string[] = [];
    if (requirements.os.length > 0) {
      const os = await probe.os();
      if (!requirements.os.includes(os)) {
        missing.push(`OS ${requirements.os.join(' or ')} (${where} runs ${os})`);
        missingNames.push(`OS ${requirements.os.join('|')}`);
      }
    }
    const onBin = options.restricted === true ? new Set<string>() : new Set(bundled);
    const wanted = [...requirements.programs, ...requirements.anyPrograms].filter((name) => !onBin.has(name));
    const found = wanted.length === 0 ? new Set<string>() : await probe.findPrograms(wanted);
    const present = (name: string) => onBin.has(name) || found.has(name);
    for (const name of requirements.programs) {
      if (present(name)) continue;
      missing.push(`program "${name}" (not on PATH in ${where})`);
      missingNames.push(name);
    }
    if (requirements.anyPrograms.length > 0 && !requirements.anyPrograms.some(present)) {
      missing.push(
        `one of the programs ${requirements.anyPrograms.map((name) => `"${name}"`).join(', ')} (none on PATH in ${where})`,
      );
      missingNames.push(requirements.anyPrograms.join('|'));
    }
    for (const name of requirements.env) {
      if (options.environment[name] !== undefined && options.environment[name] !== '') continue;
      missing.push(`environment variable ${name} (not passed to commands: allowHostEnv)`);
      missingNames.push(name);
    }
    if (requirements.network && !options.network) {
      missing.push('network access (commands run without network: the network option)');
      missingNames.push('network');
    }
    return { met: missing.length === 0, missing, missingNames };
  };
  return {
    check: (requirements, bundled) => checkIn(undefined, requirements, bundled),
    async checkSkill(skill, repository, context) {
      const { requirements } = readSkillRequirements(skill.metadata);
      // Checked in the image the skill's commands will run in (metadata.skillbox-image), when it names one.
      const { image } = readSkillImage(skill);
      if (requirements === undefined) return image === undefined ? met : checkIn(image, undefined);
      let bundled: string[] = [];
      if (repository !== undefined && requirements.programs.length + requirements.anyPrograms.length > 0) {
        const files = await repository.listFiles(skill.name, context);
        bundled = files.filter((file) => /^bin\/[^/]+$/.test(file)).map((file) => file.slice(4));
      }
      return checkIn(image, requirements, bundled);
    },
  };
}
