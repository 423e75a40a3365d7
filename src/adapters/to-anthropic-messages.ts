import { textOf } from '../core/content.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { AdapterWarning } from './adapter-warning.js';
import { CallIdMap } from './anthropic-blocks.js';
import {
  type AnthropicCacheBreakpoints,
  capCacheBreakpoints,
  markLastBlock,
} from './anthropic-cache-breakpoints.js';
import { anthropicMessageBlocks, anthropicOriginOf } from './anthropic-message-blocks.js';
import type { AnthropicOrigins } from './anthropic-origins.js';
import type {
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicSystem,
  AnthropicTextBlock,
  AnthropicTool,
} from './anthropic-types.js';
import { checkMessages } from './check-messages.js';
import {
  type CacheBreakpointPlan,
  type PlanCacheBreakpointsOptions,
  planCacheBreakpoints,
} from './plan-cache-breakpoints.js';
import { repairToolPairing, type ToolPairingOptions } from './repair-tool-pairing.js';
import { scrubWithWarning } from './scrub-lone-surrogates.js';

/** Options for {@link toAnthropicMessages}. */
export type ToAnthropicMessagesOptions = ToolPairingOptions & {
  /** Separator between system messages joined into one `system` string. @default '\n\n' */
  readonly systemSeparator?: string;
  /** The user text inserted when the conversation would start with an assistant. @default '(conversation continued)' */
  readonly continuationText?: string;
  /** Text sent for a turn whose content is empty (Anthropic rejects empty text). @default '(empty)' */
  readonly emptyText?: string;
  /** The `origins` of a `fromAnthropicMessages` result: messages read there come back as they were. */
  readonly origins?: AnthropicOrigins;
  /** The tool definitions to send: returned as `tools` (where a breakpoint can mark the last one). */
  readonly tools?: readonly ToolDefinition[];
  /** Prompt-cache breakpoints to set on the last tool, the last system block and message blocks. */
  readonly cacheBreakpoints?: AnthropicCacheBreakpoints;
  /**
   * Plans prompt-cache breakpoints (`planCacheBreakpoints`): `auto` marks the end of the tools, the
   * system prompt and rolling conversation anchors within the four-marker limit and the minimum
   * cacheable length; pass options to choose the model, the 1 h lifetime or the previous plan;
   * `off` adds none (markers already present or set by `cacheBreakpoints` are kept). @default 'off'
   */
  readonly cache?: 'auto' | 'off' | PlanCacheBreakpointsOptions;
};

/** What {@link toAnthropicMessages} returns: the parts of a `MessageCreateParams`. */
export type ToAnthropicMessagesResult = {
  /** The system prompt: text blocks when a block carries a breakpoint, else a string (`undefined` when none). */
  readonly system: AnthropicSystem | undefined;
  readonly messages: AnthropicMessage[];
  /** The tools, when `options.tools` was given. */
  readonly tools: AnthropicTool[] | undefined;
  readonly warnings: readonly AdapterWarning[];
  /** The breakpoint plan, when `cache` is on (pass it as `cache.previous` for the next request). */
  readonly cachePlan?: CacheBreakpointPlan;
};

type Turn = {
  readonly role: 'user' | 'assistant';
  readonly content: AnthropicContentBlock[];
  readonly sources: Set<object>;
};

/**
 * Converts messages to an Anthropic Messages API request (assignable to `@anthropic-ai/sdk`'s
 * `MessageCreateParams`): system messages are hoisted into `system`; tool calls become `tool_use`
 * blocks and tool results `tool_result` blocks (`is_error` for `metadata.isError`) placed first in
 * the next user message; consecutive same-role messages are merged so roles strictly alternate,
 * starting with a user message; images become `base64` or `url` sources, PDFs and text files
 * `document` blocks. A message read by `fromAnthropicMessages` (pass its `origins`) comes back as the
 * same object when unchanged, or with only what ctxloom changed (thinking blocks keep their
 * signatures). Provider rules are enforced: pairing made legal, call ids made legal, at most four
 * cache breakpoints, lone surrogates replaced. Everything changed or left out is named in the warnings.
 * @throws ContextError `TOOL_CALL_INTEGRITY` with `toolPairing: 'throw'` and a broken pairing.
 */
export function toAnthropicMessages(
  messages: readonly Message[],
  options: ToAnthropicMessagesOptions = {},
): ToAnthropicMessagesResult {
  checkMessages(messages, 'ctxloom messages (to Anthropic)');
  const repaired = repairToolPairing(messages, { policy: options.toolPairing ?? 'repair' });
  const warnings: AdapterWarning[] = [...repaired.warnings];
  const systems: { readonly message: Message; readonly index: number }[] = [];
  const turns: Turn[] = [];
  const ids = new CallIdMap();
  repaired.messages.forEach((message, position) => {
    const index = repaired.sourceIndexes[position] ?? position;
    if (message.role === 'system') {
      if (turns.length > 0) {
        warnings.push({
          type: 'converted',
          index,
          message: 'system message after the conversation start hoisted into system',
        });
      }
      systems.push({ message, index });
      return;
    }
    let blocks = anthropicMessageBlocks(message, { index, warnings, ids, origins: options.origins });
    const control = options.cacheBreakpoints?.messages?.[message.id];
    if (control !== undefined) blocks = markLastBlock(blocks, control);
    addTurn(turns, { message, blocks, origins: options.origins });
  });
  const capped = capCacheBreakpoints(
    {
      tools: toolsOf(options),
      system: systemOf(systems, { options, warnings }),
      messages: finishTurns(turns, { options, warnings }),
    },
    warnings,
  );
  const cache = options.cache ?? 'off';
  const planned = cache === 'off' ? undefined : planCacheBreakpoints(capped, cache === 'auto' ? {} : cache);
  for (const message of planned?.plan.warnings ?? []) warnings.push({ type: 'repaired', index: 0, message });
  const request = planned ?? capped;
  return {
    ...(planned === undefined ? {} : { cachePlan: planned.plan }),
    tools: request.tools === undefined ? undefined : scrubWithWarning(request.tools, { index: 0, warnings }),
    system:
      request.system === undefined ? undefined : scrubWithWarning(request.system, { index: 0, warnings }),
    messages: request.messages.map((message, index) => scrubWithWarning(message, { index, warnings })),
    warnings,
  };
}

function addTurn(
  turns: Turn[],
  run: {
    readonly message: Message;
    readonly blocks: AnthropicContentBlock[];
    readonly origins: AnthropicOrigins | undefined;
  },
): void {
  const role = run.message.role === 'assistant' ? 'assistant' : 'user';
  const source = anthropicOriginOf(run.message, run.origins)?.source;
  const last = turns.at(-1);
  if (last === undefined || last.role !== role) {
    turns.push({ role, content: [...run.blocks], sources: new Set(source === undefined ? [] : [source]) });
    return;
  }
  if (source !== undefined) last.sources.add(source);
  if (run.message.role !== 'tool') last.content.push(...run.blocks);
  else {
    // Tool results must come first in a user message.
    const firstOther = last.content.findIndex((block) => block.type !== 'tool_result');
    last.content.splice(firstOther === -1 ? last.content.length : firstOther, 0, ...run.blocks);
  }
}

function finishTurns(
  turns: readonly Turn[],
  run: { readonly options: ToAnthropicMessagesOptions; readonly warnings: AdapterWarning[] },
): AnthropicMessage[] {
  const emptyText = run.options.emptyText ?? '(empty)';
  const out = turns.map((turn, index): AnthropicMessage => {
    const original = originalMessage(turn, run.options.origins);
    if (original !== undefined) return original;
    if (turn.content.length === 0) {
      run.warnings.push({
        type: 'inserted',
        index,
        message: `empty ${turn.role} turn sent as ${JSON.stringify(emptyText)}`,
      });
      return { role: turn.role, content: [{ type: 'text', text: emptyText }] };
    }
    return { role: turn.role, content: turn.content };
  });
  if (out[0]?.role === 'assistant') {
    out.unshift({
      role: 'user',
      content: [{ type: 'text', text: run.options.continuationText ?? '(conversation continued)' }],
    });
    run.warnings.push({
      type: 'inserted',
      index: 0,
      message: 'user turn inserted: the conversation must start with a user message',
    });
  }
  return out;
}

/** The caller's own Anthropic message when a turn is made of exactly its blocks, in order. */
function originalMessage(turn: Turn, origins: AnthropicOrigins | undefined): AnthropicMessage | undefined {
  if (turn.sources.size !== 1) return undefined;
  const [source] = turn.sources;
  const blocks = source === undefined ? undefined : origins?.blocks.get(source);
  if (blocks === undefined || blocks.length !== turn.content.length) return undefined;
  // A message read by fromAnthropicMessages whose blocks are all given back unchanged.
  return blocks.every((block, index) => block === turn.content[index])
    ? (source as AnthropicMessage)
    : undefined;
}

function systemOf(
  systems: readonly { readonly message: Message; readonly index: number }[],
  run: { readonly options: ToAnthropicMessagesOptions; readonly warnings: AdapterWarning[] },
): AnthropicSystem | undefined {
  const { origins, cacheBreakpoints } = run.options;
  const blocks = systems.flatMap(({ message, index }): AnthropicTextBlock[] =>
    systemBlocks(message, { index, ...run }),
  );
  const given = origins?.system;
  const isGiven =
    given !== undefined &&
    cacheBreakpoints?.system === undefined &&
    systems.length === (typeof given === 'string' ? 1 : given.length) &&
    systems.every(({ message }) => anthropicOriginOf(message, origins)?.message === message);
  if (isGiven) return given;
  if (blocks.length === 0) return undefined;
  if (cacheBreakpoints?.system !== undefined) return markLastBlock(blocks, cacheBreakpoints.system);
  if (Array.isArray(given) || blocks.some((block) => block.cache_control !== undefined)) return blocks;
  return blocks.map((block) => block.text).join(run.options.systemSeparator ?? '\n\n');
}

function systemBlocks(
  message: Message,
  run: {
    readonly index: number;
    readonly options: ToAnthropicMessagesOptions;
    readonly warnings: AdapterWarning[];
  },
): AnthropicTextBlock[] {
  const origin = anthropicOriginOf(message, run.options.origins);
  // A system block read by fromAnthropicMessages is a text block.
  const source = origin?.blocks[0] as AnthropicTextBlock | undefined;
  if (origin?.message === message && source !== undefined) return [source];
  if (typeof message.content !== 'string') {
    for (const part of message.content) {
      if (part.type === 'text') continue;
      run.warnings.push({
        type: 'unsupported-part',
        index: run.index,
        message: `${part.type} part of a system message left out`,
      });
    }
  }
  const text = textOf(message.content);
  if (text === '') return [];
  return [source === undefined ? { type: 'text', text } : { ...source, text }];
}

function toolsOf(options: ToAnthropicMessagesOptions): AnthropicTool[] | undefined {
  if (options.tools === undefined) return undefined;
  const tools = options.tools.map(
    (tool): AnthropicTool => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      input_schema: { properties: {}, ...tool.parameters, type: 'object' },
    }),
  );
  const control = options.cacheBreakpoints?.tools;
  return control === undefined ? tools : markLastBlock(tools, control);
}
