import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server that speaks the skill upload endpoints Anthropic and OpenAI document:
 * `POST /v1/skills` (create) and `POST /v1/skills/{id}/versions` (new version), multipart with one
 * `files[]` part per file. It records every request (method, path, headers, fields, files by the
 * name the client gave them) and answers as the provider does, or with a scripted error.
 */

export interface RecordedUpload {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Text fields of the form. */
  fields: Record<string, string>;
  /** Each `files[]` part: its file name (the path inside the bundle) and content. */
  files: Array<{ name: string; content: string }>;
  /** Names of every form part, in order (to see no part is sent under another name). */
  partNames: string[];
}

export interface SkillUploadServer {
  /** The base URL without `/v1`, as `uploadSkills({ baseUrl })` takes it. */
  baseUrl: string;
  requests: RecordedUpload[];
  /** Answer the next request with this status and error message. */
  failNext(status: number, message: string): void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startSkillUploadServer(provider: 'anthropic' | 'openai'): Promise<SkillUploadServer> {
  const requests: RecordedUpload[] = [];
  let failure: { status: number; message: string } | undefined;
  let skills = 0;
  let versions = 0;
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const form = await new Response(body, {
        headers: { 'content-type': String(request.headers['content-type'] ?? '') },
      })
        .formData()
        .catch(() => undefined);
      const recorded: RecordedUpload = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        fields: {},
        files: [],
        partNames: [],
      };
      for (const [name, value] of form?.entries() ?? []) {
        recorded.partNames.push(name);
        if (typeof value === 'string') recorded.fields[name] = value;
        else recorded.files.push({ name: value.name, content: await value.text() });
      }
      requests.push(recorded);
      const send = (status: number, payload: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(payload));
      };
      if (failure !== undefined) {
        const { status, message } = failure;
        failure = undefined;
        send(
          status,
          provider === 'anthropic'
            ? { type: 'error', error: { type: 'invalid_request_error', message } }
            : { error: { message, type: 'invalid_request_error' } },
        );
        return;
      }
      const version = provider === 'anthropic' ? String(1759178010641129 + ++versions) : String(++versions);
      if (request.method === 'POST' && recorded.path === '/v1/skills') {
        const id = `skill_${++skills}`;
        send(
          200,
          provider === 'anthropic'
            ? {
                id,
                type: 'skill',
                latest_version: version,
                display_title: recorded.fields.display_title,
                source: 'custom',
              }
            : { id, object: 'skill', latest_version: version, default_version: version },
        );
        return;
      }
      const match = /^\/v1\/skills\/([^/]+)\/versions$/.exec(recorded.path);
      if (request.method === 'POST' && match !== null) {
        send(
          200,
          provider === 'anthropic'
            ? { id: `skillver_${versions}`, type: 'skill_version', skill_id: match[1], version }
            : { id: `skillver_${versions}`, object: 'skill.version', skill_id: match[1], version },
        );
        return;
      }
      send(404, { error: { message: `no route for ${request.method} ${recorded.path}` } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    failNext(status, message) {
      failure = { status, message };
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
