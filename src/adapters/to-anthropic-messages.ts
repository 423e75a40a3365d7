import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { textOf } from '../core/content.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { AdapterWarning } from './adapter-warning.js';
import { CallIdMap } from './anthropic-blocks.js';
import {
  ANTHROPIC_CACHE_BREAKPOINTS_OPTION_KEYS,
  type AnthropicCacheBreakpoints,
  capCacheBreakpoints,
  markLastBlock,
} from './anthropic-cache-breakpoints.js';
import { anthropicMessageBlocks, anthropicMessageFields } from './anthropic-message-blocks.js';
import type { AnthropicOrigins } from './anthropic-origins.js';
import { COMPACTION, placeCompaction, thinkingFirst, typeOf } from './anthropic-provider-rules.js';
import type {
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicSystem,
  AnthropicTextBlock,
  AnthropicTool,
} from './anthropic-types.js';
import { checkMessages } from './check-messages.js';
import { layoutOf, nativeFieldsOf } from './native-fields.js';
import {
  type CacheBreakpointPlan,
  PLAN_CACHE_BREAKPOINTS_OPTION_KEYS,
  type PlanCacheBreakpointsOptions,
  planCacheBreakpoints,
} from './plan-cache-breakpoints.js';
import { ANTHROPIC } from './read-anthropic-block.js';
import {
  repairToolPairing,
  TOOL_PAIRING_OPTION_KEYS,
  type ToolPairingOptions,
} from './repair-tool-pairing.js';
import { scrubWithWarning } from './scrub-lone-surrogates.js';

/** Options for {@link toAnthropicMessages}. */
export type ToAnthropicMessagesOptions = ToolPairingOptions & {
  /** Separator between system messages joined into one `system` string. @default '\n\n' */
  readonly systemSeparator?: string;
  /** The user text inserted when the conversation would start with an assistant. @default '(conversation continued)' */
  readonly continuationText?: string;
  /** Text sent for a turn whose content is empty (Anthropic rejects empty text). @default '(empty)' */
  readonly emptyText?: string;
  /**
   * The `origins` of a `fromAnthropicMessages` result: an optimisation only (a turn of unchanged
   * messages comes back as the very object read); without it everything comes back equal, from the
   * messages alone.
   */
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

/** The keys of {@link ToAnthropicMessagesOptions}, for `checkOptions`. @internal */
export const TO_ANTHROPIC_MESSAGES_OPTION_KEYS = {
  ...TOOL_PAIRING_OPTION_KEYS,
  systemSeparator: true,
  continuationText: true,
  emptyText: true,
  origins: true,
  tools: true,
  cacheBreakpoints: true,
  cache: true,
} as const satisfies OptionKeys<ToAnthropicMessagesOptions>;

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
  readonly messages: Message[];
  isMarked: boolean;
};

/**
 * Converts messages to an Anthropic Messages API request (assignable to `@anthropic-ai/sdk`'s
 * `MessageCreateParams`): system messages are hoisted into `system`; tool calls become `tool_use`
 * blocks and tool results `tool_result` blocks (`is_error` for `metadata.isError`) placed first in
 * the next user message; consecutive same-role messages are merged so roles strictly alternate,
 * starting with a user message; images become `base64` or `url` sources, PDFs and text files
 * `document` blocks; reasoning parts with an Anthropic signature as `thinking` / `redacted_thinking`,
 * Anthropic provider parts as the blocks they hold, every `native.anthropic` field in place, so a
 * request read by `fromAnthropicMessages` comes back equal from the messages alone. Provider rules are
 * enforced: pairing made legal, call ids made legal, at most four cache breakpoints, one compaction
 * block and first, the last assistant turn's thinking first, other providers' reasoning and parts left
 * out, lone surrogates replaced. Everything changed or left out is named in the warnings.
 * @throws ContextError `TOOL_CALL_INTEGRITY` with `toolPairing: 'throw'` and a broken pairing.
 */
export function toAnthropicMessages(
  messages: readonly Message[],
  options: ToAnthropicMessagesOptions = {},
): ToAnthropicMessagesResult {
  checkOptions(options, {
    where: 'toAnthropicMessages options',
    known: TO_ANTHROPIC_MESSAGES_OPTION_KEYS,
    nested: {
      cache: { known: PLAN_CACHE_BREAKPOINTS_OPTION_KEYS },
      cacheBreakpoints: { known: ANTHROPIC_CACHE_BREAKPOINTS_OPTION_KEYS },
    },
  });
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
    let blocks = anthropicMessageBlocks(message, { index, warnings, ids });
    const control = options.cacheBreakpoints?.messages?.[message.id];
    if (control !== undefined) blocks = markLastBlock(blocks, control);
    addTurn(turns, { message, blocks, isMarked: control !== undefined });
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
  run: { readonly message: Message; readonly blocks: AnthropicContentBlock[]; readonly isMarked: boolean },
): void {
  const role = run.message.role === 'assistant' ? 'assistant' : 'user';
  const last = turns.at(-1);
  if (last === undefined || last.role !== role) {
    turns.push({ role, content: [...run.blocks], messages: [run.message], isMarked: run.isMarked });
    return;
  }
  last.messages.push(run.message);
  last.isMarked ||= run.isMarked;
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
    const fields = Object.assign({}, ...turn.messages.map(anthropicMessageFields));
    const [only] = turn.messages;
    if (
      turn.messages.length === 1 &&
      only !== undefined &&
      !turn.isMarked &&
      typeof only.content === 'string' &&
      (only.toolCalls?.length ?? 0) === 0 &&
      layoutOf(only, ANTHROPIC)['content'] === 'string'
    ) {
      // A message read with a string content: the Anthropic message's own fields and that string.
      return { ...fields, role: turn.role, content: only.content } as AnthropicMessage;
    }
    if (turn.content.length === 0) {
      run.warnings.push({
        type: 'inserted',
        index,
        message: `empty ${turn.role} turn sent as ${JSON.stringify(emptyText)}`,
      });
      return { ...fields, role: turn.role, content: [{ type: 'text', text: emptyText }] } as AnthropicMessage;
    }
    // The Anthropic messages' own fields with the role and blocks ctxloom owns.
    return { ...fields, role: turn.role, content: turn.content } as AnthropicMessage;
  });
  const placed = placeCompaction(out, run.warnings);
  thinkingFirst(placed, run.warnings);
  const first = placed[0];
  const firstBlock = first === undefined || typeof first.content === 'string' ? undefined : first.content[0];
  if (first?.role === 'assistant' && typeOf(firstBlock) !== COMPACTION) {
    placed.unshift({
      role: 'user',
      content: [{ type: 'text', text: run.options.continuationText ?? '(conversation continued)' }],
    });
    run.warnings.push({
      type: 'inserted',
      index: 0,
      message: 'user turn inserted: the conversation must start with a user message',
    });
  }
  return placed;
}

/** The caller's own Anthropic message when a turn is made of exactly the unchanged messages read from it. */
function originalMessage(turn: Turn, origins: AnthropicOrigins | undefined): AnthropicMessage | undefined {
  if (origins === undefined || turn.isMarked) return undefined;
  const sources = new Set(turn.messages.map((message) => origins.messages.get(message.id)?.source));
  const [source] = sources;
  if (sources.size !== 1 || source === undefined) return undefined;
  const isSame =
    turn.messages.every((message) => origins.messages.get(message.id)?.message === message) &&
    origins.sizes.get(source) === turn.messages.length;
  // Every ctxloom message read from this Anthropic message, unchanged: the message itself.
  return isSame ? (source as AnthropicMessage) : undefined;
}

function systemOf(
  systems: readonly { readonly message: Message; readonly index: number }[],
  run: { readonly options: ToAnthropicMessagesOptions; readonly warnings: AdapterWarning[] },
): AnthropicSystem | undefined {
  const { origins, cacheBreakpoints } = run.options;
  const given = origins?.system;
  if (given !== undefined && cacheBreakpoints?.system === undefined && isGivenSystem(systems, origins))
    return given;
  const blocks = systems.flatMap(({ message, index }): AnthropicTextBlock[] =>
    systemBlocks(message, { index, ...run }),
  );
  if (blocks.length === 0) return undefined;
  if (cacheBreakpoints?.system !== undefined) return markLastBlock(blocks, cacheBreakpoints.system);
  // A system message read from system blocks keeps `type: 'text'` in its native fields.
  const isBlocks = systems.some(({ message }) => nativeFieldsOf(message, ANTHROPIC)['type'] === 'text');
  if (isBlocks || blocks.some((block) => Object.keys(block).length > 2)) return blocks;
  return blocks.map((block) => block.text).join(run.options.systemSeparator ?? '\n\n');
}

/** True when the system messages are exactly the unchanged ones read from the request's `system`. */
function isGivenSystem(
  systems: readonly { readonly message: Message }[],
  origins: AnthropicOrigins | undefined,
): boolean {
  const given = origins?.system;
  if (given === undefined) return false;
  if (typeof given === 'string') {
    const [only] = systems;
    return systems.length === 1 && only?.message.content === given && only.message.native === undefined;
  }
  return (
    systems.length === given.length &&
    systems.every(({ message }) => origins?.messages.get(message.id)?.message === message)
  );
}

function systemBlocks(
  message: Message,
  run: {
    readonly index: number;
    readonly options: ToAnthropicMessagesOptions;
    readonly warnings: AdapterWarning[];
  },
): AnthropicTextBlock[] {
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
  // The system block's own Anthropic fields with the text ctxloom owns.
  return [{ ...nativeFieldsOf(message, ANTHROPIC), type: 'text', text } as AnthropicTextBlock];
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
