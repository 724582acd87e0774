import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SkillboxError } from '../../errors.js';
import { openFileInside } from '../anchored-folder.js';
import { WorkspacePathError } from '../errors.js';
import type {
  EntryInfo,
  FileContent,
  ListedEntry,
  ListOptions,
  PlacedTree,
  PutOptions,
  PutResult,
  ResolvedPath,
  WorkspaceFiles,
  WorkspaceSizeLimits,
  WorkspaceUsage,
} from '../workspace-files.js';
import { ContainerEngineError, type EngineClient } from './engine-client.js';
import { runEngineExec } from './engine-exec.js';
import { fileHelperProgram } from './file-helper-program.js';
import { buildTar, type TarMember } from './tar-archive.js';
import { guestStaging, type WorkspaceContainers } from './workspace-containers.js';

/** A file operation failed in the container for a reason other than a refused path. */
export class ContainerFilesError extends SkillboxError {
  constructor(message: string) {
    super('CONTAINER_FILES_FAILED', message);
  }
}

/** One file call waiting for the exec that answers it. */
interface HelperQuestion {
  operation: string;
  /** Its arguments as a Python literal. */
  literal: string;
  /** The path the call is about, for its error messages. */
  path: string;
  answerBytes: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Bytes of questions sent in one exec at most (the kernel caps one argument at 128 KiB). */
const maxBatchArgumentBytes = 96 * 1024;

// JSON has no Infinity: an unbounded limit travels as null, which the helper reads as none.
const finite = (value: number): number | null => (Number.isFinite(value) ? value : null);

/**
 * `WorkspaceFiles` of a workspace that lives in a container's volume, through the Engine API only
 * (so the daemon may be on another machine): bytes go in with the archive upload into the
 * staging area, and every judgement about paths is made by the file helper (file-helper-program.ts)
 * run in the container, which then moves the staged tree into place with one rename.
 */
export class ContainerWorkspaceFiles implements WorkspaceFiles {
  constructor(
    private readonly client: EngineClient,
    private readonly containers: WorkspaceContainers,
    private readonly workspaceRoot: string,
    private readonly user: string,
  ) {}

  /** Questions asked since the last exec was sent: they travel together in the next one. */
  private pending: HelperQuestion[] = [];

  /** Helper execs on their way: while one is, new questions wait for it and then go together. */
  private sending = 0;

  /**
   * Asks the file helper one question. Questions asked in the same turn of the event loop (a
   * `Promise.all` of inspects, a measure beside a read), or while an earlier exec is still on its
   * way, are answered by one exec, since each exec costs a round trip to the daemon and, on podman,
   * a process pair on its host. Waiting for the exec in flight makes the batching depend on the
   * order of the calls rather than on which turn of the loop each lands in, which a loaded host
   * shuffles.
   */
  private helper<T>(operation: string, args: object, path: string, answerBytes = 1024 * 1024): Promise<T> {
    return new Promise<unknown>((resolve, reject) => {
      const literal = pythonLiteral(args);
      // An argument of the exec is capped by the kernel (128 KiB): a full batch goes at once.
      if (this.pending.length > 0 && this.pendingLength() + literal.length > maxBatchArgumentBytes) this.send();
      this.pending.push({ operation, literal, path, answerBytes, resolve, reject });
      if (this.pending.length === 1 && this.sending === 0) setImmediate(() => this.flush());
    }) as Promise<T>;
  }

  private pendingLength(): number {
    return this.pending.reduce((sum, question) => sum + question.literal.length + question.operation.length + 8, 0);
  }

  private flush(): void {
    if (this.sending === 0) this.send();
  }

  private send(): void {
    const questions = this.pending;
    if (questions.length === 0) return;
    this.pending = [];
    this.sending += 1;
    this.ask(questions)
      .catch((error: unknown) => {
        for (const question of questions) question.reject(error);
      })
      .finally(() => {
        this.sending -= 1;
        if (this.pending.length > 0) setImmediate(() => this.flush());
      });
  }

  private async ask(questions: HelperQuestion[]): Promise<void> {
    const container = await this.containers.container(this.workspaceRoot, false);
    const answerBytes = questions.reduce((sum, question) => sum + question.answerBytes, 0);
    const what = questions.map((question) => `${question.operation} "${question.path}"`).join(', ');
    const result = await runEngineExec(this.client, {
      container,
      argv: [
        'python3',
        '-I',
        '-c',
        fileHelperProgram,
        `[${questions.map((question) => `[${JSON.stringify(question.operation)},${question.literal}]`).join(',')}]`,
      ],
      user: this.user,
      maxOutputBytes: answerBytes,
    });
    if (result.stdout.truncated)
      throw new ContainerFilesError(`workspace files: the answer to ${what} exceeded ${answerBytes} bytes`);
    let answers: Array<{ ok?: unknown; refused?: string; error?: string }>;
    try {
      answers = JSON.parse(result.stdout.text) as typeof answers;
      if (!Array.isArray(answers) || answers.length !== questions.length) throw new Error('not one answer each');
    } catch {
      throw new ContainerFilesError(
        `workspace files: ${what} did not answer (exit ${result.exitCode}): ${result.stderr.text.slice(0, 500)}` +
          (result.exitCode === 127 ? ' (the image needs python3)' : ''),
      );
    }
    questions.forEach((question, index) => {
      const answer = answers[index] ?? {};
      if (answer.refused !== undefined) question.reject(new WorkspacePathError(question.path, answer.refused));
      else if (answer.error !== undefined)
        question.reject(
          new ContainerFilesError(`workspace files: ${question.operation} "${question.path}": ${answer.error}`),
        );
      else question.resolve(answer.ok);
    });
  }

  async ensureFolders(paths: readonly string[]): Promise<void> {
    await this.helper('ensureFolders', { paths }, paths.join(', '));
  }

  makeFolder(path: string, options: { exclusive?: boolean } = {}): Promise<boolean> {
    return this.helper('makeFolder', { path, exclusive: options.exclusive === true }, path);
  }

  async inspect(path: string): Promise<EntryInfo | undefined> {
    return (await this.helper<EntryInfo | null>('inspect', { path }, path)) ?? undefined;
  }

  async resolve(paths: readonly string[]): Promise<Array<ResolvedPath | undefined>> {
    const found = await this.helper<Array<ResolvedPath | null>>('resolve', { paths }, paths.join(', '));
    return found.map((entry) => entry ?? undefined);
  }

  list(folder: string, options: ListOptions): Promise<{ entries: ListedEntry[]; truncated: boolean }> {
    const maxEntries = Number.isFinite(options.maxEntries) ? options.maxEntries : Number.MAX_SAFE_INTEGER;
    // Each entry costs its path and some 30 bytes of JSON: the answer is bounded by the entries asked for.
    const answerBytes = Math.min(64 * 1024 * 1024, 1024 * 1024 + maxEntries * 4200);
    return this.helper('list', { folder, maxDepth: finite(options.maxDepth), maxEntries }, folder, answerBytes);
  }

  async read(path: string, maxBytes: number): Promise<{ data: Buffer; sizeBytes: number }> {
    const answerBytes = Math.ceil(maxBytes / 3) * 4 + 1024;
    const answer = await this.helper<{ data: string; sizeBytes: number }>(
      'read',
      { path, maxBytes },
      path,
      answerBytes,
    );
    return { data: Buffer.from(answer.data, 'base64'), sizeBytes: answer.sizeBytes };
  }

  async put(path: string, tree: PlacedTree, options: PutOptions = {}): Promise<PutResult> {
    const [uid, gid] = this.user.split(':').map(Number) as [number, number];
    const digests: Record<string, string> = {};
    const members: TarMember[] = [];
    const addFile = async (memberPath: string, digestKey: string, mode: number, content: FileContent) => {
      const data = await contentBytes(content);
      if (options.digests === true) digests[digestKey] = createHash('sha256').update(data).digest('hex');
      members.push({ kind: 'file', path: memberPath, mode, data });
    };
    if (tree.kind === 'file') await addFile('t', '', tree.mode, tree.content);
    else if (tree.kind === 'link') members.push({ kind: 'link', path: 't', target: tree.target });
    else {
      members.push({ kind: 'directory', path: 't', mode: tree.mode });
      for (const entry of tree.entries) {
        const memberPath = `t/${entry.path}`;
        if (entry.kind === 'directory') members.push({ kind: 'directory', path: memberPath, mode: entry.mode });
        else if (entry.kind === 'link') members.push({ kind: 'link', path: memberPath, target: entry.target });
        else await addFile(memberPath, entry.path, entry.mode, entry.content);
      }
    }
    // The tree arrives in a fresh folder of the staging area that the archive itself makes, named
    // here: no exec is needed to make it first.
    const stage = `put-${randomBytes(8).toString('hex')}`;
    const container = await this.containers.container(this.workspaceRoot, false);
    try {
      await this.client.call(
        'PUT',
        `/containers/${container}/archive?path=${encodeURIComponent(guestStaging)}`,
        buildTar(
          [
            { kind: 'directory', path: stage, mode: 0o700 },
            ...members.map((member) => ({ ...member, path: `${stage}/${member.path}` })),
          ],
          uid,
          gid,
        ),
        { contentType: 'application/x-tar' },
      );
      const inode = await this.helper<number>('place', { stage, path, keepFolder: options.keepFolder === true }, path);
      return options.digests === true ? { inode, digests } : { inode };
    } catch (error) {
      await this.helper('discard', { stage }, stage).catch(() => undefined);
      throw error;
    }
  }

  async copy(from: string, to: string): Promise<void> {
    await this.helper('copy', { from, to }, from);
  }

  async remove(path: string): Promise<void> {
    if (path === '') {
      await this.containers.remove(this.workspaceRoot);
      return;
    }
    await this.helper('remove', { path }, path);
  }

  /**
   * The workspace layer measures while a command runs, and the helper then runs beside it as the
   * same user: the command can kill it. A count that fails twice is reported as over the disk limit
   * (what the workspace holds is unknown), so killing the watcher stops the command instead of
   * blinding the quota; the wrapper's own kill at a command's end is what the retry is for.
   */
  async measure(limits: WorkspaceSizeLimits): Promise<WorkspaceUsage> {
    const args = { maxBytes: finite(limits.maxBytes), maxFiles: finite(limits.maxFiles) };
    let failure: unknown;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        return await this.helper<WorkspaceUsage>('measure', args, '');
      } catch (error) {
        if (!(error instanceof ContainerFilesError || error instanceof ContainerEngineError)) throw error;
        failure = error;
      }
    }
    return {
      bytes: 0,
      files: 0,
      exceeded: 'disk',
      unreadable: `. (the measure was stopped twice: ${(failure as Error).message})`,
    };
  }
}

/**
 * The arguments as a Python literal (`ast.literal_eval` reads it): the image's python3 may be the
 * minimal one, which has no json module. A JSON string is a valid Python string literal.
 */
function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'None';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(',')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${JSON.stringify(key)}:${pythonLiteral(item)}`)
    .join(',')}}`;
}

/** The bytes of a file to place; a host file is read on the host, inside `within` when given. */
async function contentBytes(content: FileContent): Promise<Uint8Array> {
  if ('data' in content) return content.data;
  if (content.within === undefined) return readFile(content.hostFile);
  const handle = await openFileInside(content.within, content.hostFile);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
