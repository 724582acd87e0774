import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions API, for tests that
 * must go through a real provider client (the CLI, `@ai-sdk/openai-compatible`). Each request is
 * answered by the next scripted response; every request body is recorded so tests can assert the
 * exact messages and tools the model received.
 */

export interface ScriptedToolCall {
  /** Defaults to `call_<request>_<index>`. */
  id?: string;
  name: string;
  /** An object is sent as its JSON text; a string is sent as is (to script malformed arguments). */
  arguments: Record<string, unknown> | string;
}

export interface ScriptedResponse {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Token usage reported for this response; defaults to counts derived from the request size. */
  usage?: { promptTokens: number; completionTokens: number };
  /** Answer with this HTTP status and an OpenAI-style error body instead of a completion. */
  errorStatus?: number;
  errorMessage?: string;
  /** Streamed answers only: wait this long after the first text delta before the rest (a slow model step a test can interrupt). */
  delayMs?: number;
}

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body text, byte for byte as the client sent it. */
  rawBody: string;
  body: {
    model?: string;
    stream?: boolean;
    messages: Array<Record<string, unknown>>;
    tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
    [key: string]: unknown;
  };
}

export type Script = ScriptedResponse[] | ((request: RecordedRequest, index: number) => ScriptedResponse);

export interface ScriptedOpenAiServer {
  /** Base URL including `/v1`, as `OPENAI_BASE_URL` expects. */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startScriptedOpenAiServer(script: Script): Promise<ScriptedOpenAiServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      sendError(response, 500, error instanceof Error ? error.message : String(error));
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    const path = request.url ?? '/';
    if (request.method !== 'POST' || !path.endsWith('/chat/completions')) {
      sendError(response, 404, `scripted server: no route for ${request.method} ${path}`);
      return;
    }
    const recorded: RecordedRequest = {
      path,
      headers: request.headers,
      rawBody,
      body: JSON.parse(rawBody) as RecordedRequest['body'],
    };
    const index = requests.length;
    requests.push(recorded);
    const scripted = typeof script === 'function' ? script(recorded, index) : script[index];
    if (scripted === undefined) {
      sendError(response, 500, `scripted server: no response scripted for request ${index + 1}`);
      return;
    }
    if (scripted.errorStatus !== undefined) {
      sendError(response, scripted.errorStatus, scripted.errorMessage ?? 'scripted error');
      return;
    }
    const toolCalls = (scripted.toolCalls ?? []).map((call, callIndex) => ({
      id: call.id ?? `call_${index + 1}_${callIndex + 1}`,
      type: 'function' as const,
      function: {
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      },
    }));
    const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    const usage = scripted.usage ?? {
      promptTokens: Math.ceil(rawBody.length / 4),
      completionTokens: Math.ceil((scripted.text ?? '').length / 4) + toolCalls.length * 10,
    };
    const usageBody = {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
    };
    const id = `chatcmpl-${index + 1}`;
    const created = 1_700_000_000 + index;
    const model = recorded.body.model ?? 'scripted';

    if (recorded.body.stream !== true) {
      const message: Record<string, unknown> = { role: 'assistant', content: scripted.text ?? null };
      if (toolCalls.length > 0) message.tool_calls = toolCalls;
      sendJson(response, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message, finish_reason: finishReason }],
        usage: usageBody,
      });
      return;
    }

    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    response.write(chunk({ role: 'assistant', content: '' }, null));
    // Several deltas per text so clients' streaming paths are exercised, not a single blob.
    for (const [pieceIndex, piece] of splitText(scripted.text ?? '').entries()) {
      response.write(chunk({ content: piece }, null));
      if (pieceIndex === 0 && scripted.delayMs !== undefined)
        await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
    }
    toolCalls.forEach((call, callIndex) => {
      const half = Math.ceil(call.function.arguments.length / 2);
      response.write(
        chunk(
          {
            tool_calls: [
              {
                index: callIndex,
                id: call.id,
                type: 'function',
                function: { name: call.function.name, arguments: call.function.arguments.slice(0, half) },
              },
            ],
          },
          null,
        ),
      );
      response.write(
        chunk(
          { tool_calls: [{ index: callIndex, function: { arguments: call.function.arguments.slice(half) } }] },
          null,
        ),
      );
    });
    response.write(chunk({}, finishReason, { usage: usageBody }));
    response.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function splitText(text: string): string[] {
  if (text === '') return [];
  const pieces: string[] = [];
  const size = Math.max(1, Math.ceil(text.length / 3));
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function sendError(response: ServerResponse, status: number, message: string): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  sendJson(response, status, { error: { message, type: 'scripted_error', code: null } });
}
