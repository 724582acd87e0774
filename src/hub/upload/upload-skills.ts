import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { throwConfigError } from '../../config/option-problems.js';
import { verifyInstalled } from '../install/installer.js';
import { deniedByDenyScripts, type ScanFindingKind, type SkillScanReport } from '../scan/scan-finding.js';
import { scanSkillFolders } from '../scan/scan-folder.js';
import {
  createProviderSkill,
  createProviderSkillVersion,
  defaultProviderBaseUrls,
  type ProviderConnection,
  providerApiKeyVariables,
  type UploadProvider,
} from './provider-endpoints.js';
import { readSkillBundle, type SkillBundle } from './skill-bundle.js';
import { SkillUploadRefusedError } from './upload-errors.js';
import { readUploadRecord, type UploadRecord, writeUploadRecord } from './upload-record.js';

/** Options of `uploadSkills`: which skills (a folder or a lock), which provider, where the record is kept. */
export interface UploadSkillsOptions {
  provider: UploadProvider;
  /** A folder of skill folders (each with a SKILL.md), or one skill folder. Give this or `lock`. */
  root?: string;
  /** `skills-lock.json`: its skills, each checked against the lock first (`skillbox verify`). Give this or `root`. */
  lock?: string;
  /** Where the lock's skills are installed (default `.agents/skills` beside the lock). */
  target?: string;
  /** Only these skills (by folder name); default all. */
  skills?: readonly string[];
  /** Default the provider's variable: `ANTHROPIC_API_KEY` or `OPENAI_API_KEY`. Never written anywhere. */
  apiKey?: string;
  /** Default `https://api.anthropic.com` / `https://api.openai.com`. */
  baseUrl?: string;
  /** Default `.skillbox/uploads.json` beside the lock (or beside `root`). */
  recordFile?: string;
  /** Also refuse skills whose scan finds scripts, executables, binaries or files of unknown type. */
  denyScripts?: boolean;
  /** Told each skill's outcome as it happens. */
  onProgress?: (skill: UploadedSkill) => void;
  /** Sends the requests (default the global `fetch`). */
  fetch?: typeof fetch;
}

/** One skill as the provider has it now. */
export interface UploadedSkill {
  name: string;
  provider: UploadProvider;
  /** `created` (first upload), `new-version` (content changed), `unchanged` (nothing sent). */
  status: 'created' | 'new-version' | 'unchanged';
  skillId: string;
  version: string;
  /** skillbox's digest of the uploaded files. */
  digest: string;
  /**
   * The AI SDK's `ProviderReference` (`{ anthropic: 'skill_...' }`), as `uploadSkill` returns it:
   * pass it in `providerOptions.anthropic.container.skills` (docs/upload.md).
   */
  providerReference: Record<string, string>;
}

/** What `uploadSkills` did, and where it recorded it. */
export interface UploadSkillsResult {
  recordFile: string;
  skills: UploadedSkill[];
}

// Refused whatever the options: a provider cannot receive a link or a device as the folder has it,
// and text with hidden or reordered characters says something other than what a reviewer reads.
const alwaysRefused: ReadonlySet<ScanFindingKind> = new Set([
  'link',
  'special-file',
  'invisible-unicode',
  'bidi-unicode',
]);

async function isSkillFolder(folder: string): Promise<boolean> {
  return (await lstat(join(folder, 'SKILL.md')).catch(() => undefined))?.isFile() === true;
}

/** The skill folders of `root`: itself when it is one, else its children that are. */
async function foldersUnder(root: string): Promise<Map<string, string>> {
  if (await isSkillFolder(root)) return new Map([[basename(root), root]]);
  const folders = new Map<string, string>();
  for (const entry of (await readdir(root, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1)))
    if (entry.isDirectory() && (await isSkillFolder(join(root, entry.name))))
      folders.set(entry.name, join(root, entry.name));
  return folders;
}

interface Candidates {
  folders: Map<string, string>;
  recordFile: string;
  /** Refusals found before any scan (a skill that differs from its lock). */
  refusals: string[];
}

async function candidatesOf(options: UploadSkillsOptions): Promise<Candidates> {
  if (options.lock !== undefined) {
    const lockFile = resolve(options.lock);
    const project = dirname(lockFile);
    const target = resolve(project, options.target ?? join('.agents', 'skills'));
    const report = await verifyInstalled({ cwd: project, lockFile, target });
    const folders = new Map<string, string>();
    const refusals: string[] = [];
    for (const skill of report.skills) {
      if (skill.differences.length > 0)
        refusals.push(`skill "${skill.name}" differs from ${lockFile}: ${skill.differences.join('; ')}`);
      else folders.set(skill.name, join(target, skill.name));
    }
    return { folders, recordFile: join(project, '.skillbox', 'uploads.json'), refusals };
  }
  const root = resolve(options.root as string);
  return {
    folders: await foldersUnder(root),
    recordFile: join(dirname(root), '.skillbox', 'uploads.json'),
    refusals: [],
  };
}

function refusalsOf(report: SkillScanReport, name: string, denyScripts: boolean): string[] {
  return report.findings
    .filter((finding) => alwaysRefused.has(finding.kind) || (denyScripts && deniedByDenyScripts.has(finding.kind)))
    .map((finding) => `skill "${name}": the scan found ${finding.kind} in ${finding.path} (${finding.detail})`);
}

function checkOptions(options: UploadSkillsOptions): void {
  if (options.provider !== 'anthropic' && options.provider !== 'openai')
    throwConfigError(
      'uploadSkills',
      'provider',
      `must be "anthropic" or "openai"; got ${JSON.stringify(options.provider)}`,
    );
  if ((options.root === undefined) === (options.lock === undefined))
    throwConfigError(
      'uploadSkills',
      options.root === undefined ? 'root' : 'lock',
      'give either root (a skills folder) or lock (skills-lock.json), not both or neither',
    );
}

/**
 * Uploads the skills of a folder or of `skills-lock.json` to a provider that runs them in its own
 * containers (Anthropic's and OpenAI's `POST /v1/skills`), the way the AI SDK's `uploadSkill`
 * does. Every skill is checked before anything is sent: the scan's refusals (links, special files,
 * hidden or bidirectional Unicode; with `denyScripts` also scripts and binaries) and, with a lock,
 * any difference from it refuse the whole upload. A skill whose digest the record already holds
 * for this provider and endpoint is not sent again; a changed one is sent as a new version.
 */
export async function uploadSkills(options: UploadSkillsOptions): Promise<UploadSkillsResult> {
  checkOptions(options);
  const provider = options.provider;
  const apiKey = options.apiKey ?? process.env[providerApiKeyVariables[provider]] ?? '';
  if (apiKey === '')
    throwConfigError('uploadSkills', 'apiKey', `is required: pass it or set ${providerApiKeyVariables[provider]}`);
  const candidates = await candidatesOf(options);
  const wanted = options.skills ?? [...candidates.folders.keys()];
  const refusals = [...candidates.refusals];
  for (const name of wanted)
    if (!candidates.folders.has(name))
      refusals.push(`skill "${name}" is not a skill folder of ${options.root ?? options.lock}`);
  const bundles: SkillBundle[] = [];
  for (const name of wanted) {
    const folder = candidates.folders.get(name);
    if (folder === undefined) continue;
    for (const report of await scanSkillFolders(folder))
      refusals.push(...refusalsOf(report, name, options.denyScripts === true));
  }
  if (refusals.length > 0) throw new SkillUploadRefusedError(`nothing was uploaded: ${refusals.join('; ')}`);
  for (const name of wanted) bundles.push(await readSkillBundle(name, candidates.folders.get(name) as string));

  const recordFile = options.recordFile === undefined ? candidates.recordFile : resolve(options.recordFile);
  let record: UploadRecord = await readUploadRecord(recordFile);
  const connection: ProviderConnection = {
    provider,
    baseUrl: options.baseUrl ?? defaultProviderBaseUrls[provider],
    apiKey,
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
  };
  const endpoint = connection.baseUrl.replace(/\/+$/, '');
  const uploaded: UploadedSkill[] = [];
  for (const bundle of bundles) {
    const known = record.skills[bundle.name]?.[provider];
    const sameEndpoint = known !== undefined && known.endpoint === endpoint;
    let outcome: UploadedSkill;
    if (sameEndpoint && known.digest === bundle.digest) {
      outcome = {
        name: bundle.name,
        provider,
        status: 'unchanged',
        skillId: known.id,
        version: known.version,
        digest: known.digest,
        providerReference: { [provider]: known.id },
      };
    } else {
      const answer = sameEndpoint
        ? await createProviderSkillVersion(connection, known.id, bundle)
        : await createProviderSkill(connection, bundle);
      outcome = {
        name: bundle.name,
        provider,
        status: sameEndpoint ? 'new-version' : 'created',
        skillId: answer.id,
        version: answer.version,
        digest: bundle.digest,
        providerReference: { [provider]: answer.id },
      };
      // Written after each upload, so a later failure does not make this one upload again.
      record = {
        version: 1,
        skills: {
          ...record.skills,
          [bundle.name]: {
            ...record.skills[bundle.name],
            [provider]: {
              id: answer.id,
              version: answer.version,
              digest: bundle.digest,
              endpoint,
              uploadedAt: new Date().toISOString(),
            },
          },
        },
      };
      await writeUploadRecord(recordFile, record);
    }
    uploaded.push(outcome);
    options.onProgress?.(outcome);
  }
  return { recordFile, skills: uploaded };
}
