/**
 * What the Anthropic and OpenAI APIs reject about deferred tools, for the scripted servers: a request
 * whose `tools` differ from the first request's (the tools prefix cache would miss), and a call of a
 * deferred tool the conversation has not loaded before it (Anthropic `tool_reference_unresolved`, an
 * OpenAI function the model was never given).
 */

/** Checks one Anthropic Messages request body; `first` holds the first request's tools bytes. */
export function anthropicDeferredToolViolations(
  body: Record<string, unknown>,
  state: { first?: string },
): string[] {
  const problems: string[] = [];
  const toolsBytes = JSON.stringify(body['tools'] ?? []);
  state.first ??= toolsBytes;
  if (toolsBytes !== state.first)
    problems.push('tools changed since the first request (the tools prefix cache misses)');
  const tools = (body['tools'] ?? []) as { name?: string; defer_loading?: boolean }[];
  const run = {
    sent: new Set(tools.filter((tool) => tool.defer_loading !== true).map((tool) => tool.name)),
    deferred: new Set(tools.filter((tool) => tool.defer_loading === true).map((tool) => tool.name)),
    loaded: new Set<string>(),
    problems,
  };
  const messages = (body['messages'] ?? []) as {
    role: string;
    content: string | Record<string, unknown>[];
  }[];
  messages.forEach((message, index) => {
    if (typeof message.content === 'string') return;
    for (const block of message.content) checkAnthropicBlock(block, { ...run, index });
  });
  return problems;
}

type BlockRun = {
  readonly sent: ReadonlySet<string | undefined>;
  readonly deferred: ReadonlySet<string | undefined>;
  readonly loaded: Set<string>;
  readonly problems: string[];
  readonly index: number;
};

function checkAnthropicBlock(block: Record<string, unknown>, run: BlockRun): void {
  if (block['type'] === 'tool_result' && Array.isArray(block['content']))
    checkReferences(block['content'], run);
  if (block['type'] === 'tool_addition') {
    const tool = block['tool'] as Record<string, unknown>;
    const definition = tool['definition'] as Record<string, unknown> | undefined;
    run.loaded.add(String(definition?.['name'] ?? tool['name']));
  }
  if (block['type'] === 'tool_use') {
    const name = String(block['name']);
    if (!run.sent.has(name) && !run.loaded.has(name))
      run.problems.push(`messages[${run.index}]: tool_use of ${name}, a tool not loaded at that point`);
  }
}

function checkReferences(content: readonly Record<string, unknown>[], run: BlockRun): void {
  for (const inner of content) {
    if (inner['type'] !== 'tool_reference') continue;
    const name = String(inner['tool_name']);
    if (!run.deferred.has(name))
      run.problems.push(`messages[${run.index}]: tool_reference_unresolved ${name}`);
    run.loaded.add(name);
  }
}

/** Checks one OpenAI Responses request body; `first` holds the first request's tools bytes. */
export function responsesDeferredToolViolations(
  body: Record<string, unknown>,
  state: { first?: string },
): string[] {
  const problems: string[] = [];
  const toolsBytes = JSON.stringify(body['tools'] ?? []);
  state.first ??= toolsBytes;
  if (toolsBytes !== state.first)
    problems.push('tools changed since the first request (the tools prefix cache misses)');
  const tools = (body['tools'] ?? []) as { type?: string; name?: string }[];
  const loaded = new Set(tools.map((tool) => tool.name));
  const searches = new Set<string>();
  const items = (Array.isArray(body['input']) ? body['input'] : []) as Record<string, unknown>[];
  items.forEach((item, index) => {
    if (item['type'] === 'tool_search_call' && item['execution'] === 'client')
      searches.add(String(item['call_id']));
    if (item['type'] === 'tool_search_output') {
      if (!searches.has(String(item['call_id'])))
        problems.push(`input[${index}]: no tool_search_call for call_id ${String(item['call_id'])}`);
      searches.delete(String(item['call_id']));
      for (const tool of (item['tools'] ?? []) as { name?: string }[]) loaded.add(tool.name);
    }
    if (item['type'] === 'function_call' && !loaded.has(String(item['name']))) {
      problems.push(
        `input[${index}]: function_call of ${String(item['name'])}, a tool not loaded at that point`,
      );
    }
  });
  for (const id of searches) problems.push(`No tool search output found for tool search call ${id}.`);
  return problems;
}
