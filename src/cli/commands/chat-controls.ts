import type { DeclaredSkillLoad } from '../../disclosure/declared-loads.js';
import type { LoadMode } from '../../disclosure/load-mode.js';
import { loadedSkillNames } from '../../disclosure/loaded-skills.js';
import { defaultAgentName } from '../../integrations/ai-sdk/skill-call-context.js';
import type { SkillRepository } from '../../repository/types.js';
import type { SessionKey, SessionStore } from '../../sessions/session-store.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { WorkspacePathError } from '../../workspace/errors.js';
import { resolveExecutionOptions } from '../../workspace/tools/execution-options.js';
import { requirementCheckerFor } from '../../workspace/tools/requirement-gate.js';
import type { WorkspaceManager } from '../../workspace/workspace-manager.js';
import { AttachError, type AttachedFile, attachHostFile, resolveHostPath } from './chat-attach.js';
import { saveOutputFiles } from './chat-output-files.js';
import type { ChatControls, ChatSkillEntry } from './chat-slash-commands.js';

/** What the next turn carries besides the typed message: user-invoked loads and notes on attached files. */
export interface PendingTurnInput {
  skillLoads: DeclaredSkillLoad[];
  /** Lines put before the message (each ends with a newline), or ''. */
  notes: string;
}

/** The slash commands' view of a chat, plus what the chat's turn loop takes from it. */
export interface ChatSessionControls extends ChatControls {
  /** The loads and notes queued since the last turn; taking them clears the queue. */
  takePending(): PendingTurnInput;
  /** Copies the turn's output files to `outputDir` and returns the lines telling where they went. */
  saveOutputs(names: readonly string[], outputDir: string): Promise<string>;
}

/**
 * The chat's own state between turns: the model in use, loads and attachments waiting for the
 * next message. Attached files are announced to the model in that message, since the model cannot
 * know otherwise that `work/inputs/` holds something new.
 */
export function createChatControls(options: {
  repository: SkillRepository;
  sessions: SessionStore;
  workspaces: WorkspaceManager;
  key: Required<SessionKey>;
  model: string;
  /** In `session` mode loaded skills stay; otherwise the next turn starts without them. */
  loadMode: LoadMode;
  onModelChange: (model: string) => void;
  cwd: string;
  home: string;
}): ChatSessionControls {
  const { repository, sessions, workspaces, key } = options;
  let model = options.model;
  let skillLoads: string[] = [];
  let notes: string[] = [];
  // The same check the model's view uses: requirements judged where this chat's commands run.
  const checker = requirementCheckerFor(resolveExecutionOptions({ workspaces }));
  const workspace = () => workspaces.workspace({ appName: key.appName, userId: key.userId, sessionId: key.sessionId });

  return {
    model: () => model,
    setModel(next) {
      model = next;
      options.onModelChange(next);
    },
    async skills(): Promise<ChatSkillEntry[]> {
      const summaries = await repository.list();
      const session = await sessions.getSession(key, { limit: 0 });
      const loaded = new Set(loadedSkillNames(createInMemoryStateView(session?.state ?? {}), defaultAgentName));
      return Promise.all(
        summaries.map(async (summary): Promise<ChatSkillEntry> => {
          const check = await repository
            .get(summary.name)
            .then((skill) => checker.checkSkill(skill, repository))
            .catch(() => undefined);
          return {
            summary,
            ...(loaded.has(summary.name) ? { loaded: options.loadMode === 'session' ? 'session' : 'last-turn' } : {}),
            pending: skillLoads.includes(summary.name),
            missing: check?.missingNames ?? [],
          };
        }),
      );
    },
    queueSkillLoad(name) {
      if (!skillLoads.includes(name)) skillLoads.push(name);
    },
    async attach(typed, name): Promise<AttachedFile> {
      const hostPath = resolveHostPath(typed, options.cwd, options.home);
      let attached: AttachedFile;
      try {
        attached = await attachHostFile({
          workspace: await workspace(),
          hostPath,
          ...(name !== undefined ? { name } : {}),
        });
      } catch (error) {
        // The runtime refuses a destination through a link out of the workspace (or a file the workspace owns).
        if (error instanceof WorkspacePathError) throw new AttachError(error.message);
        throw error;
      }
      notes.push(
        `[The user attached a file: ${attached.workspacePath} (${attached.sizeBytes} bytes); commands find it at $WORK_DIR/${attached.workspacePath.slice('work/'.length)}.]\n`,
      );
      return attached;
    },
    takePending() {
      const pending = { skillLoads: skillLoads.map((name) => ({ name })), notes: notes.join('') };
      skillLoads = [];
      notes = [];
      return pending;
    },
    async saveOutputs(names, outputDir) {
      let result: Awaited<ReturnType<typeof saveOutputFiles>>;
      try {
        // The working folder is the project: a `skillbox-output` committed as a link leading out is refused.
        result = await saveOutputFiles({ workspace: await workspace(), names, outputDir, project: options.cwd });
      } catch (error) {
        return `  ! output files not saved to ${outputDir}: ${(error as Error).message}\n`;
      }
      return (
        result.saved.map((path) => `saved: ${path}\n`).join('') +
        result.problems.map((problem) => `  ! not saved: ${problem}\n`).join('')
      );
    },
  };
}
