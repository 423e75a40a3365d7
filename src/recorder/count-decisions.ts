import type { Decision } from '../core/decision.js';
import type { RecordedCounts } from './request-record.js';

/** How many messages each kind of decision concerned (a decision naming none counts as one). */
export function countDecisions(decisions: readonly Decision[]): RecordedCounts {
  const counts = { decisions: decisions.length, dropped: 0, offloaded: 0, compacted: 0, truncated: 0 };
  for (const decision of decisions) {
    const messages = Math.max(1, decision.messageIds.length);
    if (decision.type === 'message-drop') counts.dropped += messages;
    else if (decision.type === 'tool-result-offload') counts.offloaded += messages;
    else if (decision.type === 'tool-result-compact') counts.compacted += messages;
    else if (decision.type === 'message-truncate') counts.truncated += messages;
  }
  return counts;
}
