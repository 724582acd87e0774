import { z } from 'zod';

// Small schema builders the components' option schemas share, so the same rule reads the same in
// every message ("must be a positive integer", not five phrasings of it).

/** An integer of at least 1. */
export function positiveInteger(): z.ZodType<number> {
  const error = 'must be a positive integer';
  return z.int({ error }).min(1, { error });
}

/** An integer of at least 0. */
export function nonNegativeInteger(): z.ZodType<number> {
  const error = 'must be a non-negative integer';
  return z.int({ error }).min(0, { error });
}

/** A string with something other than white space in it. */
export function nonEmptyString(error = 'must be a non-empty string'): z.ZodType<string> {
  return z.string({ error }).refine((value) => value.trim() !== '', { error });
}

/**
 * An option a release removed: any value is refused with the name to use instead, so an upgrade
 * that still passes it fails at construction rather than being silently ignored.
 */
export function removedOption(replacement: string): z.ZodType<undefined> {
  return z.undefined({ error: `was removed in 0.1; use ${replacement}` }).optional();
}

/** `true` or `false`. */
export function booleanOption(): z.ZodType<boolean> {
  return z.boolean({ error: 'must be true or false' });
}

/** One of the listed strings; the message lists them. */
export function oneOf<const Values extends readonly [string, ...string[]]>(values: Values): z.ZodType<Values[number]> {
  return z.enum(values, { error: `must be one of ${values.map((value) => JSON.stringify(value)).join(', ')}` });
}

/** A function; `shape` says in the message what it is called with, such as `(summary, context) => boolean`. */
export function functionOption(shape: string): z.ZodType<(...parameters: never[]) => unknown> {
  return z.custom<(...parameters: never[]) => unknown>((value) => typeof value === 'function', {
    error: `must be a function ${shape}`,
  });
}

/** An object with the named methods: how a SkillRepository, a runtime or a manager is recognised. */
export function objectWithMethods<Shape>(methods: readonly string[], error: string): z.ZodType<Shape> {
  return z.custom<Shape>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function'),
    { error },
  );
}

/** A plain object (not an array, not null). */
export function recordOption(error: string): z.ZodType<Record<string, unknown>> {
  return z.custom<Record<string, unknown>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    { error },
  );
}

/** The options object itself: extra keys are left alone (TypeScript already refuses unknown ones). */
export function optionsObject<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.looseObject(shape, { error: 'must be an object' });
}

/**
 * For `superRefine` rules between options: run them even when a single option is already wrong,
 * so one error lists every problem. Only an options value that is not an object skips them. The
 * rules therefore read each option defensively: it may have any type.
 */
export const evenWithOtherProblems: z.core.$ZodSuperRefineParams = {
  when: (payload) => typeof payload.value === 'object' && payload.value !== null,
};
