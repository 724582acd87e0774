import type { SkillBundle } from './skill-bundle.js';
import { SkillUploadFailedError } from './upload-errors.js';

/** The providers that host uploaded skills. */
export type UploadProvider = 'anthropic' | 'openai';

/** Where a provider's skills API is, and how to sign in to it. */
export interface ProviderConnection {
  readonly provider: UploadProvider;
  /** Without the `/v1`: `https://api.anthropic.com`, `https://api.openai.com`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Sends the requests (default the global `fetch`). */
  readonly fetch?: typeof fetch;
}

/** Base URLs of the providers' public APIs. */
export const defaultProviderBaseUrls: Readonly<Record<UploadProvider, string>> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
};

/** The environment variable each provider's key is read from when none is given. */
export const providerApiKeyVariables: Readonly<Record<UploadProvider, string>> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
};

// Anthropic's Skills API is a beta: every call names it (docs.claude.com, "Create Skill").
const anthropicSkillsBeta = 'skills-2025-10-02';
const anthropicVersion = '2023-06-01';

function headersOf(connection: ProviderConnection): Record<string, string> {
  if (connection.provider === 'anthropic')
    return {
      'x-api-key': connection.apiKey,
      'anthropic-version': anthropicVersion,
      'anthropic-beta': anthropicSkillsBeta,
    };
  return { authorization: `Bearer ${connection.apiKey}` };
}

/**
 * The multipart body both providers document for a directory upload: one `files[]` part per file,
 * its file name the path under one top-level folder named after the skill (SKILL.md at that
 * folder's root).
 */
function bundleForm(bundle: SkillBundle, fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of bundle.files)
    form.append('files[]', new Blob([file.bytes as Uint8Array<ArrayBuffer>]), `${bundle.name}/${file.path}`);
  return form;
}

/** What the provider answered: the skill's id and the version the upload made. */
export interface ProviderUploadAnswer {
  readonly id: string;
  readonly version: string;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** The provider's error message (`{ error: { message } }` for both), with the key taken out should it echo it. */
function errorMessageOf(body: string, apiKey: string): string {
  let message = body.trim().slice(0, 500);
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const nested = typeof parsed.error === 'object' ? parsed.error?.message : parsed.error;
    message = textOf(nested) ?? textOf(parsed.message) ?? message;
  } catch {
    // Not JSON: the start of the body is the message.
  }
  return apiKey === '' ? message : message.split(apiKey).join('[api key]');
}

async function post(
  connection: ProviderConnection,
  path: string,
  form: FormData,
  what: string,
): Promise<Record<string, unknown>> {
  const url = `${connection.baseUrl.replace(/\/+$/, '')}${path}`;
  let response: Response;
  try {
    response = await (connection.fetch ?? fetch)(url, { method: 'POST', headers: headersOf(connection), body: form });
  } catch (error) {
    throw new SkillUploadFailedError(
      `${what}: ${connection.provider} could not be reached at ${url}: ${(error as Error).message}`,
      undefined,
      {
        cause: error,
      },
    );
  }
  const body = await response.text();
  if (!response.ok)
    throw new SkillUploadFailedError(
      `${what}: ${connection.provider} answered HTTP ${response.status}: ${errorMessageOf(body, connection.apiKey)}`,
      response.status,
    );
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw new SkillUploadFailedError(
      `${what}: ${connection.provider} answered HTTP ${response.status} with a body that is not JSON`,
      response.status,
    );
  }
}

/**
 * Creates the skill (`POST /v1/skills`). Anthropic answers `{ id, latest_version }`, OpenAI
 * `{ id, latest_version, default_version }`.
 */
export async function createProviderSkill(
  connection: ProviderConnection,
  bundle: SkillBundle,
): Promise<ProviderUploadAnswer> {
  const what = `uploading skill "${bundle.name}"`;
  const answer = await post(
    connection,
    '/v1/skills',
    bundleForm(bundle, connection.provider === 'anthropic' ? { display_title: bundle.name } : {}),
    what,
  );
  const id = textOf(answer.id);
  const version = textOf(answer.latest_version) ?? textOf(answer.default_version);
  if (id === undefined || version === undefined)
    throw new SkillUploadFailedError(`${what}: ${connection.provider}'s answer has no skill id or version`);
  return { id, version };
}

/**
 * Uploads a new version of a skill the provider has (`POST /v1/skills/{id}/versions`); OpenAI is
 * told to make it the default version, which references without a version use.
 */
export async function createProviderSkillVersion(
  connection: ProviderConnection,
  skillId: string,
  bundle: SkillBundle,
): Promise<ProviderUploadAnswer> {
  const what = `uploading a new version of skill "${bundle.name}" (${skillId})`;
  const answer = await post(
    connection,
    `/v1/skills/${encodeURIComponent(skillId)}/versions`,
    bundleForm(bundle, connection.provider === 'openai' ? { default: 'true' } : {}),
    what,
  );
  const version = textOf(answer.version);
  if (version === undefined)
    throw new SkillUploadFailedError(`${what}: ${connection.provider}'s answer has no version`);
  return { id: skillId, version };
}
