import type { RuntimeCommand, WorkspaceRuntime } from '../runtime-types.js';
import type { WorkspaceFiles } from '../workspace-files.js';

/** The PATH every conformance command runs with. */
export const conformancePath = '/usr/local/bin:/usr/bin:/bin';

/**
 * What the conformance cases share, read when a case runs (it is set up in the suite's beforeAll):
 * the runtime under test, the workspace it was handed (a host folder it need not use) and that
 * workspace's files, the only way the suite reaches its contents.
 */
export interface RuntimeConformanceSubject {
  runtime: WorkspaceRuntime;
  workspace: string;
  files: WorkspaceFiles;
}

/** A command's fields besides the program: the workspace root as cwd, a bare PATH, roomy limits. */
export function conformanceCommand(
  subject: RuntimeConformanceSubject,
  extra: Partial<RuntimeCommand> = {},
): Omit<RuntimeCommand, 'command' | 'argv'> {
  return {
    workspaceRoot: subject.workspace,
    cwd: subject.workspace,
    env: { PATH: conformancePath },
    timeoutMs: 10_000,
    maxOutputBytes: 64 * 1024,
    ...extra,
  };
}

/** A refused command field, as every runtime reports it: `code` and `field`, whatever the class or wording. */
export const commandError = (field: string) => ({ code: 'RUNTIME_COMMAND_INVALID', field });
