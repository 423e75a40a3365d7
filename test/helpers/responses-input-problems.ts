/**
 * A small legality check of a Responses API `input` (from the published reference): every item has a
 * known type with its required fields, a `reasoning` item an `id` and a `summary` list, a
 * `function_call` string `call_id`, `name` and `arguments`, a message a known role and a string or
 * list content of input (or, for the assistant, output) content, no item or content of another
 * provider's format (Anthropic `thinking`, `tool_use`, `compaction` blocks …), and every
 * `function_call_output` answers a call made before it. Returns the problems, `[]` when legal.
 */
const ITEM_TYPES = new Set([
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
  'compaction',
  'web_search_call',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'item_reference',
]);
const CONTENT_TYPES = new Set(['input_text', 'input_image', 'input_file', 'output_text', 'refusal']);

type Item = Readonly<Record<string, unknown>>;

export function responsesInputProblems(items: readonly unknown[]): string[] {
  const problems: string[] = [];
  const calls = new Set<unknown>();
  items.forEach((raw, index) => {
    const item = raw as Item;
    const type = item['type'] ?? 'message';
    const at = `input[${index}]`;
    if (typeof type !== 'string' || !ITEM_TYPES.has(type))
      problems.push(`${at}: unknown item type ${String(type)}`);
    if (type === 'message') problems.push(...messageProblems(item, at));
    if (type === 'reasoning' && (typeof item['id'] !== 'string' || !Array.isArray(item['summary'])))
      problems.push(`${at}: reasoning without id or summary`);
    if (type === 'function_call') {
      if (['call_id', 'name', 'arguments'].some((key) => typeof item[key] !== 'string'))
        problems.push(`${at}: function_call without string call_id, name and arguments`);
      calls.add(item['call_id']);
    }
    if (type === 'function_call_output') {
      if (!calls.has(item['call_id'])) problems.push(`${at}: output answers no earlier call`);
      problems.push(...contentProblems(item['output'], `${at}.output`));
    }
  });
  return problems;
}

function messageProblems(item: Item, at: string): string[] {
  if (!['user', 'assistant', 'system', 'developer'].includes(String(item['role'])))
    return [`${at}: role ${String(item['role'])}`];
  return contentProblems(item['content'], `${at}.content`);
}

function contentProblems(content: unknown, at: string): string[] {
  if (typeof content === 'string') return [];
  if (!Array.isArray(content)) return [`${at}: neither a string nor a list`];
  return content.flatMap((part: unknown, index) => {
    const type = (part as Item)['type'];
    return typeof type === 'string' && CONTENT_TYPES.has(type)
      ? []
      : [`${at}[${index}]: content type ${String(type)}`];
  });
}
