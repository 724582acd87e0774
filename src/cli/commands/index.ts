import type { CliCommand } from '../command.js';

/**
 * A `skillbox` subcommand as the overview lists it; `load()` imports its file. Each command loads
 * only its own dependencies, so `skillbox --help` or `skillbox list` does not pay for the MCP SDK,
 * the AI SDK and the tokenizer that other commands use (importing every command was about half of
 * a `skillbox list`).
 */
export interface CommandEntry {
  name: string;
  /** One line for `skillbox help`. */
  summary: string;
  load(): Promise<CliCommand>;
}

/** Every `skillbox` subcommand. Each lives in its own file in this folder. */
export const commands: CommandEntry[] = [
  {
    name: 'validate',
    summary: 'check skills strictly against the Agent Skills specification',
    load: async () => (await import('./validate.js')).validateCommand,
  },
  {
    name: 'list',
    summary: 'list the skills under the roots, with skipped and shadowed ones',
    load: async () => (await import('./list.js')).listCommand,
  },
  {
    name: 'show',
    summary: "print a skill's body or one of its bundled files",
    load: async () => (await import('./show.js')).showCommand,
  },
  {
    name: 'prompt',
    summary: 'print the skills catalog exactly as the model receives it',
    load: async () => (await import('./prompt.js')).promptCommand,
  },
  {
    name: 'tokens',
    summary: 'measure catalog, body and doc tokens (o200k) and what progressive disclosure saves',
    load: async () => (await import('./tokens.js')).tokensCommand,
  },
  {
    name: 'run',
    summary: 'Run a skill command in a fresh sandboxed workspace and print the result as JSON',
    load: async () => (await import('./run.js')).runCommand,
  },
  {
    name: 'inspect',
    summary: 'serve a local web page showing the skills, their costs, the catalog and the sessions',
    load: async () => (await import('./inspect.js')).inspectCommand,
  },
  {
    name: 'chat',
    summary: 'chat with an agent that uses the skills (any OpenAI-compatible endpoint)',
    load: async () => (await import('./chat.js')).chatCommand,
  },
  {
    name: 'mcp',
    summary: 'serve the skills to an MCP client over stdio',
    load: async () => (await import('./mcp.js')).mcpCommand,
  },
  {
    name: 'add',
    summary: 'install skills from a source into ./.agents/skills and skills-lock.json',
    load: async () => (await import('./add.js')).addCommand,
  },
  {
    name: 'search',
    summary: 'search the sources that have a catalogue',
    load: async () => (await import('./search.js')).searchCommand,
  },
  {
    name: 'update',
    summary: 'reinstall locked skills whose source changed',
    load: async () => (await import('./update.js')).updateCommand,
  },
  {
    name: 'remove',
    summary: 'delete installed skills and their lock entries',
    load: async () => (await import('./remove.js')).removeCommand,
  },
  {
    name: 'install',
    summary: 'install the skills skills-lock.json lists (--frozen: exactly as locked)',
    load: async () => (await import('./install.js')).installCommand,
  },
  {
    name: 'verify',
    summary: 'list every difference between installed skills and skills-lock.json',
    load: async () => (await import('./verify.js')).verifyCommand,
  },
  {
    name: 'scan',
    summary: 'list what a reviewer must see in a skill before it runs',
    load: async () => (await import('./scan.js')).scanCommand,
  },
  {
    name: 'upload',
    summary: "upload skills to Anthropic's or OpenAI's skills API, re-uploading only what changed",
    load: async () => (await import('./upload.js')).uploadCommand,
  },
  {
    name: 'worker',
    summary: 'serve sandboxed skill runs to agent workers over HTTP (signed with a shared secret)',
    load: async () => (await import('./worker.js')).workerCommand,
  },
  {
    name: 'init',
    summary: 'create a new skill folder with a valid SKILL.md',
    load: async () => (await import('./init.js')).initCommand,
  },
];
