/**
 * The session-state key that remembers an `allow-always` answer. It has no `temp:` prefix, so it
 * outlives the turn and is stored with the session; it is not per agent, because the person
 * approved a skill for the session, whichever agent asks next.
 */
export function rememberedApprovalKey(subject: string): string {
  return `approval:always:${subject}`;
}
