import { SkillboxError } from '../errors.js';

// Defined beside the workspace file access it guards (src/runtime/host-workspace-files.ts); named here too for the workspace layer.
export { WorkspacePathError } from '../runtime/errors.js';

/** An input that cannot be staged: unknown scheme, missing source, refused host path. */
export class WorkspaceInputError extends SkillboxError {
  readonly input: string;

  constructor(input: string, why: string) {
    super('WORKSPACE_INPUT_ERROR', `cannot stage input "${input}": ${why}`);
    this.input = input;
  }
}

/**
 * The default folder of every workspace is not safely ours: a link, not a folder, owned by another
 * user or open to others. Someone who made it first could read or plant files in every workspace.
 */
export class WorkspaceBaseUnsafeError extends SkillboxError {
  readonly path: string;

  constructor(path: string, why: string) {
    super('WORKSPACE_BASE_UNSAFE', `refused workspace folder "${path}": ${why}; remove it or pass another baseDir`);
    this.path = path;
  }
}

/** A skill that cannot be staged into a workspace (bad name, unreadable source). */
export class SkillStagingError extends SkillboxError {
  readonly skill: string;

  constructor(skill: string, why: string, options?: { cause?: unknown }) {
    super('SKILL_STAGING_FAILED', `cannot stage skill "${skill}": ${why}`, options);
    this.skill = skill;
  }
}

export class ArtifactNotFoundError extends SkillboxError {
  readonly artifact: string;

  constructor(artifact: string, version?: number) {
    super(
      'ARTIFACT_NOT_FOUND',
      `artifact "${artifact}"${version === undefined ? '' : ` version ${version}`} not found`,
    );
    this.artifact = artifact;
  }
}

/** An artifact name that cannot be stored (empty, `.`/`..`, too long). */
export class ArtifactNameError extends SkillboxError {
  readonly artifact: string;

  constructor(artifact: string, why: string) {
    super('ARTIFACT_NAME_REFUSED', `refused artifact name "${artifact}": ${why}`);
    this.artifact = artifact;
  }
}

/**
 * A background-process request that cannot be served: the session's concurrency limit is reached,
 * the id names no process of this workspace, or the runtime cannot run processes in the background.
 */
export class BackgroundProcessError extends SkillboxError {
  constructor(message: string) {
    super('BACKGROUND_PROCESS_REFUSED', message);
  }
}

/** A workspace manager used after `close()`: its workspaces are gone, or at least no longer its to hand out. */
export class WorkspaceManagerClosedError extends SkillboxError {
  constructor(method: string) {
    super(
      'WORKSPACE_MANAGER_CLOSED',
      `WorkspaceManager.${method}: the manager was closed (close() stopped its processes and removed the workspaces it created); create a new one with createWorkspaceManager()`,
    );
  }
}
