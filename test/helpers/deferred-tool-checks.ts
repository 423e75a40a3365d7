/**
 * What the Anthropic and OpenAI APIs reject about deferred tools, for the scripted servers: a request
 * whose `tools` differ from the first request's (the tools prefix cache would miss), and a call of a
 * deferred tool the conversation has not loaded before it (Anthropic `tool_reference_unresolved`, an
 * OpenAI function the model was never given).
 */

/** Checks one Anthropic Messages request body; `first` holds the first request's tools bytes. */
export function anthropicDeferredToolViolations(body: Record<string, unknown>, state: { first?: string }): string[] {
  const problems: string[] = [];
  const toolsBytes = JSON.stringify(body['tools'] ?? []);
  state.first ??= toolsBytes;
  if (toolsBytes !== state.first) problems.push('tools changed since the first request (the tools prefix cache misses)');
  const tools = (body['tools'] ?? []) as { name?: string; defer_loading?: boolean }[];
  const sent = new Set(tools.filter((tool) => tool.defer_loading !== true).map((tool) => tool.name));
  const deferred = new Set(tools.filter((tool) => tool.defer_loading === true).map((tool) => tool.name));
  const loaded = new Set<string>();
  const messages = (body['messages'] ?? []) as { role: string; content: string | Record<string, unknown>[] }[];
  messages.forEach((message, index) => {
    if (typeof message.content === 'string') return;
    for (const block of message.content) {
      if (block['type'] === 'tool_result' && Array.isArray(block['content'])) {
        for (const inner of block['content'] as Record<string, unknown>[]) {
          if (inner['type'] !== 'tool_reference') continue;
          const name = String(inner['tool_name']);
          if (!deferred.has(name)) problems.push(`messages[${index}]: tool_reference_unresolved ${name}`);
          loaded.add(name);
        }
      }
      if (block['type'] === 'tool_addition') {
        const tool = block['tool'] as Record<string, unknown>;
        const definition = tool['definition'] as Record<string, unknown> | undefined;
        loaded.add(String(definition?.['name'] ?? tool['name']));
      }
      if (block['type'] === 'tool_use') {
        const name = String(block['name']);
        if (!sent.has(name) && !loaded.has(name)) problems.push(`messages[${index}]: tool_use of ${name}, a tool not loaded at that point`);
      }
    }
  });
  return problems;
}

/** Checks one OpenAI Responses request body; `first` holds the first request's tools bytes. */
export function responsesDeferredToolViolations(body: Record<string, unknown>, state: { first?: string }): string[] {
  const problems: string[] = [];
  const toolsBytes = JSON.stringify(body['tools'] ?? []);
  state.first ??= toolsBytes;
  if (toolsBytes !== state.first) problems.push('tools changed since the first request (the tools prefix cache misses)');
  const tools = (body['tools'] ?? []) as { type?: string; name?: string }[];
  const loaded = new Set(tools.map((tool) => tool.name));
  const searches = new Set<string>();
  const items = (Array.isArray(body['input']) ? body['input'] : []) as Record<string, unknown>[];
  items.forEach((item, index) => {
    if (item['type'] === 'tool_search_call' && item['execution'] === 'client') searches.add(String(item['call_id']));
    if (item['type'] === 'tool_search_output') {
      if (!searches.has(String(item['call_id']))) problems.push(`input[${index}]: no tool_search_call for call_id ${String(item['call_id'])}`);
      searches.delete(String(item['call_id']));
      for (const tool of (item['tools'] ?? []) as { name?: string }[]) loaded.add(tool.name);
    }
    if (item['type'] === 'function_call' && !loaded.has(String(item['name']))) {
      problems.push(`input[${index}]: function_call of ${String(item['name'])}, a tool not loaded at that point`);
    }
  });
  for (const id of searches) problems.push(`No tool search output found for tool search call ${id}.`);
  return problems;
}
