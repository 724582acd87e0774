/**
 * The output of a tool call as clients (a terminal, a web UI) receive it in events. A `skill_read`
 * result is a skill's body or one of its files, meant for the model: events carry the stub
 * `read: <skill>[/<path>] (<N> chars)` instead, as `skill_load` results carry `loaded: <skill>`.
 * Every other output is passed through unchanged.
 */
export function clientToolOutput(toolName: string, input: unknown, output: unknown): unknown {
  if (toolName !== 'skill_read' || typeof output !== 'string') return output;
  const { skill, path } = (typeof input === 'object' && input !== null ? input : {}) as {
    skill?: unknown;
    path?: unknown;
  };
  const target = `${typeof skill === 'string' ? skill.trim() : '?'}${typeof path === 'string' && path.trim() !== '' ? `/${path.trim()}` : ''}`;
  return `read: ${target} (${output.length} chars)`;
}
