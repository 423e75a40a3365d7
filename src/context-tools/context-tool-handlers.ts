import { appendCompaction } from '../compaction/append-compaction.js';
import { compactHistory } from '../compaction/compact-history.js';
import { ContextError } from '../core/errors.js';
import type { ToolCall } from '../core/message.js';
import { renderSessionNotes } from '../core/session-notes.js';
import { sessionView } from '../core/session-view.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { sessionCompactions } from '../sessions/session-compactions.js';
import { NOTES_METADATA_KEY, sessionNotesOf } from '../sessions/session-notes-of.js';
import type { SessionRecord } from '../sessions/session-store.js';
import { type ContextToolResult, toolError } from './context-tool-result.js';
import { measureContextUsage, renderContextUsage } from './context-usage.js';
import { expandSource, renderExpandedPage } from './expand-source.js';
import { MEMORY_TOOL_KEYS, runMemoryCommand } from './memory-folder-tool.js';
import { writeNewContext } from './new-context.js';
import { NOTE_ARGUMENT_KEYS, notesFromArguments } from './notes-arguments.js';
import { parseRecallQuery } from './recall-query.js';
import { hiddenSessionSources, historySources, offloadSources, type RecallSource } from './recall-sources.js';
import type { ResolvedContextTools } from './resolved-context-tools.js';
import { renderRecallPage, searchRecallSources } from './search-recall-sources.js';
import { integerArgument, parseToolArguments, stringArgument } from './tool-arguments.js';

/** How many other sessions a workspace-wide recall reads at most. */
export const MAX_RECALL_SESSIONS = 200;

type Run = {
  readonly resolved: ResolvedContextTools;
  readonly definitions: readonly ToolDefinition[];
  readonly signal: AbortSignal | undefined;
};

const KEYS: Readonly<Record<string, readonly string[]>> = {
  recall: ['query', 'limit', 'cursor', 'scope', 'id'],
  expand: ['id', 'cursor'],
  compact_now: ['instructions'],
  context_remaining: [],
  new_context: NOTE_ARGUMENT_KEYS,
  notes: ['command', ...NOTE_ARGUMENT_KEYS],
  memory: MEMORY_TOOL_KEYS,
};

/** Runs one context-tool call (its name is one of the tools offered). @internal */
export async function runContextTool(call: ToolCall, run: Run): Promise<ContextToolResult> {
  const parsed = parseToolArguments(call.arguments, { name: call.name, keys: KEYS[call.name] ?? [] });
  if (!parsed.ok) return toolError(parsed.error);
  const args = parsed.value;
  switch (call.name) {
    case 'recall':
      return args['id'] === undefined ? recall(args, run) : expand(args, run);
    case 'expand':
      return expand(args, run);
    case 'compact_now':
      return compactNow(args, run);
    case 'context_remaining':
      return renderContextUsage(await measureContextUsage(run.resolved, run.definitions));
    case 'new_context':
      return newContext(args, run);
    case 'notes':
      return notes(args, run);
    case 'memory':
      return runMemoryCommand(args, {
        root: run.resolved.memoryRoot,
        maxFileBytes: run.resolved.maxMemoryFileBytes,
        readOnly: run.resolved.readOnlyMemoryFiles,
      });
    default:
      return toolError(`Unknown context tool ${JSON.stringify(call.name)}.`);
  }
}

async function recall(args: Readonly<Record<string, unknown>>, run: Run): Promise<ContextToolResult> {
  const { resolved } = run;
  const text = stringArgument(args['query'], { tool: 'recall', name: 'query', isRequired: true });
  if ('error' in text) return toolError(text.error);
  const query = parseRecallQuery(text.value ?? '');
  if ('error' in query) return toolError(query.error);
  const limit = integerArgument(args['limit'], { tool: 'recall', name: 'limit', min: 1, max: 50 });
  if ('error' in limit) return toolError(limit.error);
  const offset = cursorOf(args['cursor'], 'recall');
  if (typeof offset === 'string') return toolError(offset);
  const scope = args['scope'] ?? 'session';
  if (scope !== 'session' && scope !== 'workspace')
    return toolError("recall: `scope` is 'session' or 'workspace'.");
  if (scope === 'workspace' && !resolved.isWorkspaceScopeAllowed)
    return toolError("recall: scope 'workspace' is turned off here; search this session only.");
  const sources = await collectSources(scope === 'workspace', run);
  const page = searchRecallSources(sources, {
    query,
    limit: limit.value ?? resolved.recallPageSize,
    offset,
    timeoutMs: resolved.regexTimeoutMs,
  });
  if (page === 'timed-out')
    return toolError(
      `recall: the regular expression ran longer than ${resolved.regexTimeoutMs} ms and was stopped; simplify it or search by words.`,
    );
  return renderRecallPage(page, text.value ?? '');
}

async function collectSources(isWorkspace: boolean, run: Run): Promise<readonly RecallSource[]> {
  const { options } = run.resolved;
  const sessions: RecallSource[] = [];
  for await (const session of sessionsOf(isWorkspace, run)) sessions.push(...hiddenSessionSources(session));
  const scope = isWorkspace ? {} : { sessionKey: options.sessionKey };
  const [offloads, history] = await Promise.all([
    offloadSources({ workspace: options.workspace, ...scope }),
    historySources({ workspace: options.workspace, ...scope }),
  ]);
  return [...sessions, ...offloads, ...history];
}

/** This session, then (for the workspace scope) the store's other sessions, up to the cap. */
async function* sessionsOf(isWorkspace: boolean, run: Run): AsyncIterable<SessionRecord> {
  const { options } = run.resolved;
  const call = run.signal === undefined ? {} : { signal: run.signal };
  yield await options.store.load(options.sessionKey, call);
  if (!isWorkspace) return;
  const others = (await options.store.list(call)).filter((summary) => summary.key !== options.sessionKey);
  for (const summary of others.slice(0, MAX_RECALL_SESSIONS))
    yield await options.store.load(summary.key, call);
}

async function expand(args: Readonly<Record<string, unknown>>, run: Run): Promise<ContextToolResult> {
  const { resolved } = run;
  const id = stringArgument(args['id'], { tool: 'expand', name: 'id', isRequired: true });
  if ('error' in id) return toolError(id.error);
  const offset = cursorOf(args['cursor'], 'expand');
  if (typeof offset === 'string') return toolError(offset);
  const key = id.value ?? '';
  const source = await expandSource(key, {
    workspace: resolved.options.workspace,
    sessions: () => sessionsOf(resolved.isWorkspaceScopeAllowed, run),
    isWorkspaceScope: resolved.isWorkspaceScopeAllowed,
    sessionKey: resolved.options.sessionKey,
  });
  if (source === undefined)
    return toolError(`expand: nothing has the id ${JSON.stringify(key)}; use an id recall gave.`);
  if (offset > source.text.length)
    return toolError(`expand: cursor ${offset} is past the end (${source.text.length} characters).`);
  return renderExpandedPage(source, { offset, pageChars: resolved.expandPageChars });
}

function cursorOf(value: unknown, tool: string): number | string {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value))
    return `${tool}: \`cursor\` must be the cursor a previous page gave (a string of digits).`;
  return Number(value);
}

async function compactNow(args: Readonly<Record<string, unknown>>, run: Run): Promise<ContextToolResult> {
  const { resolved } = run;
  const { options } = resolved;
  const instructions = stringArgument(args['instructions'], {
    tool: 'compact_now',
    name: 'instructions',
    isRequired: false,
  });
  if ('error' in instructions) return toolError(instructions.error);
  const usage = await measureContextUsage(resolved, run.definitions);
  if (usage.usedTokens < resolved.compactFloorTokens)
    return toolError(
      `compact_now refused: the context takes ${usage.usedTokens} tokens, under the ${resolved.compactFloorTokens}-token floor (${usage.leftTokens} of ${usage.contextWindowTokens - usage.maxOutputTokens} left). Nothing changed; keep working.`,
    );
  const call = run.signal === undefined ? {} : { signal: run.signal };
  const session = await options.store.load(options.sessionKey, call);
  const view = sessionView(session.messages, sessionCompactions(session));
  const summarizer = options.summarizer;
  if (summarizer === undefined) return toolError('compact_now: no summariser is configured.');
  const compaction = options.compaction ?? {};
  const result = await compactHistory(view, {
    summarizer,
    trigger: 'tool',
    tokenCounter: resolved.tokenCounter,
    now: resolved.now,
    generateId: resolved.generateId,
    ...compaction,
    ...(instructions.value === undefined ? {} : { instructions: instructions.value }),
    ...call,
  });
  if (result.record === undefined)
    return toolError(`compact_now did nothing (${result.reason}): ${result.detail}`);
  try {
    await appendCompaction(options.store, { sessionKey: options.sessionKey, record: result.record, ...call });
  } catch (error) {
    if (ContextError.isInstance(error) && error.code === 'STORE_CONFLICT')
      return toolError(`compact_now: the session changed meanwhile; nothing changed (${error.message}).`);
    throw error;
  }
  const { record } = result;
  return `Compacted: record ${record.id} replaced ${record.replaces.length} items (${record.tokensBefore} → ${record.tokensAfter} tokens, ${result.pins.ids.length} pinned kept verbatim). They are out of view from the next request; recall and expand ${JSON.stringify(record.id)} still reach them.`;
}

async function newContext(args: Readonly<Record<string, unknown>>, run: Run): Promise<ContextToolResult> {
  const { resolved } = run;
  const notes = notesFromArguments(args, {
    tool: 'new_context',
    updatedAt: resolved.now().toISOString(),
    maxChars: resolved.maxNotesChars,
  });
  if ('error' in notes) return toolError(notes.error);
  const pinned = resolved.options.compaction?.pinned;
  try {
    const outcome = await writeNewContext(resolved.options.store, {
      sessionKey: resolved.options.sessionKey,
      notes,
      tokenCounter: resolved.tokenCounter,
      recordId: resolved.generateId(),
      ...(pinned === undefined ? {} : { pinned }),
      ...(run.signal === undefined ? {} : { signal: run.signal }),
    });
    const { record } = outcome;
    return record === undefined
      ? 'Notes saved. There was nothing earlier to clear: the next request starts from your notes and the current task.'
      : `New context: your notes are saved, and ${record.replaces.length} earlier items (${record.tokensBefore} tokens) are out of view from the next request (record ${record.id}; recall and expand reach them). The next request starts from the pinned messages, your notes and the current task.`;
  } catch (error) {
    if (ContextError.isInstance(error) && error.code === 'ABORTED') throw error;
    const reason = error instanceof Error ? error.message : String(error);
    return toolError(
      `new_context refused: the notes could not be saved (${reason}). Nothing changed: your context is as it was. Keep working, or try again.`,
    );
  }
}

async function notes(args: Readonly<Record<string, unknown>>, run: Run): Promise<ContextToolResult> {
  const { options } = run.resolved;
  const call = run.signal === undefined ? {} : { signal: run.signal };
  if (args['command'] === 'view') {
    const extra = Object.keys(args).filter((key) => key !== 'command');
    if (extra.length > 0) return toolError(`notes view takes no other arguments (got ${extra.join(', ')}).`);
    const stored = sessionNotesOf(await options.store.load(options.sessionKey, call));
    return stored === undefined ? 'No notes yet.' : renderSessionNotes(stored);
  }
  if (args['command'] !== 'write') return toolError("notes: `command` is 'view' or 'write'.");
  const written = notesFromArguments(args, {
    tool: 'notes',
    updatedAt: run.resolved.now().toISOString(),
    maxChars: run.resolved.maxNotesChars,
  });
  if ('error' in written) return toolError(written.error);
  try {
    await options.store.setMetadata(options.sessionKey, { [NOTES_METADATA_KEY]: written }, call);
  } catch (error) {
    if (ContextError.isInstance(error) && error.code === 'ABORTED') throw error;
    const reason = error instanceof Error ? error.message : String(error);
    return toolError(`notes: could not save (${reason}); the previous notes are unchanged.`);
  }
  return 'Notes saved; they are shown to you from the next request on.';
}
