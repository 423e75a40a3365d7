import { describe, expect, it } from 'vitest';
import { compactHistory } from '../compaction/compact-history.js';
import type { Message } from '../core/message.js';
import { sessionView } from '../core/session-view.js';
import { createScriptedSummarizer } from '../testing/scripted-summarizer.js';
import { gradeCompaction } from './grade-compaction.js';

const history: Message[] = Array.from({ length: 12 }, (_, index) => ({
  id: `m${index}`,
  role: index % 2 === 0 ? 'user' : 'assistant',
  content: `message ${index} ${'x'.repeat(200)}`,
}));

async function compacted() {
  const result = await compactHistory(history, {
    summarizer: createScriptedSummarizer('faithful'),
    keepRecent: 100,
    pinned: { userMessages: false },
    generateId: () => 'cmp-1',
  });
  if (result.record === undefined) throw new Error(result.detail);
  return result.record;
}

describe('gradeCompaction', () => {
  it('holds for the session view and for a request that leaves messages out', async () => {
    const record = await compacted();
    const view = sessionView(history, [record]);
    expect(gradeCompaction({ history, records: [record], messages: view })).toEqual({
      lineageValid: true,
      coverageExact: true,
      problems: [],
    });
    expect(gradeCompaction({ history, records: [record], messages: view.slice(2) }).coverageExact).toBe(true);
    expect(gradeCompaction({ history, records: [], messages: history })).toMatchObject({
      lineageValid: true,
      coverageExact: true,
    });
  });

  it('fails coverage when a request shows a message raw and through its summary', async () => {
    const record = await compacted();
    const view = sessionView(history, [record]);
    const grade = gradeCompaction({ history, records: [record], messages: [history[0] as Message, ...view] });
    expect(grade.coverageExact).toBe(false);
    expect(grade.problems.join('\n')).toContain('shows 1 messages twice (first m0)');
  });

  it('fails lineage and coverage for a record naming an unknown id or covering a message twice', async () => {
    const record = await compacted();
    const twice = { ...record, id: 'cmp-2', replaces: [record.replaces[0] ?? ''], parents: [] };
    const grade = gradeCompaction({ history, records: [record, twice], messages: history });
    expect(grade.lineageValid).toBe(false);
    const unknown = { ...record, replaces: ['nope', ...record.replaces] };
    expect(gradeCompaction({ history, records: [unknown], messages: history }).lineageValid).toBe(false);
  });

  it('follows chained records back to the original messages', async () => {
    const first = await compacted();
    const grown = [...history, ...history.map((message) => ({ ...message, id: `n${message.id}` }))];
    const second = await compactHistory(sessionView(grown, [first]), {
      summarizer: createScriptedSummarizer('faithful'),
      keepRecent: 100,
      pinned: { userMessages: false },
      generateId: () => 'cmp-2',
    });
    if (second.record === undefined) throw new Error(second.detail);
    expect(second.record.parents).toEqual(['cmp-1']);
    const records = [first, second.record];
    expect(gradeCompaction({ history: grown, records, messages: sessionView(grown, records) })).toEqual({
      lineageValid: true,
      coverageExact: true,
      problems: [],
    });
  });
});
