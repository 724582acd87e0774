// What the workspace quota costs warm skill_run calls on a workspace that holds many files: three
// `true` runs in a row with the quota off (no walk), the same with the default quota (walks of the
// whole workspace before and after a run, and every 250 ms while it runs), and one walk alone; the
// quota's cost is given in walks per call. Local runtime, so the sandbox's start-up does not drown
// the figure. Medians; figures only, nothing fails on a time.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import { LocalRuntime } from '../src/runtime/local-runtime.js';
import type { WorkspaceRuntime } from '../src/runtime/runtime-types.js';
import type { WorkspaceFiles, WorkspaceSizeLimits } from '../src/runtime/workspace-files.js';
import { createInMemoryStateView } from '../src/state/in-memory-state-view.js';
import { loadedKey } from '../src/state/state-keys.js';
import type { ToolDefinition } from '../src/tools/types.js';
import { createExecutionTools } from '../src/workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../src/workspace/workspace-manager.js';
import { defaultWorkspaceQuota, measureWorkspace, unlimited } from '../src/workspace/workspace-quota.js';
import {
  baselineLabel,
  importBaseline,
  interleavedTimes,
  median,
  pairedRatio,
  quick,
  reportRatio,
} from './bench-support.js';

const files = Number(process.env.QUOTA_BENCH_FILES ?? (quick ? 2_000 : 20_000));
const runs = Number(process.env.QUOTA_BENCH_RUNS ?? (quick ? 5 : 15));

export async function run(): Promise<void> {
  const temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-quota-bench-'));
  try {
    const skillsRoot = path.join(temporary, 'skills');
    await mkdir(path.join(skillsRoot, 'bench-skill'), { recursive: true });
    await writeFile(
      path.join(skillsRoot, 'bench-skill', 'SKILL.md'),
      '---\nname: bench-skill\ndescription: Benchmark skill.\n---\nRun true.\n',
    );
    const repository = await FsSkillRepository.open({ roots: [skillsRoot] });
    // Walks are counted as well as timed: on a shared machine their count is the steadier figure.
    const local = new LocalRuntime();
    const baseline = await importBaseline<typeof import('../src/runtime/host-workspace-files.js')>(
      'runtime/host-workspace-files.ts',
    );
    let walks = 0;
    // `measureWith` swaps in another walk (the baseline's) while the rest of the runtime stays this one.
    const runtimeMeasuringWith = (measureWith?: (root: string) => WorkspaceFiles): WorkspaceRuntime => ({
      kind: local.kind,
      isolated: local.isolated,
      guestPath: (hostPath, root) => local.guestPath(hostPath, root),
      run: (command) => local.run(command),
      files(root) {
        const files = local.files(root);
        const measuring = measureWith?.(root) ?? files;
        return Object.assign(Object.create(files) as WorkspaceFiles, {
          measure: (limits: WorkspaceSizeLimits) => {
            walks += 1;
            return measuring.measure(limits);
          },
        });
      },
    });
    const baseDir = path.join(temporary, 'workspaces');
    const managerOn = (runtime: WorkspaceRuntime) =>
      createWorkspaceManager({ runtime, repository, baseDir, artifacts: false });
    const workspaces = managerOn(runtimeMeasuringWith());
    const tool = (quota: { maxBytes: number; maxFiles: number }, manager = workspaces) =>
      (createExecutionTools({ workspaces: manager, workspaceQuota: quota }) as [ToolDefinition])[0];
    const withQuota = tool(defaultWorkspaceQuota);
    const withoutQuota = tool(unlimited);
    // Both managers open the same workspace folder (the session's), one at a time.
    const baselineQuota =
      baseline === undefined
        ? undefined
        : tool(
            defaultWorkspaceQuota,
            managerOn(runtimeMeasuringWith((root) => new baseline.HostWorkspaceFiles(root) as WorkspaceFiles)),
          );
    const context = {
      sessionId: 'bench',
      agentName: 'bench',
      state: createInMemoryStateView({ [loadedKey('bench', 'bench-skill')]: '1' }),
    };
    const call = (skillRun: ToolDefinition) =>
      skillRun.execute(
        skillRun.inputSchema.parse({ skill: 'bench-skill', command: 'true', output_files: [] }),
        context,
      );
    const workspace = await workspaces.workspace('bench');
    await call(withoutQuota);
    // A workspace a skill filled: 100 folders of files under work/.
    for (let folder = 0; folder < 100; folder += 1) {
      const directory = path.join(workspace.root, 'work', `data${folder}`);
      await mkdir(directory, { recursive: true });
      await Promise.all(
        Array.from({ length: files / 100 }, (_, file) => writeFile(path.join(directory, `f${file}`), 'x')),
      );
    }
    const callsInARow = 3;
    const inARow = (skillRun: ToolDefinition) => async () => {
      for (let index = 0; index < callsInARow; index += 1) await call(skillRun);
    };
    const walksBefore = walks;
    await inARow(withQuota)();
    const walksPerCall = (walks - walksBefore) / callsInARow;
    // A walk's processor time besides its wall time: on a loaded machine a walk spread over the
    // thread pool's threads gets a larger share of the processors, so wall time alone hides what it costs.
    const cpu: Record<'walk' | 'baselineWalk', number[]> = { walk: [], baselineWalk: [] };
    const timedOnProcessor = (into: number[], walk: () => Promise<unknown>) => async () => {
      const before = process.cpuUsage();
      await walk();
      const used = process.cpuUsage(before);
      into.push((used.user + used.system) / 1000);
    };
    const tasks: Record<string, () => Promise<unknown>> = {
      off: inARow(withoutQuota),
      quota: inARow(withQuota),
      walk: timedOnProcessor(cpu.walk, () => measureWorkspace(workspace.files, unlimited)),
    };
    if (baseline !== undefined && baselineQuota !== undefined) {
      tasks.baselineQuota = inARow(baselineQuota);
      tasks.baselineWalk = timedOnProcessor(cpu.baselineWalk, () =>
        measureWorkspace(new baseline.HostWorkspaceFiles(workspace.root) as WorkspaceFiles, unlimited),
      );
    }
    const times = (await interleavedTimes(tasks, runs)) as Record<'off' | 'quota' | 'walk', number[]> &
      Partial<Record<'baselineQuota' | 'baselineWalk', number[]>>;
    const added = (median(times.quota) - median(times.off)) / callsInARow;
    console.log(
      `workspace of ${files} files, ${runs} rounds of ${callsInARow} calls: skill_run without quota ` +
        `${(median(times.off) / callsInARow).toFixed(1)} ms, with the default quota ` +
        `${(median(times.quota) / callsInARow).toFixed(1)} ms, one walk ${median(times.walk).toFixed(1)} ms ` +
        `(${median(cpu.walk.slice(1)).toFixed(1)} ms of processor time); ` +
        `the quota adds ${added.toFixed(1)} ms a call (${(added / median(times.walk)).toFixed(2)} walks by time, ` +
        `${walksPerCall.toFixed(2)} counted)`,
    );
    reportRatio({
      benchmark: 'workspace-quota',
      comparison: `skill_run with quota / without, ${files} files`,
      ratio: pairedRatio(times.quota, times.off),
    });
    if (times.baselineQuota !== undefined && times.baselineWalk !== undefined) {
      const label = baselineLabel() as string;
      const baselineAdded = (median(times.baselineQuota) - median(times.off)) / callsInARow;
      console.log(
        `${label}: skill_run with the default quota ${(median(times.baselineQuota) / callsInARow).toFixed(1)} ms, ` +
          `one walk ${median(times.baselineWalk).toFixed(1)} ms (${median(cpu.baselineWalk.slice(1)).toFixed(1)} ms of ` +
          `processor time); the quota adds ${baselineAdded.toFixed(1)} ms a call`,
      );
      reportRatio({
        benchmark: 'workspace-quota',
        comparison: `${label}: skill_run with quota / without, ${files} files`,
        ratio: pairedRatio(times.baselineQuota, times.off),
      });
      reportRatio({
        benchmark: 'workspace-quota',
        comparison: `one walk / ${label}'s, ${files} files`,
        ratio: pairedRatio(times.walk, times.baselineWalk),
      });
      // The first sample of each is the warm-up round's, which interleavedTimes leaves out of its own.
      reportRatio({
        benchmark: 'workspace-quota',
        comparison: `one walk's processor time / ${label}'s, ${files} files`,
        ratio: pairedRatio(cpu.walk.slice(1), cpu.baselineWalk.slice(1)),
      });
    }
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
}
