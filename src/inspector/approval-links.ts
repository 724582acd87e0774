// Import-free but for types: the page (ui/inspector-app.ts) runs it again after appending a live
// session's new events, so an answer that arrives later turns its request from waiting to answered.
import type { TimelineItem } from './inspector-views.js';

/**
 * The timeline with each approval request linked to its answer and each answer to its request (by
 * the approval's id), and every request without an answer marked as waiting. Other items are kept as
 * they are; the items are copied, not changed.
 */
export function linkApprovals(timeline: readonly TimelineItem[]): TimelineItem[] {
  const requests = new Map<string, TimelineItem>();
  const answers = new Map<string, TimelineItem>();
  for (const item of timeline) {
    if (item.approval === undefined) continue;
    const seen = item.kind === 'approval-request' ? requests : item.kind === 'approval-decision' ? answers : undefined;
    // The first of each counts: a decision stored twice (a retried append) does not move the link.
    if (seen !== undefined && !seen.has(item.approval.id)) seen.set(item.approval.id, item);
  }
  return timeline.map((item) => {
    if (item.approval === undefined) return item;
    const { id, toolCallId } = item.approval;
    const base = { id, ...(toolCallId === undefined ? {} : { toolCallId }) };
    if (item.kind === 'approval-request') {
      const answer = answers.get(id);
      return {
        ...item,
        approval:
          answer === undefined
            ? { ...base, waiting: true }
            : { ...base, answeredIn: answer.version, answer: answer.title },
      };
    }
    if (item.kind === 'approval-decision') {
      const request = requests.get(id);
      return { ...item, approval: request === undefined ? base : { ...base, requestIn: request.version } };
    }
    return item;
  });
}
