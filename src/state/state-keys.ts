/**
 * Session-state keys of progressive disclosure, spelled as docs/progressive-disclosure.md lists them;
 * the spelling is shared with a Go implementation, so state written by either reads the same in the other. Values are
 * strings: "1" for loaded, "*" or a
 * JSON array for selections, a JSON array of names (oldest to newest touch) for the order.
 */

const prefix = 'temp:skill:';

/** Bytes Go's `url.PathEscape` leaves as they are: unreserved characters and `$&+:=@`. */
const pathSegmentSafe = /^[A-Za-z0-9\-_.~$&+:=@]$/;

/**
 * The agent name as Go's `url.PathEscape` writes it (docs/progressive-disclosure.md), so state
 * written by a Go implementation and this one reads the same in the other: every UTF-8 byte except the
 * unreserved characters and `$&+:=@` becomes `%XX` with upper-case hex; a space is `%20`. Agent names
 * may hold `/` (sub-agents such as `agent/child`); escaping it keeps a parent's key prefix from
 * matching its children's keys.
 */
export function agentSegment(agentName: string): string {
  let escaped = '';
  for (const character of agentName.trim()) {
    if (pathSegmentSafe.test(character)) {
      escaped += character;
      continue;
    }
    for (const byte of Buffer.from(character, 'utf8'))
      escaped += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return escaped;
}

export function loadedKey(agentName: string, skillName: string): string {
  return `${loadedPrefix(agentName)}${skillName.trim()}`;
}

export function docsKey(agentName: string, skillName: string): string {
  return `${docsPrefix(agentName)}${skillName.trim()}`;
}

export function toolsKey(agentName: string, skillName: string): string {
  return `${toolsPrefix(agentName)}${skillName.trim()}`;
}

export function loadedOrderKey(agentName: string): string {
  return `${prefix}loaded_order_by_agent:${agentSegment(agentName)}`;
}

export function loadedPrefix(agentName: string): string {
  return `${prefix}loaded_by_agent:${agentSegment(agentName)}/`;
}

export function docsPrefix(agentName: string): string {
  return `${prefix}docs_by_agent:${agentSegment(agentName)}/`;
}

export function toolsPrefix(agentName: string): string {
  return `${prefix}tools_by_agent:${agentSegment(agentName)}/`;
}

/**
 * "1" for a skill loaded in the current turn: it stays runnable (skill_run, workspace_exec staging)
 * until the turn ends even when `once` mode took its content out of later requests. Not among
 * agentKeyPrefixes, so unloading a skill leaves its activation; a new turn clears it.
 */
export function activatedKey(agentName: string, skillName: string): string {
  return `${activatedPrefix(agentName)}${skillName.trim()}`;
}

export function activatedPrefix(agentName: string): string {
  return `${prefix}activated_by_agent:${agentSegment(agentName)}/`;
}

/** Every disclosure key of one agent starts with one of these. */
export function agentKeyPrefixes(agentName: string): string[] {
  return [loadedPrefix(agentName), docsPrefix(agentName), toolsPrefix(agentName), loadedOrderKey(agentName)];
}

/** The selection marker meaning "all docs" / "all tools". */
export const selectAll = '*';
