import type { SkillSummary } from '../../repository/types.js';
import { closestMatch, didYouMean } from '../did-you-mean.js';
import { terminalSafe } from '../terminal-safe-text.js';
import { AttachError, type AttachedFile } from './chat-attach.js';

/** One skill as `/skills` shows it. */
export interface ChatSkillEntry {
  summary: SkillSummary;
  /**
   * `session`: loaded in the session (load mode `session`); `last-turn`: loaded during the last
   * turn, which the next turn's start unloads (load modes `turn`, `once`); undefined: not loaded.
   */
  loaded?: 'session' | 'last-turn';
  /** Queued by `/skill NAME` for the next message. */
  pending: boolean;
  /** What the runtime lacks for the skill's scripts (docs/skill-requirements.md); empty when met. */
  missing: string[];
}

/** What the slash commands read and change in a running chat; chat.ts provides it. */
export interface ChatControls {
  /** The model id the next turn uses. */
  model(): string;
  setModel(model: string): void;
  /** Every skill the chat knows, including those hidden from the model, with their marks. */
  skills(): Promise<ChatSkillEntry[]>;
  /** Queues a user-invoked load for the next message (the skill's body enters that turn as skill_load's would). */
  queueSkillLoad(name: string): void;
  /** Copies a host file into the session workspace's input area. */
  attach(hostPath: string, name: string | undefined): Promise<AttachedFile>;
}

/** What the chat does after a slash command: nothing more, end, or send a message as a turn. */
export type SlashOutcome = { kind: 'handled' } | { kind: 'quit' } | { kind: 'turn'; message: string };

const commandHelp: ReadonlyArray<readonly [string, string]> = [
  ['/help', 'this list'],
  ['/skills', 'the skills, with which are loaded, user-only or cannot run here'],
  [
    '/skill NAME [MESSAGE]',
    'load a skill yourself (also one hidden from the model) for the next message, or send MESSAGE with it now',
  ],
  ['/model [NAME]', 'show the model, or use NAME from the next turn on'],
  ['/attach PATH [as NAME]', 'copy a host file into the workspace as work/inputs/NAME (default: its file name)'],
  ['/quit, /exit', 'end the chat (so does Ctrl-D)'],
];

export const slashCommandNames = ['/help', '/skills', '/skill', '/model', '/attach', '/quit', '/exit'] as const;

/** The `/help` text. */
export function slashHelp(): string {
  const width = Math.max(...commandHelp.map(([command]) => command.length));
  return (
    commandHelp.map(([command, meaning]) => `  ${command.padEnd(width)}  ${meaning}\n`).join('') +
    '  A message that starts with / is read as a command; start it with // to send it as a message.\n'
  );
}

/**
 * Splits the arguments of a command the way a shell would for the simple cases: words separated
 * by spaces, "double" or 'single' quotes keep spaces in one word.
 */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (const character of text) {
    if (quote !== undefined) {
      if (character === quote) quote = undefined;
      else current += character;
    } else if (character === '"' || character === "'") {
      quote = character;
      inWord = true;
    } else if (/\s/.test(character)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += character;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new AttachError(`a ${quote} quote is not closed`);
  if (inWord) words.push(current);
  return words;
}

function skillLines(entries: readonly ChatSkillEntry[]): string {
  if (entries.length === 0) return 'no skills found under the roots\n';
  const width = Math.min(28, Math.max(...entries.map((entry) => entry.summary.name.length)));
  return (
    `${entries.length} skill${entries.length === 1 ? '' : 's'}:\n` +
    entries
      .map((entry) => {
        const marks = [
          entry.loaded === 'session' ? 'loaded' : entry.loaded === 'last-turn' ? 'loaded in the last turn' : undefined,
          entry.pending ? 'loads with your next message' : undefined,
          entry.summary.modelInvocable === false ? 'user-only: /skill loads it' : undefined,
          entry.missing.length > 0 ? `cannot run here: missing ${entry.missing.join(', ')}` : undefined,
        ].filter((mark) => mark !== undefined);
        const description = entry.summary.description.replace(/\s+/g, ' ').trim();
        const shown = description.length > 100 ? `${description.slice(0, 99)}…` : description;
        return `  ${entry.summary.name.padEnd(width)}  ${shown}${marks.length > 0 ? `  [${marks.join('; ')}]` : ''}\n`;
      })
      .join('')
  );
}

/**
 * Runs one line that starts with `/`. Nothing here reaches the model except what a `turn` outcome
 * sends: an unknown or malformed command is answered on `print` and dropped, so a typo never costs
 * a model call nor ends up in the conversation. A command that fails (the session store or a
 * skill root unreadable) says so and the chat goes on.
 */
export async function runSlashCommand(
  line: string,
  chat: ChatControls,
  printRaw: (text: string) => void,
): Promise<SlashOutcome> {
  // Skill names and descriptions, file paths and errors are other people's text: no terminal controls.
  const print = (text: string) => printRaw(terminalSafe(text));
  try {
    return await runCommand(line, chat, print);
  } catch (error) {
    print(`${line.trim().split(/\s/)[0]} failed: ${(error as Error).message}\n`);
    return { kind: 'handled' };
  }
}

async function runCommand(line: string, chat: ChatControls, print: (text: string) => void): Promise<SlashOutcome> {
  const text = line.trim();
  if (text.startsWith('//')) return { kind: 'turn', message: text.slice(1) };
  const space = text.search(/\s/);
  const command = space === -1 ? text : text.slice(0, space);
  const rest = space === -1 ? '' : text.slice(space).trim();
  switch (command) {
    case '/help':
      print(slashHelp());
      return { kind: 'handled' };
    case '/quit':
    case '/exit':
      return { kind: 'quit' };
    case '/skills':
      print(skillLines(await chat.skills()));
      return { kind: 'handled' };
    case '/skill': {
      const space = rest.search(/\s/);
      const name = space === -1 ? rest : rest.slice(0, space);
      const message = space === -1 ? '' : rest.slice(space).trim();
      if (name === '') {
        print('/skill needs a skill name: /skill NAME [MESSAGE] (/skills lists them)\n');
        return { kind: 'handled' };
      }
      const names = (await chat.skills()).map((entry) => entry.summary.name);
      if (!names.includes(name)) {
        print(`no skill named "${name}".${didYouMean(name, names)} (/skills lists them)\n`);
        return { kind: 'handled' };
      }
      chat.queueSkillLoad(name);
      if (message !== '') return { kind: 'turn', message };
      print(`skill ${name} loads with your next message\n`);
      return { kind: 'handled' };
    }
    case '/model':
      if (rest === '') print(`model: ${chat.model()}\n`);
      else if (/\s/.test(rest)) print(`/model takes one model id; got "${rest}"\n`);
      else {
        chat.setModel(rest);
        print(`model: ${rest} from the next turn on\n`);
      }
      return { kind: 'handled' };
    case '/attach': {
      try {
        const words = splitWords(rest);
        const asAt = words.findIndex((word) => word.toLowerCase() === 'as');
        // An unquoted path with spaces is still one path: everything before "as".
        const hostPath = (asAt === -1 ? words : words.slice(0, asAt)).join(' ');
        const name = asAt === -1 ? undefined : words[asAt + 1];
        if (hostPath === '') throw new AttachError('usage: /attach PATH [as NAME] (quote a path with spaces)');
        if (asAt !== -1 && (name === undefined || words.length > asAt + 2))
          throw new AttachError('"as" takes one name: /attach PATH as NAME (quote a name with spaces)');
        const attached = await chat.attach(hostPath, name);
        print(
          `attached ${attached.hostPath} (${attached.sizeBytes} bytes) as ${attached.workspacePath}; the model is told with your next message\n`,
        );
      } catch (error) {
        if (!(error instanceof AttachError)) throw error;
        print(`/attach: ${error.message}\n`);
      }
      return { kind: 'handled' };
    }
    default: {
      const known = closestMatch(command, slashCommandNames);
      print(
        `unknown command ${command}${known === undefined ? '' : `; did you mean ${known}?`} (/help lists the commands; start a message with // to send it as is)\n`,
      );
      return { kind: 'handled' };
    }
  }
}
