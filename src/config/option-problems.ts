import { type ConfigErrorClass, type ConfigProblem, SkillboxConfigError } from './config-error.js';

/**
 * Collects option problems found by hand and throws them together as one SkillboxConfigError.
 * Used by the few checks that cannot be zod schemas: the ones in modules whose entry point loads no
 * third-party code (`skillbox/disclosure`, the database stores), where importing zod would add some
 * ninety modules to every import, and checks that look at the machine (a folder exists, a program is
 * installed) after the schema has passed.
 */
export class OptionProblems {
  readonly #component: string;
  readonly #errorClass: ConfigErrorClass;
  readonly #problems: ConfigProblem[] = [];

  constructor(component: string, errorClass: ConfigErrorClass = SkillboxConfigError) {
    this.#component = component;
    this.#errorClass = errorClass;
  }

  /** Records that `option` is wrong; `problem` follows the option name (`must be ...`). */
  add(option: string, problem: string): void {
    this.#problems.push({ option, problem });
  }

  /** Throws every recorded problem at once; returns when there are none. */
  throwIfAny(): void {
    if (this.#problems.length > 0) throw new this.#errorClass(this.#component, this.#problems);
  }
}

/** Throws a SkillboxConfigError for a single option. */
export function throwConfigError(
  component: string,
  option: string,
  problem: string,
  options?: { cause?: unknown },
): never {
  throw new SkillboxConfigError(component, [{ option, problem }], options);
}
