import { Worker } from 'node:worker_threads';

/** One line that matched. */
export interface TextMatch {
  path: string;
  line: number;
  text: string;
}

/**
 * Searches texts with a pattern the model wrote, in a worker thread stopped after `timeoutMs`.
 * JavaScript's regular expressions backtrack, and a pattern such as `(a+)+$` against a long line
 * of workspace content (which a script may have written to provoke it) would hold the host's event
 * loop for minutes; a worker can be terminated, the main thread cannot interrupt a running match.
 */
export function searchInWorker(
  files: ReadonlyArray<{ path: string; text: string }>,
  pattern: { source: string; flags: string },
  maxMatches: number,
  timeoutMs: number,
): Promise<{ matches: TextMatch[]; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(searchProgram, { eval: true, workerData: { files, pattern, maxMatches } });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new SearchTimeoutError(timeoutMs));
    }, timeoutMs);
    worker.once('message', (result: { matches: TextMatch[]; truncated: boolean }) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** The search took longer than allowed: the pattern backtracks too much for these files. */
export class SearchTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the search took over ${timeoutMs} ms and was stopped`);
    this.name = 'SearchTimeoutError';
  }
}

// Plain JavaScript, run by `new Worker(..., { eval: true })`: one pass over each file's lines.
const searchProgram = `
const { parentPort, workerData } = require('node:worker_threads');
const { files, pattern, maxMatches } = workerData;
const expression = new RegExp(pattern.source, pattern.flags);
const matches = [];
let truncated = false;
outer: for (const file of files) {
  const lines = file.text.split('\\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index].replace(/\\r$/, '');
    expression.lastIndex = 0;
    if (expression.test(line)) {
      if (matches.length >= maxMatches) { truncated = true; break outer; }
      matches.push({ path: file.path, line: index + 1, text: line.length > 300 ? line.slice(0, 297) + '...' : line });
    }
  }
}
parentPort.postMessage({ matches, truncated });
`;
