import { describe, expect, it } from 'vitest';
import type { Message } from '../index.js';
import { diffHistory } from './diff-history.js';

const m = (id: string, content: string, role: Message['role'] = 'user'): Message => ({ id, role, content });

describe('diffHistory', () => {
  it('marks stored messages as not replayed, dropped, rewritten or kept, and sent ones as added', () => {
    const stored = [m('a', 'old'), m('b', 'dropped'), m('c', 'long result'), m('d', 'same')];
    const replayed = stored.slice(1);
    const sent = [m('sys', 'prompt', 'system'), m('c', '[tool output persisted]'), m('d', 'same')];
    const diff = diffHistory({
      stored,
      replayed,
      sent,
      decisions: [
        { type: 'message-drop', stage: 'snip', reason: 'over budget', messageIds: ['b'] },
        { type: 'tool-result-offload', stage: 'budget', reason: 'saved to a file', messageIds: ['c'] },
      ],
    });
    expect(diff.stored.map((entry) => [entry.id, entry.status, entry.reasons])).toEqual([
      ['a', 'boundary-skipped', []],
      ['b', 'dropped', ['message-drop by snip: over budget']],
      ['c', 'rewritten', ['tool-result-offload by budget: saved to a file']],
      ['d', 'kept', []],
    ]);
    expect(diff.sent.map((entry) => [entry.id, entry.status])).toEqual([
      ['sys', 'added'],
      ['c', 'rewritten'],
      ['d', 'kept'],
    ]);
  });
});
