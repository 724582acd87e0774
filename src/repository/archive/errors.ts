import { SkillboxError } from '../../errors.js';
import { quoteForDisplay } from '../../format/escape-unsafe-characters.js';

/**
 * An archive refused before anything was written: an entry whose path could escape or collide, a
 * link or device, a size that breaks a limit, or bytes that are not the format they claim to be.
 * `entry` names the offending entry as the archive spells it, when one is to blame.
 */
export class UnsafeArchiveError extends SkillboxError {
  readonly entry: string | undefined;
  readonly reason: string;

  constructor(reason: string, entry?: string) {
    super(
      'ARCHIVE_REFUSED',
      entry === undefined ? `archive refused: ${reason}` : `archive entry ${quoteForDisplay(entry)} refused: ${reason}`,
    );
    this.entry = entry;
    this.reason = reason;
  }
}
