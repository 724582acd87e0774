import type { CliCommand } from '../command.js';
import { validateCommand } from './validate.js';

/** Every `skillbox` subcommand. Each lives in its own file in this folder. */
export const commands: CliCommand[] = [
  validateCommand,
];
