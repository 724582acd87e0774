import { CombinedSkillRepository } from '../repository/combine-repositories.js';
import type { FsSkillRepository } from '../repository/fs-skill-repository.js';
import type { SkillRepository } from '../repository/types.js';
import { type CliIo, CliUsageError } from './command.js';
import { warningLine } from './terminal-style.js';

/** One `--mcp` value: `[LABEL=]URL` or `[LABEL=]COMMAND [ARGUMENT]...`. */
export interface McpServerArgument {
  label?: string;
  url?: string;
  command?: string;
  args?: string[];
}

// Words of a command line, with '…' or "…" keeping spaces inside one word; no other shell syntax.
const word = /"([^"]*)"|'([^']*)'|(\S+)/g;

/** Reads one `--mcp` value; an empty one is a usage error naming the option. */
export function parseMcpServerArgument(value: string): McpServerArgument {
  const labelled = /^([a-z0-9][a-z0-9-]*)=(.*)$/s.exec(value.trim());
  const label = labelled?.[1];
  const rest = (labelled?.[2] ?? value).trim();
  if (rest === '') throw new CliUsageError('--mcp needs a command or an http(s) URL');
  const base = label === undefined ? {} : { label };
  if (/^https?:\/\//i.test(rest)) return { ...base, url: rest };
  const words = [...rest.matchAll(word)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
  const [command = '', ...args] = words;
  return { ...base, command, args };
}

/**
 * The command's repository with the `--mcp` servers added: their skills come from an
 * McpSkillRepository (verified reads), and a name the local roots already use is qualified as
 * `label:name` rather than shadowed. Collisions and skills that cannot be verified are said on
 * standard error. `close()` ends the server connections (started servers exit).
 */
export async function addMcpSkillServers(
  local: FsSkillRepository,
  values: readonly string[],
  io: CliIo,
  command: string,
): Promise<{ repository: SkillRepository; close(): Promise<void>; labels: string[] }> {
  if (values.length === 0) return { repository: local, close: async () => undefined, labels: [] };
  // Imported here: @modelcontextprotocol/sdk is needed only when --mcp is given.
  const { McpSkillRepository } = await import('../integrations/mcp/mcp-skill-repository.js');
  const token = io.env.SKILLBOX_MCP_TOKEN;
  const servers = values.map(parseMcpServerArgument).map((server) => ({
    ...server,
    ...(server.url !== undefined && token !== undefined && token !== ''
      ? { headers: { authorization: `Bearer ${token}` } }
      : {}),
  }));
  const remote = await McpSkillRepository.connect({
    servers,
    namesTaken: (await local.list()).map((skill) => skill.name),
  });
  const report = await remote.report();
  for (const warning of report.warnings) io.stderr(warningLine(io, warning));
  for (const skipped of report.skipped) io.stderr(warningLine(io, `not loading ${skipped.path}: ${skipped.reason}`));
  io.stderr(
    `skillbox ${command}: ${(await remote.list()).length} skills from MCP server${servers.length === 1 ? '' : 's'} ${remote.serverLabels().join(', ')}\n`,
  );
  return {
    repository: new CombinedSkillRepository([local, remote]),
    close: () => remote.close(),
    labels: remote.serverLabels(),
  };
}
