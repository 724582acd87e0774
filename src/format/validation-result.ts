/** The outcome of strictly validating one skill (`skillbox validate`). */
export interface ValidationResult {
  /** The path as the caller gave it. */
  path: string;
  /** True when `errors` is empty; warnings never make a skill invalid. */
  valid: boolean;
  /** The reference validator's messages, in its order. */
  errors: string[];
  /** Advice beyond the reference validator's rules (the specification's recommendations). */
  warnings: string[];
}
