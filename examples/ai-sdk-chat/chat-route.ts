// A chat route for `useChat` (AI SDK UI): a fetch-style handler, as a Next.js App Router
// `app/api/chat/route.ts` exports it (`export const POST = createChatRoute(agent)`), or any server
// that speaks Request/Response (Hono, Bun, Deno, node:http with a small adapter).
//
//   import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
//   import { createFsSkillRepository, createRuntime } from 'skillbox';
//   import { createSkillAgent } from 'skillbox/ai-sdk';
//
//   const agent = createSkillAgent({
//     model: createOpenAICompatible({ name: 'openai', baseURL: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY }).chatModel('gpt-4o-mini'),
//     repository: await createFsSkillRepository({ roots: ['./skills'] }),
//     runtime: createRuntime({ kind: 'auto' }),
//     loadMode: 'session',
//   });
//   export const POST = createChatRoute(agent, { userOf: async (request) => (await auth(request)).userId });
//
// On the client: `useChat()` (it posts to /api/chat with DefaultChatTransport).
import { createAgentUIStreamResponse, type UIMessage } from 'ai';
import type { SkillAgent } from 'skillbox/ai-sdk';

export interface ChatRouteOptions {
  /** Who is calling: from your session cookie or token. Every user's sessions are their own. */
  userOf: (request: Request) => string | Promise<string>;
}

export function createChatRoute(agent: Pick<SkillAgent, 'asAiSdkAgent'>, options: ChatRouteOptions): (request: Request) => Promise<Response> {
  const aiSdkAgent = agent.asAiSdkAgent();
  return async (request) => {
    // useChat sends the chat id and the whole transcript; the chat id names the skillbox session,
    // which keeps the loaded skills and the workspace between requests.
    const { id, messages } = (await request.json()) as { id: string; messages: UIMessage[] };
    const userId = await options.userOf(request);
    return createAgentUIStreamResponse({ agent: aiSdkAgent, uiMessages: messages, options: { userId, sessionId: id }, abortSignal: request.signal });
  };
}
