import { isDeepStrictEqual } from 'node:util';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { OptionProblems } from '../../config/option-problems.js';
import { escapeUnsafeCharacters } from '../../format/escape-unsafe-characters.js';
import { modelInvocableFromFrontmatter } from '../../format/model-invocation.js';
import { parseSkillMarkdown } from '../../format/parse-skill.js';
import { compareNames } from '../../repository/compare-names.js';
import { isDocumentPath } from '../../repository/document-files.js';
import { SkillNotFoundError } from '../../repository/errors.js';
import { lookalikeKey } from '../../repository/skill-name-lookalikes.js';
import { untrustedSkillNameProblem } from '../../repository/skill-name-safety.js';
import type { RepositoryReport, Skill, SkillRepository, SkillSummary, SkippedSkill } from '../../repository/types.js';
import { McpSkillServerError, McpSkillVerificationError } from './errors.js';
import {
  connectSkillServer,
  defaultServerLabel,
  type McpSkillConnection,
  type McpSkillServer,
} from './mcp-skill-connection.js';
import { listingEntrySchema, listSkillsResultSchema, manifestFileSchema } from './skill-listing-schemas.js';
import { sha256Digest } from './skill-snapshot.js';
import { maxBytesPerSkill, maxFilesPerSkill, type SkillManifestFile } from './skills-extension.js';

/** Options of `McpSkillRepository.connect`. */
export interface McpSkillRepositoryOptions {
  /** The servers to take skills from; each must declare the Skills Extension. */
  servers: readonly McpSkillServer[];
  /**
   * Names other origins already use (the host's own filesystem skills, say): an MCP skill with one
   * of them is qualified as `label:name` too, so it never hides, or hides behind, a local skill.
   */
  namesTaken?: readonly string[];
  /**
   * The most skills taken from one server (default 1,000); a server listing more has the rest left
   * out, with a warning in `report()`. Every listed skill is a catalog line in every request.
   */
  maxSkillsPerServer?: number;
  /**
   * The most bytes of `skills/list` entries (as JSON) taken from one server, all pages together
   * (default 8 MiB); the entries past it are left out, with a warning in `report()`.
   */
  maxListingBytesPerServer?: number;
}

/** Default of `McpSkillRepositoryOptions.maxSkillsPerServer`. */
const defaultMaxSkillsPerServer = 1_000;
/** Default of `McpSkillRepositoryOptions.maxListingBytesPerServer`. */
const defaultMaxListingBytesPerServer = 8 * 1024 * 1024;

interface ListingLimits {
  skills: number;
  bytes: number;
}

function listingLimitsOf(options: McpSkillRepositoryOptions): ListingLimits {
  const problems = new OptionProblems('McpSkillRepository.connect');
  const limit = (option: 'maxSkillsPerServer' | 'maxListingBytesPerServer', fallback: number): number => {
    const value = options[option] ?? fallback;
    if (Number.isSafeInteger(value) && value > 0) return value;
    problems.add(option, `must be a positive integer; got ${JSON.stringify(value)}`);
    return fallback;
  };
  const skills = limit('maxSkillsPerServer', defaultMaxSkillsPerServer);
  const bytes = limit('maxListingBytesPerServer', defaultMaxListingBytesPerServer);
  problems.throwIfAny();
  return { skills, bytes };
}

/** A skill name two origins both use, and the names each is offered under instead. */
export interface McpSkillNameCollision {
  name: string;
  /** `label:name` (or `label:path` when one server lists the name twice), one per origin. */
  qualified: string[];
}

interface ListedSkill {
  /** The name the model sees: the listed name, or the qualified one on a collision. */
  name: string;
  listedName: string;
  connection: McpSkillConnection;
  uri: string;
  /** The skill's path on its server (`acme/billing/refunds`), from its URI. */
  skillPath: string;
  frontmatter: Record<string, unknown>;
  description: string;
  /** The manifest by path relative to the skill folder. */
  files: Map<string, SkillManifestFile>;
}

const digestPattern = /^sha256:[0-9a-f]{64}$/;
const maxPages = 10_000;

/** The path inside the skill a manifest URI names, or undefined when it is not under the skill's root. */
function relativePathOf(root: string, uri: string): string | undefined {
  if (!uri.startsWith(root)) return undefined;
  let segments: string[];
  try {
    segments = uri.slice(root.length).split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return undefined;
  return segments.join('/');
}

/** The entry as a listed skill, or why a host must not load it. */
function readEntry(
  connection: McpSkillConnection,
  raw: unknown,
): Omit<ListedSkill, 'name'> | { uri: string; problem: string } {
  const parsed = listingEntrySchema.safeParse(raw);
  if (!parsed.success)
    return {
      uri: String((raw as { uri?: unknown } | null)?.uri ?? '(no uri)'),
      problem: 'the entry lacks uri or frontmatter',
    };
  const { uri, frontmatter, resources } = parsed.data;
  if (!uri.endsWith('/SKILL.md')) return { uri, problem: 'its uri does not name a SKILL.md' };
  const root = uri.slice(0, -'SKILL.md'.length);
  const skillPath = root.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/$/, '');
  let listedName: string;
  try {
    listedName = decodeURIComponent(skillPath.split('/').at(-1) ?? '');
  } catch {
    return { uri, problem: 'its uri holds a percent escape that does not decode' };
  }
  if (resources === 'dynamic')
    return {
      uri,
      problem:
        'its files are "dynamic" (no digests), so they could not be verified; skillbox loads only listed, hashed files',
    };
  if (!Array.isArray(resources)) return { uri, problem: 'resources is neither a manifest nor "dynamic"' };
  if (frontmatter.name !== listedName)
    return {
      uri,
      problem: escapeUnsafeCharacters(
        `frontmatter name ${JSON.stringify(frontmatter.name)} is not the last segment of its uri ("${listedName}")`,
      ),
    };
  const nameProblem = untrustedSkillNameProblem(listedName);
  if (nameProblem !== undefined)
    return { uri, problem: escapeUnsafeCharacters(`its name "${listedName}" ${nameProblem}`) };
  if (typeof frontmatter.description !== 'string' || frontmatter.description.trim() === '')
    return { uri, problem: 'frontmatter has no description' };
  if (resources.length > maxFilesPerSkill)
    return { uri, problem: `its manifest lists ${resources.length} files, over the limit of ${maxFilesPerSkill}` };
  const files = new Map<string, SkillManifestFile>();
  let total = 0;
  for (const item of resources) {
    const file = manifestFileSchema.safeParse(item);
    if (!file.success) return { uri, problem: 'a manifest item lacks uri, digest or size' };
    const { uri: fileUri, digest, size } = file.data;
    if (!digestPattern.test(digest))
      return { uri, problem: `${fileUri} has digest ${JSON.stringify(digest)}, not sha256:<64 lowercase hex>` };
    if (!Number.isSafeInteger(size) || size < 0)
      return { uri, problem: `${fileUri} has size ${size}, not a byte count` };
    const path = relativePathOf(root, fileUri);
    if (path === undefined) return { uri, problem: `its manifest lists ${fileUri}, which is not inside the skill` };
    if (files.has(path)) return { uri, problem: `its manifest lists ${fileUri} twice` };
    files.set(path, { uri: fileUri, digest, size });
    total += size;
  }
  if (files.get('SKILL.md')?.uri !== uri) return { uri, problem: 'its manifest does not list its SKILL.md' };
  if (total > maxBytesPerSkill)
    return { uri, problem: `its files have ${total} bytes, over the limit of ${maxBytesPerSkill}` };
  return {
    listedName,
    connection,
    uri,
    skillPath,
    frontmatter,
    description: frontmatter.description.trim(),
    files,
  };
}

/** The frontmatter as it arrives after a trip through JSON, which is how the listing's copy came. */
function asJson(value: Record<string, unknown>): unknown {
  return JSON.parse(JSON.stringify(value));
}

function firstDifference(left: Record<string, unknown>, right: Record<string, unknown>): string {
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
  return keys.find((key) => !isDeepStrictEqual(left[key], right[key])) ?? '(order)';
}

/**
 * Skills from MCP servers that declare the Skills Extension (SEP-2640), as a SkillRepository: the
 * catalog comes from `skills/list` alone (no file is fetched until it is needed), files come
 * through `resources/read`, and every read is checked against the listing: size and SHA-256
 * digest, the SKILL.md's frontmatter against the listed one, and the path against the manifest (a
 * file the manifest does not list is refused without asking the server). Only verified bytes are
 * kept, keyed by digest. A name two origins share is offered as `label:name` for each, and the
 * collision is in `report()` and `collisions()`.
 */
export class McpSkillRepository implements SkillRepository {
  readonly #connections: McpSkillConnection[];
  readonly #namesTaken: ReadonlySet<string>;
  /** The taken names by what they look like, to refuse a server's twin of one. */
  readonly #takenLookalikes: ReadonlyMap<string, string>;
  readonly #limits: ListingLimits;
  #skills = new Map<string, ListedSkill>();
  #skipped: SkippedSkill[] = [];
  #collisions: McpSkillNameCollision[] = [];
  #warnings: string[] = [];
  /** Warnings of the last listing (a server over its caps), replaced by each listing. */
  #listingWarnings: string[] = [];
  #generation = 0;
  #refreshing: Promise<void> | undefined;
  readonly #verifiedBytes = new Map<string, Buffer>();

  private constructor(connections: McpSkillConnection[], namesTaken: readonly string[], limits: ListingLimits) {
    this.#connections = connections;
    this.#namesTaken = new Set(namesTaken);
    this.#takenLookalikes = new Map(namesTaken.map((name) => [lookalikeKey(name), name]));
    this.#limits = limits;
  }

  /** Connects to every server, checks each declared the extension, and lists their skills. */
  static async connect(options: McpSkillRepositoryOptions): Promise<McpSkillRepository> {
    if (!Array.isArray(options?.servers) || options.servers.length === 0)
      throw new McpSkillServerError('(none)', 'McpSkillRepository needs at least one server in options.servers');
    const limits = listingLimitsOf(options);
    const labels = options.servers.map((server, index) => server.label ?? defaultServerLabel(server, index));
    // Two servers under one label would make `label:name` ambiguous; number the later ones.
    const seen = new Map<string, number>();
    const unique = labels.map((label) => {
      const count = (seen.get(label) ?? 0) + 1;
      seen.set(label, count);
      return count === 1 ? label : `${label}-${count}`;
    });
    const connected = await Promise.allSettled(
      options.servers.map((server, index) => connectSkillServer(server, unique[index] as string)),
    );
    const failure = connected.find((outcome) => outcome.status === 'rejected');
    const connections = connected.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    if (failure !== undefined) {
      await Promise.all(connections.map((connection) => connection.client.close()));
      throw (failure as PromiseRejectedResult).reason;
    }
    const repository = new McpSkillRepository(connections, options.namesTaken ?? [], limits);
    try {
      await repository.refresh();
    } catch (error) {
      await repository.close();
      throw error;
    }
    for (const connection of connections) {
      // A server that says its resources changed may have added, removed or changed skills.
      connection.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        repository.refresh().catch((error: unknown) => {
          repository.#warnings.push(`re-listing after a change notification failed: ${(error as Error).message}`);
        });
      });
    }
    return repository;
  }

  /** The labels of the connected servers, in the order given. */
  serverLabels(): string[] {
    return this.#connections.map((connection) => connection.label);
  }

  /** Names two origins share, with the qualified names each is offered under. */
  collisions(): McpSkillNameCollision[] {
    return this.#collisions.map((collision) => ({ ...collision, qualified: [...collision.qualified] }));
  }

  async list(): Promise<SkillSummary[]> {
    await this.#refreshing;
    return [...this.#skills.values()].map((skill) => {
      const modelInvocable = modelInvocableFromFrontmatter(skill.frontmatter);
      return {
        name: skill.name,
        description: skill.description,
        root: `mcp:${skill.connection.label}`,
        ...(modelInvocable === false ? { modelInvocable } : {}),
      };
    });
  }

  async get(name: string): Promise<Skill> {
    const listed = this.#listed(name);
    const bytes = await this.#verifiedRead(listed, 'SKILL.md');
    let parsed: ReturnType<typeof parseSkillMarkdown>;
    try {
      parsed = parseSkillMarkdown(bytes, { file: listed.uri, folderName: listed.listedName });
    } catch (error) {
      throw new McpSkillVerificationError(
        listed.connection.label,
        listed.name,
        'SKILL.md',
        `does not parse: ${(error as Error).message}`,
      );
    }
    const served = asJson(parsed.frontmatter) as Record<string, unknown>;
    if (!isDeepStrictEqual(served, listed.frontmatter))
      throw new McpSkillVerificationError(
        listed.connection.label,
        listed.name,
        'SKILL.md',
        `its frontmatter differs from the listing (field "${firstDifference(served, listed.frontmatter)}"), so it is not loaded`,
      );
    const paths = [...listed.files.keys()].sort();
    const modelInvocable = modelInvocableFromFrontmatter(parsed.frontmatter);
    return {
      name: listed.name,
      description: parsed.description,
      root: `mcp:${listed.connection.label}`,
      ...(modelInvocable === false ? { modelInvocable } : {}),
      body: parsed.body,
      docs: paths.filter((path) => path !== 'SKILL.md' && isDocumentPath(path)),
      tools: parsed.tools,
      // A server's skill must not widen what the host allows: the extension says `allowed-tools`
      // of an MCP skill is ignored unless the user approved that grant, and skillbox has no such
      // approval step, so none is taken.
      allowedTools: [],
      ...(parsed.license === undefined ? {} : { license: parsed.license }),
      ...(parsed.compatibility === undefined ? {} : { compatibility: parsed.compatibility }),
      ...(parsed.metadata === undefined ? {} : { metadata: parsed.metadata }),
      frontmatter: parsed.frontmatter,
      warnings: parsed.warnings,
    };
  }

  async listFiles(name: string): Promise<string[]> {
    return [...this.#listed(name).files.keys()].sort();
  }

  async readFile(name: string, relativePath: string): Promise<Buffer> {
    return this.#verifiedRead(this.#listed(name), relativePath);
  }

  async report(): Promise<RepositoryReport> {
    await this.#refreshing;
    return {
      skipped: this.#skipped.map((skipped) => ({ ...skipped })),
      shadowed: [],
      warnings: [
        ...this.#collisions.map(
          (collision) =>
            `skill name "${collision.name}" is used by more than one origin; offered as ${collision.qualified.map((name) => `"${name}"`).join(', ')}`,
        ),
        ...this.#listingWarnings,
        ...this.#warnings,
      ],
    };
  }

  /** Lists every server again; skills added, removed or changed are seen from then on. */
  refresh(): Promise<void> {
    if (this.#refreshing !== undefined) return this.#refreshing;
    this.#refreshing = this.#relist().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  generation(): number {
    return this.#generation;
  }

  /** Closes every connection (a started server program exits). */
  async close(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.client.close()));
  }

  #listed(name: string): ListedSkill {
    const listed = this.#skills.get(name);
    if (listed === undefined) throw new SkillNotFoundError(name);
    return listed;
  }

  async #verifiedRead(listed: ListedSkill, relativePath: string): Promise<Buffer> {
    const { label } = listed.connection;
    const file = listed.files.get(relativePath);
    if (file === undefined)
      throw new McpSkillVerificationError(
        label,
        listed.name,
        relativePath,
        "not in the skill's manifest, so it is not read",
      );
    const cached = this.#verifiedBytes.get(file.digest);
    if (cached !== undefined) return Buffer.from(cached);
    let contents: Array<{ uri?: unknown; text?: unknown; blob?: unknown }>;
    try {
      ({ contents } = await listed.connection.client.readResource({ uri: file.uri }));
    } catch (error) {
      throw new McpSkillServerError(label, `resources/read of ${file.uri} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const content = contents.find((item) => item.uri === file.uri) ?? contents[0];
    let bytes: Buffer;
    if (typeof content?.text === 'string') bytes = Buffer.from(content.text, 'utf8');
    else if (typeof content?.blob === 'string') bytes = Buffer.from(content.blob, 'base64');
    else
      throw new McpSkillVerificationError(label, listed.name, relativePath, 'resources/read returned no text or blob');
    if (bytes.length !== file.size)
      throw new McpSkillVerificationError(
        label,
        listed.name,
        relativePath,
        `served ${bytes.length} bytes but the listing says ${file.size}; not used`,
      );
    const digest = sha256Digest(bytes);
    if (digest !== file.digest)
      throw new McpSkillVerificationError(
        label,
        listed.name,
        relativePath,
        `served bytes with digest ${digest} but the listing says ${file.digest}; not used`,
      );
    this.#verifiedBytes.set(digest, bytes);
    return Buffer.from(bytes);
  }

  async #relist(): Promise<void> {
    const listings = await Promise.all(this.#connections.map((connection) => this.#listServer(connection)));
    const skipped: SkippedSkill[] = [];
    const skip = (skill: { connection: McpSkillConnection; uri: string }, reason: string) =>
      skipped.push({ path: `mcp:${skill.connection.label} ${escapeUnsafeCharacters(skill.uri)}`, reason });
    const found: Array<Omit<ListedSkill, 'name'>> = [];
    for (const listing of listings) {
      for (const item of listing.entries) {
        if ('problem' in item) skip({ connection: listing.connection, uri: item.uri }, item.problem);
        else found.push(item);
      }
    }
    // Grouped by what a name looks like, so twins (`ace` and a Cyrillic `асе`) from two servers are
    // qualified as one name is, and neither passes for the other.
    const byLook = new Map<string, Array<Omit<ListedSkill, 'name'>>>();
    for (const skill of found) {
      const look = lookalikeKey(skill.listedName);
      const twin = this.#takenLookalikes.get(look);
      if (twin !== undefined && twin !== skill.listedName) {
        skip(
          skill,
          escapeUnsafeCharacters(`its name "${skill.listedName}" looks like "${twin}", which another origin uses`),
        );
        continue;
      }
      byLook.set(look, [...(byLook.get(look) ?? []), skill]);
    }
    const skills = new Map<string, ListedSkill>();
    // A name is given to one skill only: a later one that would get it is refused, never put in its place.
    const offer = (skill: Omit<ListedSkill, 'name'>, name: string): boolean => {
      if (skills.has(name) || (name !== skill.listedName && this.#namesTaken.has(name))) {
        skip(skill, escapeUnsafeCharacters(`it would be offered as "${name}", which another skill already has`));
        return false;
      }
      skills.set(name, { ...skill, name });
      return true;
    };
    const collisions: McpSkillNameCollision[] = [];
    for (const group of byLook.values()) {
      const first = group[0] as Omit<ListedSkill, 'name'>;
      if (group.length === 1 && !this.#namesTaken.has(first.listedName)) {
        offer(first, first.listedName);
        continue;
      }
      const perServer = new Map<string, number>();
      for (const skill of group)
        perServer.set(skill.connection.label, (perServer.get(skill.connection.label) ?? 0) + 1);
      const qualified: string[] = [];
      for (const skill of group) {
        const label = skill.connection.label;
        const qualifiedName =
          (perServer.get(label) ?? 0) > 1
            ? `${label}:${skill.skillPath.replaceAll('/', '.')}`
            : `${label}:${skill.listedName}`;
        if (offer(skill, qualifiedName)) qualified.push(qualifiedName);
      }
      const name = group.map((skill) => skill.listedName).sort(compareNames)[0] as string;
      collisions.push({ name, qualified });
    }
    const sorted = new Map([...skills.entries()].sort(([left], [right]) => compareNames(left, right)));
    const before = JSON.stringify(
      [...this.#skills.values()].map((skill) => [skill.name, skill.uri, [...skill.files.values()]]),
    );
    const after = JSON.stringify(
      [...sorted.values()].map((skill) => [skill.name, skill.uri, [...skill.files.values()]]),
    );
    this.#skills = sorted;
    this.#skipped = skipped;
    this.#collisions = collisions.sort((left, right) => compareNames(left.name, right.name));
    this.#listingWarnings = listings.flatMap((listing) => (listing.warning === undefined ? [] : [listing.warning]));
    if (before !== after) this.#generation += 1;
  }

  async #listServer(connection: McpSkillConnection): Promise<{
    connection: McpSkillConnection;
    entries: Array<Omit<ListedSkill, 'name'> | { uri: string; problem: string }>;
    /** Set when the server listed more than its caps allow; the entries stop there. */
    warning?: string;
  }> {
    const entries: Array<Omit<ListedSkill, 'name'> | { uri: string; problem: string }> = [];
    const limits = this.#limits;
    let bytes = 0;
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page += 1) {
      let result: { skills: unknown[]; nextCursor?: string | undefined };
      try {
        result = await connection.client.request(
          { method: 'skills/list', params: cursor === undefined ? {} : { cursor } },
          listSkillsResultSchema,
        );
      } catch (error) {
        throw new McpSkillServerError(connection.label, `skills/list failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      for (const raw of result.skills) {
        // Every entry counts, refused ones too: a server's listing is what the host holds and reads.
        if (entries.length >= limits.skills)
          return {
            connection,
            entries,
            warning: `MCP server "${connection.label}" lists more than ${limits.skills} skills (maxSkillsPerServer); the rest are not offered`,
          };
        bytes += Buffer.byteLength(JSON.stringify(raw) ?? '');
        if (bytes > limits.bytes)
          return {
            connection,
            entries,
            warning: `MCP server "${connection.label}" lists more than ${limits.bytes} bytes of skills (maxListingBytesPerServer); the rest are not offered`,
          };
        entries.push(readEntry(connection, raw));
      }
      cursor = result.nextCursor;
      if (cursor === undefined) return { connection, entries };
      // A server that hands back a cursor it gave before would be listed forever.
      if (cursors.has(cursor))
        throw new McpSkillServerError(connection.label, 'skills/list returned a cursor it had already returned');
      cursors.add(cursor);
    }
    throw new McpSkillServerError(connection.label, `skills/list did not end within ${maxPages} pages`);
  }
}
