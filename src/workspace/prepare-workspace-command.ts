import path from 'node:path';
import { buildRunEnvironment } from '../runtime/run-environment.js';
import type { RuntimeCommand } from '../runtime/runtime-types.js';
import { validateRuntimeCommand } from '../runtime/validate-command.js';
import type { WorkspaceFiles } from '../runtime/workspace-files.js';
import { SkillStagingError } from './errors.js';
import { assertStageableName } from './skill-stager.js';
import { workspaceFolders } from './workspace-paths.js';
import type { WorkspaceRunRequest, WorkspaceStartRequest } from './workspace-requests.js';

/** HOME of every command: inside the workspace so tools that keep caches or settings can write them. */
export const homeFolder = 'work/.home';

/** What preparing a command needs of its workspace. */
export interface CommandPreparationContext {
  /** The workspace's real host path: its name for the runtime. */
  root: string;
  files: WorkspaceFiles;
  /** Host paths every command of the workspace may read (the manager's), already checked. */
  readOnlyPaths: readonly string[];
  /** How a workspace-relative path looks to the running process. */
  guestPath(relative: string): string;
  /** Whether the skill is staged in the workspace (the host's record). */
  isStaged(skill: string): Promise<boolean>;
  /** The workspace-relative cwd, made when missing; refused when it leaves the workspace. */
  resolveCwd(cwd: string | undefined, skill?: string): Promise<string>;
}

/** A command ready for the runtime, with the run folder made for it and the cwd it runs in (workspace-relative). */
export interface PreparedCommand {
  command: RuntimeCommand;
  runDir: string;
  cwd: string;
}

/** The request fields a run and a background start share. */
type CommandRequest = Omit<WorkspaceStartRequest, 'maxConcurrent' | 'reachableSkills'>;

/**
 * What a run and a background start share: the skill checked, the cwd and run folder made, the
 * environment built, and the runtime's command checked once (validate-command.ts), here, so no
 * runtime has to repeat it. A command refused at any step leaves no run folder. The caller has
 * checked the layout.
 */
export async function prepareWorkspaceCommand(
  context: CommandPreparationContext,
  request: CommandRequest,
  runOnly: Pick<WorkspaceRunRequest, 'stdin' | 'abortSignal' | 'runId' | 'retrySafe'> = {},
): Promise<PreparedCommand> {
  if (request.skill !== undefined) {
    // Refused before anything is made: a name that climbs out would only fail later, as a path,
    // and an unstaged one would run in an empty folder made up for it, with its bin/ on PATH.
    assertStageableName(request.skill);
    if (!(await context.isStaged(request.skill)))
      throw new SkillStagingError(
        request.skill,
        'it is not staged in this workspace; stage it first (stageSkill) or run without skill',
      );
  }
  const skillFolder = request.skill === undefined ? undefined : `${workspaceFolders.skills}/${request.skill}`;
  // Independent look-ups, made at once.
  const [cwdOutcome, virtualEnvOutcome, runDirOutcome] = await Promise.allSettled([
    context.resolveCwd(request.cwd, request.skill),
    skillFolder !== undefined &&
      context.files.inspect(`${skillFolder}/.venv`).then((entry) => entry?.kind === 'directory'),
    createRunFolder(context.files),
  ]);
  if (
    cwdOutcome.status === 'rejected' ||
    virtualEnvOutcome.status === 'rejected' ||
    runDirOutcome.status === 'rejected'
  ) {
    // A refused run leaves no folder behind.
    if (runDirOutcome.status === 'fulfilled') await context.files.remove(runDirOutcome.value).catch(() => undefined);
    throw [cwdOutcome, virtualEnvOutcome, runDirOutcome].find((outcome) => outcome.status === 'rejected')?.reason;
  }
  const cwd = cwdOutcome.value;
  const runDir = runDirOutcome.value;
  try {
    const env = commandEnvironment(context, request, runDir, skillFolder, virtualEnvOutcome.value);
    const command: RuntimeCommand = {
      // Both as given: one that holds both is refused by name rather than run as one of them.
      ...(request.command === undefined ? {} : { command: request.command }),
      ...(request.argv === undefined ? {} : { argv: request.argv }),
      workspaceRoot: context.root,
      cwd: path.join(context.root, cwd),
      env,
      timeoutMs: request.timeoutMs,
      maxOutputBytes: request.maxOutputBytes,
      network: request.network ?? false,
      readOnlyPaths: [...new Set([...context.readOnlyPaths, ...(request.readOnlyPaths ?? [])])],
      ...(request.image === undefined ? {} : { image: request.image }),
      ...runOnly,
    };
    validateRuntimeCommand(command);
    return { command, runDir, cwd };
  } catch (error) {
    // A refused variable or field refuses the command: its run folder goes too.
    await context.files.remove(runDir).catch(() => undefined);
    throw error;
  }
}

function commandEnvironment(
  context: CommandPreparationContext,
  request: CommandRequest,
  runDir: string,
  skillFolder: string | undefined,
  hasVirtualEnv: boolean,
): Record<string, string> {
  return buildRunEnvironment({
    folders: {
      workspace: context.guestPath(''),
      skills: context.guestPath(workspaceFolders.skills),
      work: context.guestPath(workspaceFolders.work),
      output: context.guestPath(workspaceFolders.out),
      run: context.guestPath(runDir),
    },
    home: context.guestPath(homeFolder),
    skill:
      request.skill === undefined || skillFolder === undefined
        ? undefined
        : { name: request.skill, guestPath: context.guestPath(skillFolder), hasVirtualEnv },
    allowedHost: request.hostEnv ?? {},
    caller: request.env ?? {},
    restricted: request.restricted === true,
  });
}

/** `runs/run_<timestamp>`, made exclusively: two runs in the same millisecond get distinct folders. */
async function createRunFolder(files: WorkspaceFiles): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('Z', '');
  for (let attempt = 0; ; attempt += 1) {
    const folder = `${workspaceFolders.runs}/run_${stamp}${attempt === 0 ? '' : `_${attempt + 1}`}`;
    if (await files.makeFolder(folder, { exclusive: true })) return folder;
  }
}
