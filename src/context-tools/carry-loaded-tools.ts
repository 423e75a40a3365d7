import { COMPACTION_ID_KEY, type CompactionRecord } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import type { DeferredToolMechanism } from './deferred-tool-mechanism.js';
import { escapeRegex, searchResultMessages } from './handle-deferred-tool-call.js';
import { LOADED_TOOLS_MESSAGE_KEY } from './loaded-tools.js';
import { openAIToolSearchOutputItem } from './openai-tool-search-output.js';
import type { ToolRegistry } from './tool-registry.js';

/** Options of {@link carryLoadedTools}. */
export type CarryLoadedToolsOptions = {
  readonly registry: ToolRegistry;
  readonly mechanism: DeferredToolMechanism;
  /** The session's loaded tools (`readLoadedTools`). */
  readonly loaded: readonly string[];
  /** The session's compaction records, so the carry goes after the newest summary's pinned messages. */
  readonly records?: readonly CompactionRecord[];
};

/**
 * Keeps loaded tools loaded when the messages that loaded them are gone from what the model sees (a
 * compaction summarised them, a budget dropped them): the tools of `loaded` that no message of
 * `messages` loads are loaded again by a search transaction ctxloom writes for the mechanism (a
 * search for their exact names and its result), placed right after the newest compaction summary
 * and its pinned messages (else after the leading system messages). Its bytes depend only on the
 * summary it follows and the names, so the prefix stays cached from one request to the next.
 * Returns `messages` itself when every loaded tool is visible.
 */
export function carryLoadedTools(
  messages: readonly Message[],
  options: CarryLoadedToolsOptions,
): readonly Message[] {
  const visible = visibleLoadedTools(messages);
  const missing = options.loaded.filter(
    (name) => !visible.has(name) && options.registry.deferredTool(name) !== undefined,
  );
  if (missing.length === 0) return messages;
  const at = carryPosition(messages, options.records ?? []);
  const anchor = at === 0 ? 'start' : (messages[at - 1]?.id ?? 'start');
  const carry = carryMessages(options, { anchor, names: missing });
  return [...messages.slice(0, at), ...carry, ...messages.slice(at)];
}

/** The names of the deferred tools that some message of `messages` loads, in any mechanism's form. */
export function visibleLoadedTools(messages: readonly Message[]): ReadonlySet<string> {
  const names = new Set<string>();
  for (const message of messages) for (const name of loadedByMessage(message)) names.add(name);
  return names;
}

function loadedByMessage(message: Message): readonly string[] {
  const listed = message.metadata?.[LOADED_TOOLS_MESSAGE_KEY];
  const fromMetadata = Array.isArray(listed) ? stringsOf(listed) : [];
  if (typeof message.content === 'string') return fromMetadata;
  const fromParts = message.content.flatMap((part) =>
    part.type !== 'provider'
      ? []
      : part.format === 'anthropic'
        ? loadedByAnthropicBlock(part.value)
        : part.format === 'openai-responses' && part.value['type'] === 'tool_search_output'
          ? namesOf(part.value['tools'], 'name')
          : [],
  );
  return [...fromMetadata, ...fromParts];
}

/** The tools an Anthropic block loads: a `tool_reference`, a search result, a `tool_addition`, a compaction's `tool_changes`. */
function loadedByAnthropicBlock(value: Readonly<Record<string, unknown>>): readonly string[] {
  switch (value['type']) {
    case 'tool_reference':
      return stringsOf([value['tool_name']]);
    case 'tool_search_tool_result':
      return namesOf(fieldOf(value['content'], 'tool_references'), 'tool_name');
    case 'tool_addition':
      return stringsOf([additionName(value['tool'])]);
    case 'compaction': {
      const changes = value['tool_changes'];
      if (!Array.isArray(changes)) return [];
      return stringsOf(
        changes.map((change) =>
          fieldOf(change, 'type') === 'tool_addition' ? additionName(fieldOf(change, 'tool')) : undefined,
        ),
      );
    }
    default:
      return [];
  }
}

function namesOf(list: unknown, key: string): readonly string[] {
  return Array.isArray(list) ? stringsOf(list.map((entry) => fieldOf(entry, key))) : [];
}

function additionName(tool: unknown): unknown {
  if (fieldOf(tool, 'type') === 'tool_definition') return fieldOf(fieldOf(tool, 'definition'), 'name');
  return fieldOf(tool, 'name');
}

function carryPosition(messages: readonly Message[], records: readonly CompactionRecord[]): number {
  let summary = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (typeof messages[index]?.metadata?.[COMPACTION_ID_KEY] === 'string') {
      summary = index;
      break;
    }
  }
  if (summary < 0) {
    let at = 0;
    while (messages[at]?.role === 'system') at++;
    return at;
  }
  const recordId = messages[summary]?.metadata?.[COMPACTION_ID_KEY];
  const pinned = new Set(records.find((record) => record.id === recordId)?.pinned ?? []);
  let at = summary + 1;
  while (at < messages.length && pinned.has(messages[at]?.id ?? '')) at++;
  return at;
}

function carryMessages(
  options: CarryLoadedToolsOptions,
  run: { readonly anchor: string; readonly names: readonly string[] },
): readonly Message[] {
  const { registry, mechanism } = options;
  const chunks: string[][] = [];
  for (let start = 0; start < run.names.length; start += registry.maxResults) {
    chunks.push(run.names.slice(start, start + registry.maxResults));
  }
  const calls = chunks.map((names, index) => ({
    id: `ctxloom-carry-${run.anchor}-${index}`,
    name: registry.searchTool.name,
    arguments: JSON.stringify({ query: `/^(?:${names.map(escapeRegex).join('|')})$/`, limit: names.length }),
    names,
  }));
  const metadata = { [LOADED_TOOLS_MESSAGE_KEY]: run.names, carried: true };
  if (mechanism === 'openai-tool-search') {
    return [
      {
        id: `ctxloom-carry-${run.anchor}`,
        role: 'assistant',
        metadata,
        content: calls.flatMap(({ id, arguments: args, names }) => [
          {
            type: 'provider' as const,
            format: 'openai-responses',
            kind: 'tool_search_call',
            value: {
              type: 'tool_search_call',
              call_id: id,
              execution: 'client',
              status: 'completed',
              arguments: JSON.parse(args),
            },
          },
          {
            type: 'provider' as const,
            format: 'openai-responses',
            kind: 'tool_search_output',
            value: openAIToolSearchOutputItem({ registry, callId: id, names }),
          },
        ]),
      },
    ];
  }
  const results = calls.flatMap(({ id, name, arguments: args, names }) =>
    searchResultMessages({ registry, call: { id, name, arguments: args }, names, mechanism }),
  );
  return [
    {
      id: `ctxloom-carry-${run.anchor}`,
      role: 'assistant',
      content: '',
      metadata,
      toolCalls: calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
    },
    // Every tool result right after the calls, then what follows them (inline tools' additions).
    ...results.filter((message) => message.role === 'tool'),
    ...results.filter((message) => message.role !== 'tool'),
  ];
}

function stringsOf(values: readonly unknown[]): readonly string[] {
  return values.filter((value): value is string => typeof value === 'string');
}

function fieldOf(value: unknown, key: string): unknown {
  return isObject(value) ? value[key] : undefined;
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
