import type {
  ExecuteResponse,
  FileDownloadResponse,
  FileOperationError,
  FileUploadResponse,
  SandboxBackendProtocolV2,
} from 'deepagents';
import { throwConfigError } from '../../config/option-problems.js';
import { isSkillboxError } from '../../errors.js';
import { defaultMaxOutputBytes, defaultTimeoutSeconds } from '../../workspace/tools/execution-options.js';
import type { Workspace } from '../../workspace/workspace.js';
import { toWorkspaceRelative } from '../../workspace/workspace-paths.js';

/** Options of `createSandboxBackend`: the workspace and the limits of each command. */
export interface SandboxBackendOptions {
  /** The session's workspace (`workspaces.workspace({ userId, sessionId })`); its runtime runs the commands. */
  workspace: Workspace;
  /** Each command is killed after this many seconds (default 300, as skill_run). */
  timeoutSeconds?: number;
  /** Bytes kept of stdout and of stderr each (default 16 KiB, as skill_run). */
  maxOutputBytes?: number;
  /** Most bytes one file download returns (default 10 MiB). */
  maxDownloadBytes?: number;
  /** Let commands reach the network (default false). */
  network?: boolean;
  /** Variables added to each command's environment (nothing of the host's is passed on). */
  env?: Record<string, string>;
}

const defaultMaxDownloadBytes = 10 * 1024 * 1024;

/** What a failed file call is in deepagents' terms. */
function fileErrorOf(error: unknown): FileOperationError {
  if (isSkillboxError(error, 'WORKSPACE_PATH_REFUSED')) return 'invalid_path';
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'file_not_found';
  if (code === 'EISDIR') return 'is_directory';
  return 'permission_denied';
}

function checkLimit(field: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value <= 0))
    throwConfigError('createSandboxBackend', field, `must be a positive whole number; got ${JSON.stringify(value)}`);
}

/**
 * A deepagents sandbox backend (`createDeepAgent({ backend })`) whose commands run in one skillbox
 * workspace through its runtime: with `createRuntime({ kind: 'sandbox' })`, deepagents' `execute`
 * tool and its shell-based `ls`, `grep`, `glob` and `read` run in bubblewrap, seeing the workspace
 * at `/workspace` and nothing of the host's home, files or environment. Uploads and downloads
 * (deepagents' `write`, `edit`, binary reads) go through the runtime's `files()`, which never
 * writes through a link a command planted. Paths are absolute in the sandbox (`/workspace/...`),
 * relative to the workspace, or `$WORK_DIR/...`; anything outside the workspace is refused.
 */
export async function createSandboxBackend(options: SandboxBackendOptions): Promise<SandboxBackendProtocolV2> {
  if (typeof options?.workspace?.run !== 'function')
    throwConfigError(
      'createSandboxBackend',
      'workspace',
      'must be a Workspace (workspaces.workspace({ userId, sessionId }))',
    );
  checkLimit('timeoutSeconds', options.timeoutSeconds);
  checkLimit('maxOutputBytes', options.maxOutputBytes);
  checkLimit('maxDownloadBytes', options.maxDownloadBytes);
  // deepagents is an optional peer: loaded only by the caller who asks for its backend.
  const { BaseSandbox } = await import('deepagents');
  const { workspace } = options;
  const timeoutMs = (options.timeoutSeconds ?? defaultTimeoutSeconds) * 1000;
  const maxOutputBytes = options.maxOutputBytes ?? defaultMaxOutputBytes;
  const maxDownloadBytes = options.maxDownloadBytes ?? defaultMaxDownloadBytes;
  const relativeOf = (path: string) => toWorkspaceRelative(path, '', workspace.paths);

  class SkillboxSandboxBackend extends BaseSandbox {
    readonly id = `skillbox:${workspace.artifactScope}`;

    async execute(command: string): Promise<ExecuteResponse> {
      const { result } = await workspace.run({
        command,
        timeoutMs,
        maxOutputBytes,
        ...(options.network === true ? { network: true } : {}),
        ...(options.env !== undefined ? { env: options.env } : {}),
      });
      const notes = result.timedOut ? [`[timed out after ${timeoutMs / 1000}s]`] : [];
      return {
        output: [result.stdout, result.stderr, ...notes].filter((text) => text !== '').join(''),
        exitCode: result.exitCode,
        truncated: result.stdoutTruncated || result.stderrTruncated,
      };
    }

    async uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
      const responses: FileUploadResponse[] = [];
      for (const [path, data] of files) {
        try {
          await workspace.fileWork(
            () =>
              workspace.files.put(
                relativeOf(path),
                { kind: 'file', mode: 0o644, content: { data } },
                { keepFolder: true },
              ),
            { writes: true },
          );
          responses.push({ path, error: null });
        } catch (error) {
          responses.push({ path, error: fileErrorOf(error) });
        }
      }
      return responses;
    }

    async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
      const responses: FileDownloadResponse[] = [];
      for (const path of paths) {
        try {
          const { data } = await workspace.fileWork(() => workspace.files.read(relativeOf(path), maxDownloadBytes), {
            writes: false,
          });
          responses.push({ path, content: new Uint8Array(data), error: null });
        } catch (error) {
          responses.push({ path, content: null, error: fileErrorOf(error) });
        }
      }
      return responses;
    }
  }
  return new SkillboxSandboxBackend();
}
