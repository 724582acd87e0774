import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SkillboxConfigError } from '../../config/config-error.js';
import { isSkillboxError } from '../../errors.js';
import { mapWithConcurrency } from '../../repository/map-with-concurrency.js';
import type { SkillContext, SkillRepository, SkillSummary } from '../../repository/types.js';
import { pageAfter } from './list-cursor.js';
import { mimeTypeOf } from './mime-type.js';
import { parseSkillUri, skillMarkdownUri, skillResourceUri } from './skill-resource-uri.js';
import type { SkillSnapshot, SkillSnapshotFile } from './skill-snapshot.js';
import { SkillSnapshotStore } from './skill-snapshot-store.js';
import { directoryMimeType, type SkillListingEntry, skillsExtensionId } from './skills-extension.js';

/** Settings of the Skills Extension on a server built by `createSkillMcpServer`. */
export interface SkillsExtensionOptions {
  repository: SkillRepository;
  skillContext?: SkillContext;
  /** List skills hidden from the model (`disable-model-invocation`) in `skills/list` too; `skills/get` serves them either way. */
  includeNonModelInvocable?: boolean;
  /** Skills per `skills/list` page (default 50); a skill's manifest is never split across pages. */
  pageSize?: number;
  /** The `ttlMs` of `skills/list` and `skills/get` results (default 60,000). */
  ttlMs?: number;
  log: (line: string) => void;
}

/** What the server can do once the extension is installed: tell the client the lists changed. */
export interface InstalledSkillsExtension {
  /** Sends `notifications/resources/list_changed` and `notifications/prompts/list_changed` (when connected). */
  sendListsChanged(): Promise<void>;
}

// Permissive request schemas: a zod failure here would become -32603, and the extension wants
// -32602 with a message saying which parameter is wrong, so parameters are checked by hand.
const listSkillsRequest = z.object({
  method: z.literal('skills/list'),
  params: z.looseObject({ cursor: z.unknown().optional() }).optional(),
});
const getSkillRequest = z.object({
  method: z.literal('skills/get'),
  params: z.looseObject({ uri: z.unknown().optional() }).optional(),
});
const readDirectoryRequest = z.object({
  method: z.literal('resources/directory/read'),
  params: z.looseObject({ uri: z.unknown().optional(), cursor: z.unknown().optional() }).optional(),
});

function invalidParams(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

function stringParam(value: unknown, name: string, method: string): string {
  if (typeof value !== 'string' || value === '')
    throw invalidParams(`${method} needs params.${name} as a non-empty string`);
  return value;
}

function optionalCursor(value: unknown, method: string): string | undefined {
  if (value === undefined) return undefined;
  return stringParam(value, 'cursor', method);
}

/** The bytes as `text` when they are UTF-8 that round-trips exactly, else as a base64 `blob`: the digest covers the bytes either way. */
function resourceContents(file: SkillSnapshotFile):
  | { uri: string; mimeType: string; text: string }
  | {
      uri: string;
      mimeType: string;
      blob: string;
    } {
  const text = file.bytes.toString('utf8');
  const mimeType = mimeTypeOf(file.path);
  return Buffer.byteLength(text, 'utf8') === file.bytes.length && Buffer.from(text, 'utf8').equals(file.bytes)
    ? { uri: file.uri, mimeType, text }
    : { uri: file.uri, mimeType, blob: file.bytes.toString('base64') };
}

/**
 * Declares the Skills Extension (SEP-2640, with `directoryRead`) and the `resources` and `prompts`
 * capabilities on `server`, and answers `skills/list`, `skills/get`, `resources/list`,
 * `resources/templates/list`, `resources/read`, `resources/directory/read`, `prompts/list` and
 * `prompts/get` from the repository. Must run before the server connects.
 */
export function installSkillsExtension(server: Server, options: SkillsExtensionOptions): InstalledSkillsExtension {
  const { repository, skillContext, log } = options;
  const pageSize = options.pageSize ?? 50;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1)
    throw new SkillboxConfigError('createSkillMcpServer', [
      { option: 'skillsPageSize', problem: `must be a whole number of skills, at least 1; got ${String(pageSize)}` },
    ]);
  const ttlMs = options.ttlMs ?? 60_000;
  // A listing filtered by who is asking must not be shared with another user's cache.
  const cacheScope = skillContext === undefined ? 'public' : 'private';
  const snapshots = new SkillSnapshotStore(repository, skillContext);

  server.registerCapabilities({
    resources: { listChanged: true },
    prompts: { listChanged: true },
    extensions: { [skillsExtensionId]: { directoryRead: true } },
  });

  const visible = async (): Promise<SkillSummary[]> => {
    const all = await repository.list(skillContext);
    snapshots.forgetAllBut(new Set(all.map((skill) => skill.name)));
    return options.includeNonModelInvocable === true ? all : all.filter((skill) => skill.modelInvocable !== false);
  };

  /** The snapshot of a skill named by a request, turning "no such skill" into -32602. */
  const snapshotFor = async (name: string, uri: string, fresh: boolean): Promise<SkillSnapshot> => {
    try {
      return await (fresh ? snapshots.fresh(name) : snapshots.current(name));
    } catch (error) {
      if (isSkillboxError(error, 'SKILL_NOT_FOUND')) throw invalidParams(`No skill is served at ${uri}`);
      if (isSkillboxError(error, 'MCP_SKILL_OVER_LIMITS')) throw new McpError(ErrorCode.InternalError, error.message);
      throw error;
    }
  };

  server.setRequestHandler(listSkillsRequest, async (request) => {
    const cursor = optionalCursor(request.params?.cursor, 'skills/list');
    const { page, nextCursor } = pageAfter(await visible(), (skill) => skill.name, cursor, pageSize);
    const entries = await mapWithConcurrency(page, 8, async (summary): Promise<SkillListingEntry | undefined> => {
      try {
        return (await snapshots.fresh(summary.name)).entry;
      } catch (error) {
        // The listing may be partial; a skill that cannot be served is left out and the reason logged.
        log(`skillbox mcp: skills/list leaves out "${summary.name}": ${(error as Error).message}`);
        return undefined;
      }
    });
    return {
      skills: entries.filter((entry) => entry !== undefined),
      ...(nextCursor === undefined ? {} : { nextCursor }),
      ttlMs,
      cacheScope,
    };
  });

  server.setRequestHandler(getSkillRequest, async (request) => {
    const uri = stringParam(request.params?.uri, 'uri', 'skills/get');
    const parsed = parseSkillUri(uri);
    if ('problem' in parsed || parsed.path !== 'SKILL.md' || uri !== skillMarkdownUri(parsed.name))
      throw invalidParams(`No skill is served at ${uri}`);
    const snapshot = await snapshotFor(parsed.name, uri, true);
    return { skill: snapshot.entry, ttlMs, cacheScope };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const parsed = parseSkillUri(uri);
    if ('problem' in parsed) throw invalidParams(`Resource ${uri} not found: it ${parsed.problem}`);
    const snapshot = await snapshotFor(parsed.name, uri, false);
    const file = snapshot.files.get(parsed.path);
    if (file === undefined || file.uri !== uri) {
      const isDirectory =
        parsed.path === '' || [...snapshot.files.keys()].some((path) => path.startsWith(`${parsed.path}/`));
      throw invalidParams(
        isDirectory
          ? `${uri} is a directory of skill "${parsed.name}"; list it with resources/directory/read`
          : `Resource ${uri} not found: skill "${parsed.name}" has no file "${parsed.path}"`,
      );
    }
    return { contents: [resourceContents(file)] };
  });

  server.setRequestHandler(readDirectoryRequest, async (request) => {
    const uri = stringParam(request.params?.uri, 'uri', 'resources/directory/read');
    // Every directory has at most 512 children, one page.
    if (request.params?.cursor !== undefined) throw invalidParams('Invalid cursor: directory listings have one page');
    const parsed = parseSkillUri(uri);
    if ('problem' in parsed) throw invalidParams(`${uri} is not a directory resource: it ${parsed.problem}`);
    const snapshot = await snapshotFor(parsed.name, uri, false);
    if (uri !== skillResourceUri(parsed.name, parsed.path)) throw invalidParams(`${uri} is not a directory resource`);
    if (snapshot.files.has(parsed.path)) throw invalidParams(`${uri} is not a directory resource`);
    const children = directoryChildren(snapshot, parsed.name, parsed.path);
    if (children.size === 0) throw invalidParams(`${uri} is not a directory resource`);
    return { resources: [...children.values()] };
  });

  installSkillResourceLists(server, visible);

  installSkillPrompts(server, repository, skillContext);

  return {
    async sendListsChanged() {
      if (server.transport === undefined) return;
      await server.sendResourceListChanged();
      await server.sendPromptListChanged();
    },
  };
}

/**
 * `prompts/list` and `prompts/get`: each skill is a prompt a user can pick (its body as the user
 * message). Prompts are chosen by the user, not the model, so skills hidden from the model are offered too.
 */
function installSkillPrompts(
  server: Server,
  repository: SkillRepository,
  skillContext: SkillContext | undefined,
): void {
  server.setRequestHandler(ListPromptsRequestSchema, async (request) => {
    const { page, nextCursor } = pageAfter(
      await repository.list(skillContext),
      (skill) => skill.name,
      request.params?.cursor,
      100,
    );
    return {
      prompts: page.map((skill) => ({ name: skill.name, description: skill.description })),
      ...(nextCursor === undefined ? {} : { nextCursor }),
    };
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const { name } = request.params;
    let skill: Awaited<ReturnType<SkillRepository['get']>>;
    try {
      skill = await repository.get(name, skillContext);
    } catch (error) {
      if (isSkillboxError(error, 'SKILL_NOT_FOUND'))
        throw invalidParams(`No prompt named "${name}": no skill has that name`);
      throw error;
    }
    return {
      description: skill.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: skill.body } }],
    };
  });
}

/**
 * `resources/list` and `resources/templates/list`. Only each skill's SKILL.md is listed: listing
 * every file would read every skill. The template covers the rest, and skills/list gives the
 * complete manifests.
 */
function installSkillResourceLists(server: Server, visible: () => Promise<SkillSummary[]>): void {
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const { page, nextCursor } = pageAfter(await visible(), (skill) => skill.name, request.params?.cursor, 100);
    return {
      resources: page.map((skill) => ({
        uri: skillMarkdownUri(skill.name),
        name: skill.name,
        description: skill.description,
        mimeType: 'text/markdown',
      })),
      ...(nextCursor === undefined ? {} : { nextCursor }),
    };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: 'skill://{skill}/{+path}',
        name: 'skill-file',
        description:
          "A file of a skill: skill://NAME/SKILL.md is its instructions, other paths its bundled files (skills/list gives each skill's files).",
      },
    ],
  }));
}

/** The entries of a directory of a skill's snapshot: its files, and its subdirectories as directory resources. */
function directoryChildren(snapshot: SkillSnapshot, name: string, path: string): Map<string, Resource> {
  const prefix = path === '' ? '' : `${path}/`;
  const children = new Map<string, Resource>();
  for (const file of snapshot.files.values()) {
    if (!file.path.startsWith(prefix)) continue;
    const [child = '', ...deeper] = file.path.slice(prefix.length).split('/');
    if (children.has(child)) continue;
    children.set(
      child,
      deeper.length === 0
        ? { uri: file.uri, name: child, mimeType: mimeTypeOf(file.path), size: file.size }
        : { uri: skillResourceUri(name, prefix + child), name: child, mimeType: directoryMimeType },
    );
  }
  return children;
}
