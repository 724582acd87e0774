import { type Agent, generateText, streamText, type Tool } from 'ai';
import { SkillboxConfigError } from '../../config/config-error.js';
import { type AgentSetup, openAgentCall, sessionKeyOf } from './agent-call.js';
import type { SkillAgentCallOptions } from './skill-agent.js';

/**
 * A skill agent as an AI SDK `Agent`: the caller owns the transcript (it sends the messages, as
 * `useChat` does); the session keeps the disclosure state and the workspace, and each call names
 * its session in `options`.
 */
export function toAiSdkAgent(setup: AgentSetup): Agent<SkillAgentCallOptions, Record<string, Tool>> {
  return {
    version: 'agent-v1',
    id: setup.name,
    tools: { ...setup.toolkits.tools, ...setup.customTools },
    generate: async (parameters) =>
      generateText((await agentCallSettings(setup, parameters)) as Parameters<typeof generateText>[0]) as never,
    stream: async (parameters) =>
      streamText((await agentCallSettings(setup, parameters)) as Parameters<typeof streamText>[0]) as never,
  };
}

/**
 * The settings of one AI SDK `Agent` call: the caller's (prompt or messages, abortSignal,
 * callbacks) over the agent's. The call's state is stored before the caller's finish callback
 * runs, so its next call sees it: ai 7 calls `onEnd` (`onFinish` is its old name), ai 6 `onFinish`.
 */
async function agentCallSettings(setup: AgentSetup, parameters: object): Promise<Record<string, unknown>> {
  const {
    options: callOptions,
    onFinish,
    onEnd,
    ...rest
  } = parameters as {
    options?: SkillAgentCallOptions;
    onFinish?: (event: unknown) => unknown;
    onEnd?: (event: unknown) => unknown;
  };
  if (typeof callOptions !== 'object' || callOptions === null)
    throw new SkillboxConfigError('SkillAgent.asAiSdkAgent', [
      { option: 'options', problem: 'must be given to an AI SDK call of a skill agent: { userId, sessionId }' },
    ]);
  const call = await openAgentCall(setup, {
    key: sessionKeyOf(callOptions, setup.appName, 'SkillAgent.asAiSdkAgent', 'options.'),
    skillContext: callOptions.context,
    skillLoads: callOptions.skillLoads,
    readEvents: false,
  });
  const callerFinish = onEnd ?? onFinish;
  const finish = async (event: unknown) => {
    const delta = call.stateDelta();
    const events = [
      ...(Object.keys(delta).length > 0 ? [{ author: setup.name, type: 'state' as const, stateDelta: delta }] : []),
      ...call.approvalEvents,
    ];
    if (events.length > 0) await call.append(events);
    if (callerFinish !== undefined) await callerFinish(event);
  };
  return { ...setup.callSettings, ...rest, ...call.modelSettings(), onFinish: finish, onEnd: finish };
}
