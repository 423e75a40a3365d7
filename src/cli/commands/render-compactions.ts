import { textOf } from '../../core/index.js';
import type { CompactionDescription, CompactionItem, Message } from '../../index.js';

const NUMBER = new Intl.NumberFormat('en-US');

/**
 * The compaction records of `session show`, one paragraph each: kind, trigger, producer, depth, time,
 * tokens before → after and saved, what it replaced and pinned; with `isExpanded`, every replaced or
 * pinned message raw with its id (parent records are listed in their own paragraph).
 */
export function renderCompactions(
  descriptions: readonly CompactionDescription[],
  options: { readonly isExpanded: boolean },
): string {
  if (descriptions.length === 0) return '';
  const lines = [`Compactions (${descriptions.length}, oldest first):`];
  for (const description of descriptions) lines.push(...renderCompaction(description, options));
  return `${lines.join('\n')}\n`;
}

function renderCompaction(
  description: CompactionDescription,
  options: { readonly isExpanded: boolean },
): readonly string[] {
  const { record } = description;
  const producer = [record.producer.strategy, record.producer.model].filter(Boolean).join(', ');
  const reasons = description.violations.map((violation) => `${violation.type}: ${violation.message}`);
  const status = description.isApplied ? '' : ` · NOT APPLIED (${reasons.join('; ')})`;
  const lines = [
    `  ${record.id} · ${record.kind} · ${record.trigger} · ${producer} · depth ${record.depth} · ${record.createdAt || '?'} · ${NUMBER.format(record.tokensBefore)} → ${NUMBER.format(record.tokensAfter)} tokens (saved ${NUMBER.format(description.tokensSaved)})${status}`,
    `    replaces ${describeItems(description.replaced)}`,
  ];
  if (description.pinned.length > 0)
    lines.push(`    pinned ${description.pinned.map((item) => item.id).join(', ')}`);
  if (record.producer.instructions !== undefined)
    lines.push(`    instructions: ${oneLine(record.producer.instructions)}`);
  if (record.summary !== undefined)
    lines.push(`    summary ${record.summary.id}: ${oneLine(textOf(record.summary.content))}`);
  if (!options.isExpanded) return lines;
  for (const item of description.replaced) lines.push(`      replaced ${renderItem(item)}`);
  for (const item of description.pinned) lines.push(`      pinned ${renderItem(item)}`);
  return lines;
}

/** `18 messages (u0 … a8) and record cmp-1`: counts by kind, with the first and last message ids. */
function describeItems(items: readonly CompactionItem[]): string {
  const messages = items.filter((item) => item.type === 'message');
  const parts: string[] = [];
  if (messages.length > 0) {
    const first = messages[0]?.id;
    const last = messages.at(-1)?.id;
    const span = messages.length === 1 ? `${first}` : `${first} … ${last}`;
    parts.push(`${messages.length} message${messages.length === 1 ? '' : 's'} (${span})`);
  }
  const records = items.filter((item) => item.type === 'record').map((item) => item.id);
  if (records.length > 0) parts.push(`record${records.length === 1 ? '' : 's'} ${records.join(', ')}`);
  const missing = items.filter((item) => item.type === 'missing').map((item) => item.id);
  if (missing.length > 0)
    parts.push(`${missing.length} missing id${missing.length === 1 ? '' : 's'} (${missing.join(', ')})`);
  return parts.join(' and ');
}

function renderItem(item: CompactionItem): string {
  if (item.type === 'record') return `record ${item.id} (listed above)`;
  if (item.type === 'missing') return `${item.id} (not in the session)`;
  return `${item.id} ${renderMessage(item.message)}`;
}

function renderMessage(message: Message): string {
  const calls = (message.toolCalls ?? []).map((call) => ` → ${call.name}(${call.arguments})`).join('');
  return `[${message.role}]${calls} ${oneLine(textOf(message.content))}`;
}

function oneLine(text: string): string {
  return text.replaceAll('\n', '\\n');
}
