import type { WorkspaceFiles } from '../runtime/workspace-files.js';
import { isStageableName, type StageMode } from './skill-stager.js';
import { freshMetadata, type WorkspaceMetadata } from './workspace-metadata.js';
import { workspaceFolders } from './workspace-paths.js';

/** Most entries of `skills/` taken as staged skills in a workspace the host kept no record of. */
const maxCopiesFound = 1000;

/**
 * For a workspace the host kept no record of (made by an earlier version, which kept only
 * metadata.json): every folder or link under `skills/` counts as a staged skill, so a command
 * that can reach it is judged by it, with no staging record, so staging it rebuilds the copy.
 * What metadata.json claims is not read: a command could have removed a skill from it.
 */
export async function recordOfCopiesFound(
  files: WorkspaceFiles,
  sessionId: string,
  stageMode: StageMode,
): Promise<WorkspaceMetadata> {
  const metadata = freshMetadata(sessionId, new Date());
  const found = await files
    .list(workspaceFolders.skills, { maxDepth: 1, maxEntries: maxCopiesFound })
    .catch(() => ({ entries: [] }));
  for (const entry of found.entries) {
    if (!isStageableName(entry.path)) continue;
    metadata.skills[entry.path] = {
      name: entry.path,
      rel_path: `${workspaceFolders.skills}/${entry.path}`,
      digest: '',
      mode: stageMode,
      staged_at: metadata.created_at,
    };
  }
  return metadata;
}
