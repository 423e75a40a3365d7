import { fromAnthropicMessages } from '../adapters/from-anthropic-messages.js';
import { fromOpenAIResponsesInput } from '../adapters/from-openai-responses-input.js';
import { ANTHROPIC } from '../adapters/read-anthropic-block.js';
import type { OPENAI_RESPONSES } from '../adapters/read-responses-content.js';
import { ContextError } from '../core/errors.js';
import type { IdGenerator } from '../core/ids.js';
import { isRecord } from '../core/is-record.js';
import type { JsonObject } from '../core/json.js';
import type { Message } from '../core/message.js';

/** The wire formats whose own compaction ctxloom passes through. */
export type ProviderCompactionFormat = typeof ANTHROPIC | typeof OPENAI_RESPONSES;

/** What a provider response says about compaction, read without judging it. */
export type ReadProviderCompaction = {
  /** The last compaction block or item, as JSON (a copy of the response's). */
  readonly payload: JsonObject | undefined;
  /** The strategy that made it, for the record's producer. */
  readonly strategy: string;
  /** The response's model, when it names one. */
  readonly model: string | undefined;
  /** For `/responses/compact`: how many user messages the output kept verbatim. */
  readonly keptUserMessages: number | undefined;
  /** The server held the history (`previous_response_id`, `conversation`): nothing may be pruned. */
  readonly serverHeld: string | undefined;
  /** The response's other content (the model's reply), as messages. */
  readonly reply: readonly Message[];
};

type Json = Readonly<Record<string, unknown>>;

/** Reads the compaction block or item of an Anthropic or OpenAI Responses response. */
export function readProviderCompaction(
  format: ProviderCompactionFormat,
  run: { readonly response: Json; readonly generateId: IdGenerator },
): ReadProviderCompaction {
  return format === ANTHROPIC ? readAnthropic(run) : readResponses(run);
}

function readAnthropic(run: {
  readonly response: Json;
  readonly generateId: IdGenerator;
}): ReadProviderCompaction {
  const content = run.response['content'];
  if (!Array.isArray(content))
    throw new ContextError({
      code: 'INVALID_INPUT',
      message:
        'The Anthropic response has no content array; pass the Messages API response (client.beta.messages.create(...)) as it came back.',
    });
  const blocks = content.filter(isRecord);
  const compactions = blocks.filter((block) => block['type'] === 'compaction');
  const rest = blocks.filter((block) => block['type'] !== 'compaction');
  const last = compactions.at(-1);
  const reply =
    rest.length === 0
      ? []
      : fromAnthropicMessages(
          { messages: [{ role: 'assistant', content: rest }] },
          { generateId: run.generateId },
        ).messages;
  const thread = run.response['thread'];
  return {
    payload: last === undefined ? undefined : copy(last),
    strategy: 'anthropic-compact',
    model: typeof run.response['model'] === 'string' ? run.response['model'] : undefined,
    keptUserMessages: undefined,
    serverHeld: isRecord(thread) ? 'the request continued a server-side thread' : undefined,
    reply,
  };
}

function readResponses(run: {
  readonly response: Json;
  readonly generateId: IdGenerator;
}): ReadProviderCompaction {
  const output = run.response['output'];
  if (!Array.isArray(output))
    throw new ContextError({
      code: 'INVALID_INPUT',
      message:
        'The OpenAI response has no output array; pass the Responses API response (client.responses.create or client.responses.compact) as it came back.',
    });
  const items = output.filter(isRecord);
  const isCompactEndpoint = run.response['object'] === 'response.compaction';
  const compactions = items.filter((item) => item['type'] === 'compaction');
  const users = items.filter((item) => item['type'] === 'message' && item['role'] === 'user');
  const rest = items.filter(
    (item) => item['type'] !== 'compaction' && !(isCompactEndpoint && users.includes(item)),
  );
  const last = compactions.at(-1);
  const previous = run.response['previous_response_id'];
  const conversation = run.response['conversation'];
  return {
    payload: last === undefined ? undefined : copy(last),
    strategy: isCompactEndpoint ? 'openai-compact' : 'openai-context-management',
    model: typeof run.response['model'] === 'string' ? run.response['model'] : undefined,
    keptUserMessages: isCompactEndpoint ? users.length : undefined,
    serverHeld:
      typeof previous === 'string' && previous !== ''
        ? `the request continued previous_response_id ${previous}`
        : conversation !== undefined && conversation !== null
          ? 'the request continued a server-side conversation'
          : undefined,
    reply: rest.length === 0 ? [] : fromOpenAIResponsesInput(rest, { generateId: run.generateId }).messages,
  };
}

function copy(value: Json): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}
