import type { ContentPart, Message, NativeFields, ProviderOptions } from '../core/message.js';
import { mergeContent } from '../providers/merge-content.js';

/**
 * Two neighbouring messages of one role as one (what role merging sends instead of both): `first`'s
 * fields, with `second`'s fields that `first` lacks; contents merged (`mergeContent`), tool calls and
 * plain reasoning concatenated; `providerOptions` and `native` merged per provider (`second` wins a
 * key both set). An assistant message keeps its reasoning first: the second's leading reasoning parts
 * follow the first's (as Anthropic wants signed thinking first), or the first's last reasoning part
 * when it has reasoning further on, so reasoning parts never change order; every other part keeps its
 * order. No part is edited or dropped.
 */
export function mergeMessages(first: Message, second: Message): Message {
  const toolCalls = [...(first.toolCalls ?? []), ...(second.toolCalls ?? [])];
  const reasoning = [first.reasoning, second.reasoning].filter((text) => text !== undefined && text !== '');
  return {
    ...second,
    ...first,
    content: mergeMessageContent(first, second),
    ...(toolCalls.length === 0 ? {} : { toolCalls }),
    ...(reasoning.length === 0 ? {} : { reasoning: reasoning.join('\n\n') }),
    ...mergeCarriedFields(first, second),
  };
}

/** `providerOptions` and `native` of two merged messages, merged per provider (or format); `second` wins a key both set. */
export function mergeCarriedFields(
  first: Message,
  second: Message,
): { providerOptions?: ProviderOptions; native?: NativeFields } {
  const providerOptions = mergeByKey(first.providerOptions, second.providerOptions);
  const native = mergeByKey(first.native, second.native);
  return {
    ...(providerOptions === undefined ? {} : { providerOptions }),
    ...(native === undefined ? {} : { native }),
  };
}

/** The content of two merged messages (`mergeContent`), an assistant's leading reasoning parts first. */
export function mergeMessageContent(first: Message, second: Message): Message['content'] {
  const merged = mergeContent(first.content, second.content);
  if (first.role !== 'assistant' || typeof merged === 'string') return merged;
  // mergeContent turns each side into parts one for one (a string into one part).
  const count = typeof first.content === 'string' ? 1 : first.content.length;
  const firstParts = merged.slice(0, count);
  const secondParts = merged.slice(count);
  const lead = leadingReasoning(secondParts);
  if (lead === 0) return merged;
  // [r1…, rest1…] + [r2…, rest2…] → [r1…, r2…, rest1…, rest2…]; after the first's last reasoning part
  // when it has one further on, so no reasoning part changes place with another.
  const at = firstParts.findLastIndex((part) => part.type === 'reasoning') + 1;
  return [
    ...firstParts.slice(0, at),
    ...secondParts.slice(0, lead),
    ...firstParts.slice(at),
    ...secondParts.slice(lead),
  ];
}

function leadingReasoning(parts: readonly ContentPart[]): number {
  const index = parts.findIndex((part) => part.type !== 'reasoning');
  return index < 0 ? parts.length : index;
}

function mergeByKey<TValue extends ProviderOptions | NativeFields>(
  first: TValue | undefined,
  second: TValue | undefined,
): TValue | undefined {
  if (first === undefined || second === undefined) return first ?? second;
  const merged: Record<string, unknown> = { ...first };
  for (const [key, value] of Object.entries(second)) merged[key] = { ...first[key], ...value };
  // The same shape: provider (or format) → JSON object.
  return merged as TValue;
}
