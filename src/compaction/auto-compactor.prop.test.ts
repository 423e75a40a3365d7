import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { viewId } from '../core/apply-compactions.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import { sessionView } from '../core/session-view.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { validateCompactionLineage } from '../core/validate-compaction-lineage.js';
import { ContextGovernor } from '../filters/context-governor.js';
import type { ChatModel } from '../llm/chat-model.js';
import { createScriptedSummarizer, type ScriptedSummarizerKind } from '../testing/scripted-summarizer.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { AutoCompactor } from './auto-compactor.js';

const counter = new SimpleTokenCounter();
const BUDGET = 5000;
const SYSTEM: Message = { id: 'sys', role: 'system', content: 'You are a coding agent.' };

/** One turn of `size` (0: a plain exchange; 1–3: tool work with results of growing size). */
function turn(index: number, size: number): Message[] {
  const request: Message = {
    id: `u${index}`,
    role: 'user',
    content: `Request ${index}`,
    ...(index % 5 === 0 ? { metadata: { pinned: true } } : {}),
  };
  if (size === 0) return [request, { id: `r${index}`, role: 'assistant', content: `Answer ${index}` }];
  const calls = Array.from({ length: size }, (_, call) => ({
    id: `c${index}-${call}`,
    name: call === 0 ? 'todo' : 'read_file',
    arguments: '{}',
  }));
  return [
    request,
    { id: `a${index}`, role: 'assistant', content: '', toolCalls: calls },
    ...calls.map(
      (call): Message => ({
        id: `t${call.id}`,
        role: 'tool',
        name: call.name,
        toolCallId: call.id,
        content: `${call.name} output ${index}\n${'o'.repeat(300 * size)}`,
      }),
    ),
    { id: `r${index}`, role: 'assistant', content: `Done ${index}` },
  ];
}

/** A summariser whose answers wait until released (a background job stays running across appends). */
function gated(kind: ScriptedSummarizerKind): ChatModel & { release(): void } {
  const inner = createScriptedSummarizer(kind);
  let waiting: (() => void)[] = [];
  return {
    specificationVersion: 'v1',
    id: `gated:${kind}`,
    generate: async (request) => {
      await new Promise<void>((resolve) => waiting.push(resolve));
      return inner.generate(request);
    },
    release() {
      const now = waiting;
      waiting = [];
      for (const resolve of now) resolve();
    },
  };
}

/** Lets the microtasks and immediates of a request run, without any timer. */
async function flush(): Promise<void> {
  for (let tick = 0; tick < 20; tick += 1) await new Promise((resolve) => setImmediate(resolve));
}

type Op =
  | { readonly kind: 'append'; readonly sizes: readonly number[] }
  | { readonly kind: 'request' }
  | { readonly kind: 'finish' }
  | { readonly kind: 'rewind'; readonly turns: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      sizes: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 4 }),
    }),
    weight: 4,
  },
  { arbitrary: fc.constant({ kind: 'request' as const }), weight: 4 },
  { arbitrary: fc.constant({ kind: 'finish' as const }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('rewind' as const), turns: fc.integer({ min: 1, max: 12 }) }),
    weight: 1,
  },
);

/** Every raw message reaches the view exactly once: raw, or through one chain of covering records. */
function representedOnce(
  raw: readonly Message[],
  view: readonly Message[],
  records: readonly CompactionRecord[],
) {
  const byId = new Map(records.map((record) => [record.id, record]));
  const seen = new Map<string, number>();
  const visit = (id: string): void => {
    const record = byId.get(id);
    if (record === undefined) seen.set(id, (seen.get(id) ?? 0) + 1);
    else for (const inner of record.replaces) visit(inner);
  };
  for (const message of view) visit(viewId(message));
  expect([...seen.keys()].sort()).toEqual(raw.map((message) => message.id).sort());
  for (const count of seen.values()) expect(count).toBe(1);
}

describe('automatic compaction over any sequence of appends, requests, background jobs and rewinds', () => {
  /** Runs the property; `seen` counts what the runs went through. */
  const check = async (
    parameters: fc.Parameters<[ScriptedSummarizerKind, boolean, Op[]]>,
    seen: Map<string, number>,
  ) => {
    const count = (key: string): void => {
      seen.set(key, (seen.get(key) ?? 0) + 1);
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<ScriptedSummarizerKind>('faithful', 'lossy', 'failing', 'blank'),
        fc.boolean(),
        fc.array(op, { minLength: 5, maxLength: 40 }),
        async (kind, background, ops) => {
          const summarizer = gated(kind);
          const options = {
            summarizer,
            trigger: 0.7,
            target: 0.4,
            keepRecent: 400,
            maxOutputTokens: 400,
            pinned: { tools: ['todo'] },
            ...(background ? { background: { startAt: 0.5 } } : {}),
          };
          const compactor = new AutoCompactor(options);
          const governor = new ContextGovernor({
            contextWindowTokens: BUDGET + 1000,
            maxOutputTokens: 1000,
            safetyBufferTokens: 0,
            tokenCounter: counter,
            onOverBudget: 'keep',
            compaction: { ...options, summarizer: createScriptedSummarizer(kind) },
          });
          const turns: Message[][] = [];
          let next = 1;
          const raw = (): Message[] => [SYSTEM, ...turns.flat()];
          for (const step of ops) {
            if (step.kind === 'append') for (const size of step.sizes) turns.push(turn(next++, size));
            else if (step.kind === 'rewind') turns.splice(Math.max(0, turns.length - step.turns));
            else if (step.kind === 'finish') {
              summarizer.release();
              await compactor.settled();
            } else {
              const list = raw();
              const pending = compactor.compact({
                messages: list,
                budgetTokens: BUDGET,
                tokenCounter: counter,
              });
              let done = false;
              void pending.then(() => {
                done = true;
              });
              await flush();
              // A request that must compact (or await the job) gets its answers.
              while (!done) {
                summarizer.release();
                await flush();
              }
              const result = await pending;
              for (const entry of result.decisions) count(String(entry.details?.['outcome']));
              if (result.record !== undefined) count(`record:${result.record.trigger}`);
              const records = compactor.records();
              representedOnce(list, result.messages, records);
              expect(validateCompactionLineage(list, records)).toEqual([]);
              expect(sessionView(list, records)).toEqual(result.messages);
              expect(validateToolCallIntegrity(result.messages)).toEqual([]);
              const governed = await governor.prepareForModel(list);
              expect(validateToolCallIntegrity(governed.messages)).toEqual([]);
              expect(counter.countMessages(governed.messages)).toBeLessThanOrEqual(governor.budgetTokens);
            }
          }
          summarizer.release();
          await compactor.settled();
        },
      ),
      parameters,
    );
  };

  it('represents every message exactly once, keeps the lineage valid and tool calls whole, and the governor keeps the budget', async () => {
    await check({ numRuns: 40 }, new Map());
  });

  it('reaches every path: auto and background records, jobs, failures, dropped records (a fixed seed)', async () => {
    const seen = new Map<string, number>();
    await check({ numRuns: 120, seed: 2026 }, seen);
    for (const path of [
      'record:auto',
      'record:background',
      'background-started',
      'summarizer-failed',
      'record-dropped',
    ])
      expect(seen.get(path) ?? 0, path).toBeGreaterThan(0);
  });
});
