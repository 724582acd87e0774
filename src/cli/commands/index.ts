import type { CliCommand } from '../command.js';
import { addCommand } from './add.js';
import { chatCommand } from './chat.js';
import { initCommand } from './init.js';
import { installCommand } from './install.js';
import { listCommand } from './list.js';
import { mcpCommand } from './mcp.js';
import { promptCommand } from './prompt.js';
import { removeCommand } from './remove.js';
import { runCommand } from './run.js';
import { scanCommand } from './scan.js';
import { searchCommand } from './search.js';
import { showCommand } from './show.js';
import { tokensCommand } from './tokens.js';
import { updateCommand } from './update.js';
import { validateCommand } from './validate.js';
import { verifyCommand } from './verify.js';

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
  addCommand,
  searchCommand,
  updateCommand,
  removeCommand,
  installCommand,
  verifyCommand,
  scanCommand,
  initCommand,
];
