import { UnsafeArchiveError } from './errors.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Entry names as UTF-8, refusing any other bytes: guessing a legacy code page could turn one
 * name into two different paths on two systems.
 */
export function decodeEntryName(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new UnsafeArchiveError('the entry name is not UTF-8', Buffer.from(bytes).toString('latin1'));
  }
}
