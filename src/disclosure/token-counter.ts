import { createRequire } from 'node:module';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';

/** The encoding every token figure in skillbox uses (GPT-4o / o-series); it ships with js-tiktoken, so no network. */
export const tokenizerName = 'o200k_base';

const require = createRequire(import.meta.url);
let tokenizer: Tiktoken | undefined;

/**
 * The ranks are megabytes of data and building the encoder takes about a second, so both happen on
 * the first count, once per process, and never for a user who counts nothing. `require` keeps the
 * first count synchronous, so a catalog budget can be checked without making rendering async.
 */
function encoder(): Tiktoken {
  if (tokenizer === undefined) {
    const ranks = require('js-tiktoken/ranks/o200k_base') as TiktokenBPE | { default: TiktokenBPE };
    tokenizer = new Tiktoken('default' in ranks ? ranks.default : ranks);
  }
  return tokenizer;
}

/** Number of o200k_base tokens in `text`. Special-token text in a skill counts as ordinary text. */
export function countTokens(text: string): number {
  if (text === '') return 0;
  return encoder().encode(text, [], []).length;
}
