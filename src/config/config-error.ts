import { SkillboxError } from '../errors.js';

/** One option that cannot work: where it is and what is wrong with it. */
export interface ConfigProblem {
  /** The option as a caller writes it: a dotted path with list positions, such as `limits.maxFileBytes` or `roots[1]`; `options` for the options object itself. */
  readonly option: string;
  /** What is wrong, phrased to follow the option name: `must be a positive integer; got 0`. */
  readonly problem: string;
}

/**
 * Options given to a factory or constructor that cannot work, found before anything was opened,
 * started or written. Every wrong option is listed at once, so one run shows the whole list instead
 * of one problem per attempt. `option` and `problem` repeat the first entry of `problems` for the
 * common case of a single mistake.
 */
export class SkillboxConfigError extends SkillboxError {
  /** The factory, constructor or method that refused its options, such as `createFsSkillRepository`. */
  readonly component: string;
  /** The first wrong option (see `problems` for all of them). */
  readonly option: string;
  /** What is wrong with the first wrong option. */
  readonly problem: string;
  /** Every wrong option, in the order the options were checked. */
  readonly problems: readonly ConfigProblem[];

  constructor(component: string, problems: readonly ConfigProblem[], options?: { cause?: unknown }) {
    const listed = problems.length > 0 ? problems : [{ option: 'options', problem: 'are invalid' }];
    const [first] = listed as [ConfigProblem, ...ConfigProblem[]];
    super(
      'CONFIG_INVALID',
      listed.length === 1
        ? `${component}: option "${first.option}" ${first.problem}`
        : `${component}: ${listed.length} invalid options:\n${listed.map((entry) => `  - "${entry.option}" ${entry.problem}`).join('\n')}`,
      options,
    );
    this.component = component;
    this.option = first.option;
    this.problem = first.problem;
    this.problems = listed;
  }
}

/** The constructor of SkillboxConfigError or of one of its deprecated subclasses. */
export type ConfigErrorClass = new (component: string, problems: readonly ConfigProblem[]) => SkillboxConfigError;
