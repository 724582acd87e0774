// What the inspector's JSON answers hold: the server builds them (skills-view.ts, sessions-view.ts)
// and the page reads them (ui/inspector-app.ts). Declared once, here, without imports, so the
// browser code can use the same types without Node's.

/** One skill as the inspector shows it: what the model sees of it, what it costs, what is wrong with it. */
export interface InspectedSkill {
  name: string;
  description: string;
  /** The SKILL.md's folder on the host, or undefined for a skill from elsewhere (code, MCP). */
  path?: string;
  root?: string;
  /** Where it came from: a folder root, a URL root, an MCP server. */
  source: SkillSource;
  /** Set when a skills-lock.json governs its folder: its entry and whether the folder matches it. */
  lock?: SkillLockStatus;
  docs: string[];
  tools: string[];
  /** Whether the model sees it in the catalog, and why not. */
  modelVisible: boolean;
  hiddenReason?: string;
  /** o200k_base tokens: its catalog entry, its body, its docs together. */
  tokens: { catalog: number; body: number; docs: number };
  /** Problems lenient loading worked around (the skill still loads). */
  lenientWarnings: string[];
  /** The specification's strict verdict (`skillbox validate`); undefined for a skill without a folder. */
  strict?: { valid: boolean; errors: string[]; warnings: string[] };
  /** What the skill declares it needs (`metadata.requires`), if anything. */
  requires?: { programs: string[]; anyPrograms: string[]; env: string[]; os: string[]; network?: boolean };
  /** Whether what it declares is there where its commands run (as `skillbox list` checks it). */
  requirementCheck?: { met: boolean; missing: string[] };
}

/** Where a skill came from, as the page names it. */
export interface SkillSource {
  /** A folder root, an http(s) URL root (downloaded into the cache), an MCP server, or code (no root). */
  kind: 'folder' | 'url' | 'mcp' | 'code';
  /** The root's folder, the URL as shown (no credentials), the server's label. */
  label: string;
}

/** A skill installed under a skills-lock.json: its entry and whether the folder still matches it. */
export interface SkillLockStatus {
  lockFile: string;
  /** The lock's key for the folder; undefined when the lock has no entry for it. */
  entry?: string;
  source?: string;
  ref?: string;
  /** The folder is what was installed (the check `skillbox list --locked` makes before handing a skill out). */
  matches: boolean;
  /** Each way it differs, one per line (as `skillbox verify` says them). */
  differences: string[];
}

/** Every skill of a repository with its figures, and what the scan left out. */
export interface SkillsView {
  skills: InspectedSkill[];
  skipped: Array<{ path: string; reason: string }>;
  shadowed: Array<{ name: string; path: string; winner: string }>;
  warnings: string[];
  totals: { catalog: number; bodies: number; bodiesAndDocs: number };
  /** The runtime kind the requirements were checked in; absent when no skill declares any. */
  requirementsCheckedIn?: string;
}

/** The catalog exactly as the model receives it under a budget, with what the budget did. */
export interface CatalogView {
  text: string;
  tokens: number;
  described: number;
  total: number;
  shortened: boolean;
  overBudget: boolean;
}

/** One thing that happened in a session, as a line of its timeline. */
export interface TimelineItem {
  /** The event's 1-based position in the session. */
  version: number;
  timestamp: number;
  author: string;
  kind:
    | 'user'
    | 'model-request'
    | 'assistant'
    | 'tool-call'
    | 'tool-result'
    | 'approval-request'
    | 'approval-decision'
    | 'load'
    | 'unload'
    | 'state'
    | 'error'
    | 'other';
  /** What a person reads first: the text, the tool's name, the skill loaded. */
  title: string;
  /** The rest (a tool's input or output, a state change), as JSON text where it is data. */
  detail?: string;
  /** Set on approval entries: what ties a request to its answer. */
  approval?: ApprovalLink;
}

/**
 * How an approval request and its answer find each other. Both carry the approval's id (skillbox's
 * request id, or the AI SDK's approvalId) and the tool call it is about; once the whole timeline is
 * known (approval-links.ts), a request says where it was answered or that it is still waiting, and an
 * answer says where its request is.
 */
export interface ApprovalLink {
  /** `skillbox:<request id>` for the runner's approval events, `ai-sdk:<approvalId>` for the SDK's parts. */
  id: string;
  toolCallId?: string;
  /** On a request: the version of the event holding its answer. */
  answeredIn?: number;
  /** On a request: the answer in a few words (`deny by a person`). */
  answer?: string;
  /** On a request: nobody has answered it (yet). */
  waiting?: boolean;
  /** On an answer: the version of the event holding its request. */
  requestIn?: number;
}

/** One command a `skill_run` or `workspace_exec` call ran, from its call and its result. */
export interface RunView {
  /** The version of the event holding the result. */
  version: number;
  tool: string;
  skill?: string;
  command: string;
  exitCode?: number;
  timedOut?: boolean;
  durationMs?: number;
  stdout?: string;
  stderr?: string;
  outputFiles: Array<{ name: string; mimeType?: string; sizeBytes?: number; content?: string; truncated?: boolean }>;
  /** The output files the run saved to the artifact store (`save_as_artifacts`): name and version. */
  artifactFiles: Array<{ name: string; version: number }>;
  warnings: string[];
  limitsHit: string[];
  /** Set when the call failed before a result (a refusal, an error): its message. */
  error?: string;
}

/** A session with its events turned into a timeline, and the commands its calls ran. */
export interface SessionView {
  appName: string;
  userId: string;
  sessionId: string;
  /** Events in the session (the version of its last event). */
  version: number;
  createdAt: number;
  updatedAt: number;
  timeline: TimelineItem[];
  runs: RunView[];
  /** The session's state after its last event. */
  state: Record<string, string>;
  /** Whether the server can serve the runs' output files (it was given the workspaces folder). */
  outputFilesServed?: boolean;
  /** Whether the server can serve the artifacts the runs saved (it knows the artifact store's folder). */
  artifactsServed?: boolean;
}

/** A session as the sessions list shows it: its identity, size and times. */
export type SessionListEntry = Omit<
  SessionView,
  'timeline' | 'runs' | 'state' | 'outputFilesServed' | 'artifactsServed'
>;

/** What `/api/sessions` answers: whose sessions (user and app), whether a store was given, and the sessions. */
export interface SessionsListView {
  store: boolean;
  user: string;
  app: string;
  sessions: SessionListEntry[];
}
