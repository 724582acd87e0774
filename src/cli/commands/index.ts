import type { CliCommand } from '../command.js';
import { chatCommand } from './chat.js';
import { listCommand } from './list.js';
import { mcpCommand } from './mcp.js';
import { promptCommand } from './prompt.js';
import { runCommand } from './run.js';
import { showCommand } from './show.js';
import { tokensCommand } from './tokens.js';
import { validateCommand } from './validate.js';

/** Every `skillbox` subcommand. Each lives in its own file in this folder. */
export const commands: CliCommand[] = [
  validateCommand,
  listCommand,
  showCommand,
  promptCommand,
  tokensCommand,
  runCommand,
  chatCommand,
  mcpCommand,
];
