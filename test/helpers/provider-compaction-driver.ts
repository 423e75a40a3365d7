// Drives a provider's own compaction through ctxloom with the official SDKs against the scripted
// servers of ctxloom/testing: used by the provider-compaction tests and their new-process worker.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { toAnthropicMessages } from '../../src/adapters/to-anthropic-messages.js';
import { toOpenAIResponsesInput } from '../../src/adapters/to-openai-responses-input.js';
import { anthropicCompactNow } from '../../src/compaction/anthropic-compact-now.js';
import { anthropicContextManagement } from '../../src/compaction/anthropic-context-management.js';
import { appendCompaction } from '../../src/compaction/append-compaction.js';
import { openaiContextManagement } from '../../src/compaction/openai-context-management.js';
import { providerCompactionRecord } from '../../src/compaction/provider-compaction-record.js';
import type { Message } from '../../src/core/message.js';
import { sessionView } from '../../src/core/session-view.js';
import { sessionCompactions } from '../../src/sessions/session-compactions.js';
import type { SessionStore } from '../../src/sessions/session-store.js';

/** The four ways a provider compacts. */
export type ProviderMode =
  | 'anthropic-threshold'
  | 'anthropic-on-demand'
  | 'openai-context-management'
  | 'openai-compact';

export const PROVIDER_MODES: readonly ProviderMode[] = [
  'anthropic-threshold',
  'anthropic-on-demand',
  'openai-context-management',
  'openai-compact',
];

export const MODEL = { anthropic: 'claude-sonnet-5', openai: 'gpt-6-astra' } as const;

export function anthropicClient(url: string): Anthropic {
  return new Anthropic({ apiKey: 'test-key', baseURL: url, maxRetries: 0 });
}

export function openaiClient(url: string): OpenAI {
  return new OpenAI({ apiKey: 'test-key', baseURL: `${url}/v1`, maxRetries: 0 });
}

/** The session's view now: its messages with its compaction records replayed. */
export async function loadView(store: SessionStore, key: string): Promise<readonly Message[]> {
  const session = await store.load(key);
  return sessionView(session.messages, sessionCompactions(session));
}

/** Sends the view with the mode's compaction on and returns the raw response (JSON). */
export async function sendCompacting(
  mode: ProviderMode,
  run: { readonly url: string; readonly view: readonly Message[] },
): Promise<Record<string, unknown>> {
  if (mode.startsWith('anthropic')) {
    const { system, messages } = toAnthropicMessages(run.view);
    const extra =
      mode === 'anthropic-threshold'
        ? anthropicContextManagement({ compact: { triggerTokens: 50_000 }, clearToolUses: true })
        : anthropicCompactNow({ instructions: 'Keep file paths.' });
    const response = await anthropicClient(run.url).beta.messages.create({
      model: MODEL.anthropic,
      max_tokens: 256,
      ...(system === undefined ? {} : { system }),
      messages,
      ...extra,
    });
    return JSON.parse(JSON.stringify(response));
  }
  const { items } = toOpenAIResponsesInput(run.view);
  const client = openaiClient(run.url);
  const response =
    mode === 'openai-compact'
      ? await client.responses.compact({ model: MODEL.openai, input: items })
      : await client.responses.create({
          model: MODEL.openai,
          input: items,
          store: false,
          ...openaiContextManagement({ compactThreshold: 1_000 }),
        });
  return JSON.parse(JSON.stringify(response));
}

/** Builds the view into a plain request (no compaction options) and sends it; returns what was sent and the reply. */
export async function sendPlain(
  mode: ProviderMode,
  run: { readonly url: string; readonly view: readonly Message[] },
): Promise<{ readonly sent: readonly unknown[]; readonly reply: string }> {
  if (mode.startsWith('anthropic')) {
    const { system, messages } = toAnthropicMessages(run.view);
    const response = await anthropicClient(run.url).beta.messages.create({
      model: MODEL.anthropic,
      max_tokens: 256,
      ...(system === undefined ? {} : { system }),
      messages,
    });
    const text = response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    return { sent: messages, reply: text };
  }
  const { items } = toOpenAIResponsesInput(run.view);
  const response = await openaiClient(run.url).responses.create({
    model: MODEL.openai,
    input: items,
    store: false,
  });
  return { sent: items, reply: response.output_text };
}

/** Compacts the session through the provider, stores the record and the reply, then a new user turn. */
export async function compactAndStore(
  mode: ProviderMode,
  run: { readonly url: string; readonly store: SessionStore; readonly key: string },
): Promise<{ readonly payload: unknown; readonly recordId: string; readonly pins: readonly string[] }> {
  const view = await loadView(run.store, run.key);
  const response = await sendCompacting(mode, { url: run.url, view });
  const result = providerCompactionRecord({
    format: mode.startsWith('anthropic') ? 'anthropic' : 'openai-responses',
    response,
    messages: view,
    generateId: () => `pc-${mode}`,
    now: () => new Date('2026-12-07T12:00:00Z'),
  });
  if (result.record === undefined) throw new Error(`no record: ${result.reason} ${result.detail}`);
  await appendCompaction(run.store, { sessionKey: run.key, record: result.record });
  if (result.reply.length > 0) await run.store.append(run.key, result.reply);
  await run.store.append(run.key, [{ id: 'u-next', role: 'user', content: 'And the next step?' }]);
  return { payload: result.record.providerPayload, recordId: result.record.id, pins: result.pins.ids };
}

/** The conversation the round trips start from: a rule pinned, a tool transaction, the latest request. */
export const CONVERSATION: readonly Message[] = [
  { id: 'u1', role: 'user', content: 'Never push to main.', metadata: { pinned: true } },
  { id: 'a1', role: 'assistant', content: 'Understood.' },
  { id: 'u2', role: 'user', content: 'List the files in src/.' },
  {
    id: 'a2',
    role: 'assistant',
    content: 'Listing.',
    toolCalls: [{ id: 'call_1', name: 'ls', arguments: '{"path":"src"}' }],
  },
  { id: 't1', role: 'tool', toolCallId: 'call_1', name: 'ls', content: 'index.ts\nmain.ts\n'.repeat(40) },
  { id: 'a3', role: 'assistant', content: 'There are two files, repeated.' },
  { id: 'u3', role: 'user', content: 'Rename main.ts to app.ts.' },
];
