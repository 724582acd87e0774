import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import type { WorkspaceRuntime } from '../runtime-types.js';
import type { RuntimeConformanceSubject } from './runtime-conformance-subject.js';
import { describeRuntimeFilesConformance } from './runtime-files-conformance.js';
import { describeRuntimeProcessConformance } from './runtime-process-conformance.js';
import { describeRuntimeLimitConformance, describeRuntimeRunConformance } from './runtime-run-conformance.js';

/**
 * The behaviour every WorkspaceRuntime must share, as vitest tests. A runtime's own test file
 * calls this once: `describeRuntimeConformance('local', () => new LocalRuntime())`. The suite
 * makes an empty host folder for the workspace (a runtime whose workspaces live elsewhere takes
 * its path as the workspace's name) and then reaches the workspace only through the runtime
 * (`run`, `files` and, when the runtime has them, `start` and `stopProcesses`); `dispose` is called
 * with the runtime at the end.
 *
 * It calls the runtime with commands whose fields are valid (`validateRuntimeCommand` passes them),
 * as the workspace layer does: field checks are not the runtime's. What it does demand of a runtime
 * beyond running: a cwd that is missing or leads out of the workspace when the command starts is
 * refused with code `RUNTIME_COMMAND_INVALID` and field `cwd`, and `files()` refuses paths that
 * lead out with code `WORKSPACE_PATH_REFUSED`. Errors are matched by code and field, never by class
 * or message.
 */
export function describeRuntimeConformance(
  name: string,
  createRuntime: () => WorkspaceRuntime | Promise<WorkspaceRuntime>,
  dispose?: (runtime: WorkspaceRuntime) => Promise<void> | void,
): void {
  describe(`${name} runtime conformance`, () => {
    let subject: RuntimeConformanceSubject | undefined;
    const current = (): RuntimeConformanceSubject => {
      if (subject === undefined) throw new Error(`the ${name} runtime was not set up (its factory failed)`);
      return subject;
    };

    beforeAll(async () => {
      const runtime = await createRuntime();
      const workspace = mkdtempSync(join(tmpdir(), `skillbox-conformance-${name.replace(/[^\w-]/g, '-')}-`));
      subject = { runtime, workspace, files: runtime.files(workspace) };
    });
    afterAll(async () => {
      if (subject === undefined) return;
      await subject.files.remove('');
      rmSync(subject.workspace, { recursive: true, force: true });
      await dispose?.(subject.runtime);
    });

    describeRuntimeRunConformance(current);
    describeRuntimeLimitConformance(current);
    describe('workspace files', () => describeRuntimeFilesConformance(current));
    describe('background processes', () => describeRuntimeProcessConformance(current));
  });
}
