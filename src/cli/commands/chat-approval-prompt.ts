import { createInterface, type Interface } from 'node:readline';
import { describeApprovalRequest } from '../../approvals/approval-text.js';
import type { ApprovalDecision, ApprovalOptions, ApprovalRequest } from '../../approvals/approval-types.js';
import { commandToolNames } from '../../approvals/command-tool-names.js';

/** Answers the prompt takes, by what a person types (case does not matter). */
const answers: Record<string, ApprovalDecision> = {
  o: 'allow-once',
  once: 'allow-once',
  y: 'allow-once',
  yes: 'allow-once',
  a: 'allow-always',
  always: 'allow-always',
  d: 'deny',
  deny: 'deny',
  n: 'deny',
  no: 'deny',
};

/** Unrecognised answers in a row before the request counts as unanswered. */
const maxAttempts = 3;

/** The approval prompt of `skillbox chat`, and the one line reader it shares with the chat loop. */
export interface ChatApprovalPrompt {
  /** The `approval` option of the chat's agent. */
  approval: ApprovalOptions;
  /**
   * The line reader over standard input: the chat loop must read its messages from this one, so
   * that a line typed as an answer is not also taken as a message. Undefined without standard input.
   */
  lines(): Interface | undefined;
  close(): void;
}

/**
 * Asks in the terminal before each `skill_run` and `workspace_exec`: the request (command, skill,
 * files) goes to standard error, the answer is read from standard input. End of input, or three
 * answers it cannot read, leaves the request unanswered, and the command does not run.
 */
export function createChatApprovalPrompt(io: {
  stdin?: NodeJS.ReadableStream;
  stderr: (text: string) => void;
}): ChatApprovalPrompt {
  let reader: Interface | undefined;
  const lines = () => {
    if (reader === undefined && io.stdin !== undefined) reader = createInterface({ input: io.stdin, terminal: false });
    return reader;
  };
  const readLine = async (): Promise<string | undefined> => {
    const source = lines();
    if (source === undefined) return undefined;
    // readline hands out one async iterator per interface, so this and the chat loop share it.
    const next = await source[Symbol.asyncIterator]().next();
    return next.done === true ? undefined : String(next.value);
  };
  const decide = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    const always = request.skill !== undefined ? 'always for this skill' : 'always in this session';
    io.stderr(`\n${describeApprovalRequest(request)}\n`);
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      io.stderr(`Allow? [o]nce / [a]${always.slice(1)} / [d]eny: `);
      const line = await readLine();
      if (line === undefined) throw new Error('no answer: standard input ended');
      const decision = answers[line.trim().toLowerCase()];
      if (decision !== undefined) return decision;
      io.stderr(`"${line.trim()}" is not an answer; type o, a or d.\n`);
    }
    throw new Error(`no answer after ${maxAttempts} tries`);
  };
  return {
    approval: { tools: [...commandToolNames], decide },
    lines,
    close: () => reader?.close(),
  };
}
