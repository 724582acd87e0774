import { SkillboxError } from '../../errors.js';
import type { SkillSourceType } from '../skill-source.js';
import { redactErrorChain, redactUrlCredentials } from '../url-credentials.js';

/**
 * Why a source call failed, for callers that react differently: `not-found` (no such repository,
 * ref, package, index entry or skill), `refused` (content that breaks a safety rule or a limit),
 * `unavailable` (the network or the server failed), `invalid-reference` (the reference cannot be
 * read in this source's syntax).
 */
export type SkillSourceFailure = 'not-found' | 'refused' | 'unavailable' | 'invalid-reference';

/**
 * A source could not resolve, fetch or search. The message starts with the source type and the
 * reference, so a user installing from several places knows which one failed; it never holds a token
 * (URL user information and credential query values are written `***`, in `reference` too).
 */
export class SkillSourceError extends SkillboxError {
  /** Undefined when no source understood the reference at all. */
  readonly sourceType: SkillSourceType | undefined;
  readonly reference: string;
  readonly failure: SkillSourceFailure;

  constructor(
    sourceType: SkillSourceType | undefined,
    reference: string,
    failure: SkillSourceFailure,
    reason: string,
    options?: { cause?: unknown },
  ) {
    // Redacted here, once for every source: a reference, a registry URL or a line a program printed
    // may carry a password or a token, and an error is printed and logged.
    super(
      'SKILL_SOURCE_FAILED',
      redactUrlCredentials(`${sourceType ?? 'no'} source ${JSON.stringify(reference)}: ${reason}`),
      options,
    );
    this.sourceType = sourceType;
    this.reference = redactUrlCredentials(reference);
    redactErrorChain(options?.cause);
    this.failure = failure;
  }
}

/** Builds the errors of one call, so each check names the failure and the reason only. */
export type SourceErrorFactory = (failure: SkillSourceFailure, reason: string, cause?: unknown) => SkillSourceError;

export function sourceErrorFactory(sourceType: SkillSourceType, reference: string): SourceErrorFactory {
  return (failure, reason, cause) =>
    new SkillSourceError(sourceType, reference, failure, reason, cause === undefined ? undefined : { cause });
}
