import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../core/decision.js';
import type { ContentPart, Message } from '../core/message.js';
import { encryptedPayloadTokens } from '../core/opaque-payload.js';
import { traceDecisions } from '../pipeline/build-trace.js';
import { richConversationArbitrary } from '../testing/message-format-2-arbitraries.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { ContextGovernor } from './context-governor.js';
import { RoleAlternationFilter } from './role-alternation-filter.js';

let workspace = '';
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-fields-prop-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const counter = new SimpleTokenCounter();
/** The fields each kind of decision may change on a message it names; every other field must stay. */
const CHANGED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'tool-result-offload': ['content'],
  'message-truncate': ['content'],
  'tool-result-compact': ['content'],
  // Empty content filled in; a lone trailing assistant turned into a user message.
  'message-rewrite': ['content', 'role', 'toolCalls', 'reasoning'],
  'tool-call-repair': ['toolCalls', 'toolCallId'],
};

function isOpaque(part: ContentPart): boolean {
  return part.type === 'reasoning' || part.type === 'provider';
}
function opaqueParts(message: Message): readonly ContentPart[] {
  return typeof message.content === 'string' ? [] : message.content.filter(isOpaque);
}
function leadingReasoning(message: Message): readonly ContentPart[] {
  if (typeof message.content === 'string') return [];
  const end = message.content.findIndex((part) => part.type !== 'reasoning');
  return end < 0 ? message.content : message.content.slice(0, end);
}

/** Checks every output message against its input: only what a decision names changed. */
function expectOnlyDecidedChanges(
  input: readonly Message[],
  output: readonly Message[],
  decisions: readonly Decision[],
): void {
  const byId = new Map(input.map((message) => [message.id, message]));
  const decided = new Map<string, Set<string>>();
  for (const entry of decisions)
    for (const id of entry.messageIds) decided.set(id, (decided.get(id) ?? new Set()).add(entry.type));
  for (const message of output) {
    const source = byId.get(message.id);
    if (source === undefined) continue;
    const types = decided.get(message.id) ?? new Set<string>();
    if (types.has('message-merge')) expectMerged(message, mergedSources(message, { decisions, byId }));
    else expectChanged(message, { source, types });
  }
}

function mergedSources(
  message: Message,
  known: { readonly decisions: readonly Decision[]; readonly byId: ReadonlyMap<string, Message> },
): readonly Message[] {
  return known.decisions
    .filter((entry) => entry.type === 'message-merge' && entry.messageIds.includes(message.id))
    .flatMap((entry) => entry.messageIds.map((id) => known.byId.get(id)))
    .filter((found): found is Message => found !== undefined)
    .filter((found, index, all) => all.indexOf(found) === index);
}

/**
 * Every reasoning and provider part of the merged messages is there, whole; reasoning parts keep their
 * order, provider parts theirs; an assistant's leading reasoning parts come first.
 */
function expectMerged(message: Message, sources: readonly Message[]): void {
  const ofType = (type: string) => (part: ContentPart) => part.type === type;
  for (const type of ['reasoning', 'provider'])
    expect(opaqueParts(message).filter(ofType(type))).toEqual(
      sources.flatMap(opaqueParts).filter(ofType(type)),
    );
  // With no reasoning after other parts, the merged message opens with all of it.
  const isLeadingOnly = (source: Message) =>
    leadingReasoning(source).length === opaqueParts(source).filter(ofType('reasoning')).length;
  if (message.role === 'assistant' && sources.every(isLeadingOnly))
    expect(leadingReasoning(message)).toEqual(sources.flatMap(leadingReasoning));
}

function expectChanged(
  message: Message,
  change: { readonly source: Message; readonly types: ReadonlySet<string> },
): void {
  const { source, types } = change;
  if (types.size === 0) {
    expect(message).toEqual(source);
    return;
  }
  const allowed = new Set([...types].flatMap((type) => CHANGED_FIELDS[type] ?? []));
  const kept = (value: Message) => Object.entries(value).filter(([key]) => !allowed.has(key));
  expect(kept(message)).toEqual(kept(source));
  // A stage that rewrites a tool result never touches reasoning or provider parts of other messages.
  if (source.role !== 'tool') expect(opaqueParts(message)).toEqual(opaqueParts(source));
}

describe('governed builds keep message format 2 fields', () => {
  test.prop(
    {
      messages: richConversationArbitrary({ maxTextLength: 300, minUnits: 1, maxUnits: 8 }),
      budget: fc.integer({ min: 40, max: 1500 }),
      maxToolResultChars: fc.constantFrom(40, 200, 16_000),
      useWorkspace: fc.boolean(),
      inflightStartIndex: fc.nat({ max: 12 }),
    },
    { numRuns: 100 },
  )(
    'every output message equals its input but for what a decision names, and opaque parts are never edited',
    async (sample) => {
      const governor = new ContextGovernor({
        contextWindowTokens: 1_000_000,
        blockLimit: sample.budget,
        maxToolResultChars: sample.maxToolResultChars,
        tokenCounter: counter,
        onOverBudget: 'keep',
        ...(sample.useWorkspace ? { workspace, sessionKey: 'fields' } : {}),
      });
      const governed = await governor.prepareForModel(sample.messages, {
        inflightStartIndex: sample.inflightStartIndex,
        compactedToolCallIds: new Set(),
      });
      expectOnlyDecidedChanges(sample.messages, governed.messages, traceDecisions(governed.trace));
      const strict = new RoleAlternationFilter().apply(governed.messages);
      expectOnlyDecidedChanges(governed.messages, strict.messages, strict.decisions);
      // Whatever was cut, a reasoning or provider part in the output is one of the input's, unchanged.
      const known = new Set(sample.messages.flatMap(opaqueParts).map((part) => JSON.stringify(part)));
      for (const part of strict.messages.flatMap(opaqueParts)) expect(known).toContain(JSON.stringify(part));
    },
  );

  it('merges two assistant messages with their reasoning first and both sets of fields', () => {
    const first: Message = {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'one', provider: 'anthropic', signature: 's1' },
        { type: 'text', text: 'first' },
      ],
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    };
    const second: Message = {
      id: 'a2',
      role: 'assistant',
      content: [
        { type: 'reasoning', text: '', provider: 'anthropic', redactedData: 'cmVk' },
        {
          type: 'provider',
          format: 'anthropic',
          kind: 'server_tool_use',
          value: { type: 'server_tool_use', id: 'x' },
        },
      ],
      native: { anthropic: { stop_reason: 'end_turn' } },
    };
    const user: Message = { id: 'u', role: 'user', content: 'go' };
    const { messages } = new RoleAlternationFilter().apply([user, first, second, { ...user, id: 'u2' }]);
    expect(messages[1]).toEqual({
      id: 'a1',
      role: 'assistant',
      content: [first.content[0], second.content[0], first.content[1], second.content[1]],
      providerOptions: first.providerOptions,
      native: second.native,
    });
  });
});

describe('counting encrypted payloads', () => {
  it('counts an encrypted or redacted payload by decoded bytes / 4, not by its base64 length as text', () => {
    const payload = 'QUJD'.repeat(3000); // 12,000 base64 characters, 9,000 bytes
    const plain: Message = { id: 'p', role: 'assistant', content: [{ type: 'text', text: 'ok' }] };
    const withPayload = (part: ContentPart): Message => ({
      ...plain,
      content: [part, ...(plain.content as ContentPart[])],
    });
    const base = counter.countMessage(plain);
    expect(encryptedPayloadTokens(payload.length)).toBe(2250);
    expect(
      counter.countMessage(
        withPayload({ type: 'reasoning', text: '', provider: 'openai', encryptedContent: payload }),
      ),
    ).toBe(base + 2250);
    expect(
      counter.countMessage(
        withPayload({ type: 'reasoning', text: '', provider: 'anthropic', redactedData: payload }),
      ),
    ).toBe(base + 2250);
    expect(
      counter.countMessage(
        withPayload({
          type: 'provider',
          format: 'openai-responses',
          kind: 'compaction',
          value: { type: 'compaction', id: 'cmp_1', encrypted_content: payload },
        }),
      ),
    ).toBe(base + 2250);
    // A signature costs nothing; as text the payload would cost far more than the rule says.
    expect(
      counter.countMessage(
        withPayload({ type: 'reasoning', text: '', provider: 'anthropic', signature: payload }),
      ),
    ).toBe(base);
    expect(counter.countText(payload)).toBeGreaterThan(2250);
  });

  it('lets the governor keep a message whose encrypted payload fits by the rule but not as text', async () => {
    const payload = 'QUJD'.repeat(1000); // 4,000 characters: 750 tokens by the rule
    const messages: readonly Message[] = [
      { id: 'u1', role: 'user', content: 'hi' },
      {
        id: 'a1',
        role: 'assistant',
        content: [
          { type: 'reasoning', text: '', provider: 'openai', encryptedContent: payload },
          { type: 'text', text: 'hello' },
        ],
      },
      { id: 'u2', role: 'user', content: 'again' },
    ];
    const tokens = counter.countMessages(messages);
    expect(tokens).toBeLessThan(counter.countText(payload));
    const governor = new ContextGovernor({
      contextWindowTokens: 1_000_000,
      blockLimit: tokens,
      tokenCounter: counter,
    });
    expect((await governor.prepareForModel(messages)).messages).toEqual(messages);
  });
});
