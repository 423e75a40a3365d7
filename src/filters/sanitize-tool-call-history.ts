import { type Decision, decision } from '../core/decision.js';
import { ContextError } from '../core/errors.js';
import { generateMessageId, type IdGenerator } from '../core/ids.js';
import type { Message, ToolCall } from '../core/message.js';
import { backfillToolCallIds } from './backfill-tool-call-ids.js';
import { idsOf } from './pinned-prefix.js';

/** Options for {@link sanitizeToolCallHistory}. */
export type SanitizeToolCallHistoryOptions = {
  /** Makes a call id when neither side of an unambiguous pair has one. @default random 32-hex ids (`call_…`) */
  readonly generateId?: IdGenerator;
  /** The stage id written into decisions. @default 'sanitize-tool-calls' */
  readonly stage?: string;
};

/** What {@link sanitizeToolCallHistory} returns: the request copy and why it differs. */
export type SanitizeToolCallHistoryResult = {
  /** The projected list; the input array itself when nothing changed. */
  readonly messages: readonly Message[];
  readonly decisions: readonly Decision[];
};

/**
 * Projects a history into a list that satisfies tool-call integrity, for one request (the stored
 * history is not changed):
 * - a call without an id is backfilled from its result when the pairing is unambiguous (one call and
 *   one result, or as many results as calls with names matching in order); when neither side has an
 *   id, both get a new one (`tool-call-repair` decisions);
 * - an assistant message with an empty `toolCalls` list loses the empty list;
 * - a call with an empty tool name is removed with its results (an assistant message left with no
 *   calls and no text goes too), as a `tool-call-repair` decision;
 * - a transaction that reuses a call id an earlier transaction declared (providers that number calls
 *   per turn) gets a fresh id (`<id>_<n>`) on the call and on its result (`tool-call-repair`), so a
 *   valid current turn is never refused for it;
 * - a broken HISTORICAL transaction (a call with a missing, extra or duplicate result, a call id
 *   declared twice in one message, a call without id) and orphan tool results are removed (`message-drop`).
 *
 * The output always passes `validateToolCallIntegrity`.
 * @throws ContextError `TOOL_CALL_INTEGRITY` when the CURRENT transaction (the one that ends the
 * list: the tool run in progress) is broken, naming the call ids: an illegal request is never sent.
 */
export function sanitizeToolCallHistory(
  messages: readonly Message[],
  options: SanitizeToolCallHistoryOptions = {},
): SanitizeToolCallHistoryResult {
  const stage = options.stage ?? 'sanitize-tool-calls';
  const generateId = options.generateId ?? (() => `call_${generateMessageId()}`);
  const output: Message[] = [];
  const decisions: Decision[] = [];
  const declared = new Set<string>();
  const taken = lazyTakenIds(messages);
  let changed = false;
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as Message;
    const end = toolRunEnd(messages, index + 1);
    const isTail = end === messages.length;
    if (message.role === 'assistant' && message.toolCalls !== undefined) {
      const block = sanitizeBlock({
        messages: messages.slice(index, end),
        declared,
        taken,
        generateId,
        stage,
        isTail,
      });
      output.push(...block.messages);
      decisions.push(...block.decisions);
      changed ||= block.decisions.length > 0;
      index = end;
    } else if (message.role === 'tool') {
      const orphans = messages.slice(index, toolRunEnd(messages, index));
      decisions.push(dropBlock(orphans, { problems: orphans.map(orphanProblem), stage, isTail }));
      changed = true;
      index += orphans.length;
    } else {
      output.push(message);
      index += 1;
    }
  }
  return changed ? { messages: output, decisions } : { messages, decisions: [] };
}

/** One thing wrong with a transaction, for decisions and errors. */
type Problem = { readonly text: string; readonly toolCallId?: string };

function toolRunEnd(messages: readonly Message[], from: number): number {
  let end = from;
  while (end < messages.length && (messages[end] as Message).role === 'tool') end += 1;
  return end;
}

type Block = {
  readonly messages: readonly Message[];
  readonly declared: Set<string>;
  readonly taken: () => Set<string>;
  readonly generateId: IdGenerator;
  readonly stage: string;
  readonly isTail: boolean;
};

function sanitizeBlock(original: Block): SanitizeToolCallHistoryResult {
  const named = dropUnnamedCalls(original);
  const renamed = renameReusedIds({ ...original, messages: named.messages });
  const block = { ...original, messages: renamed.messages };
  const rest = sanitizeNamedBlock(block);
  return {
    messages: rest.messages,
    decisions: [...named.decisions, ...renamed.decisions, ...rest.decisions],
  };
}

/** Every call id and result id of the list, computed on first use (only a rename needs it). */
function lazyTakenIds(messages: readonly Message[]): () => Set<string> {
  let taken: Set<string> | undefined;
  return () => {
    if (taken !== undefined) return taken;
    taken = new Set();
    for (const message of messages) {
      if (message.toolCallId) taken.add(message.toolCallId);
      for (const toolCall of message.toolCalls ?? []) if (toolCall.id) taken.add(toolCall.id);
    }
    return taken;
  };
}

/**
 * Removes calls without a tool name (no provider accepts them) and the results that answer them.
 * An assistant message left with no calls and no text is removed too.
 */
function dropUnnamedCalls(block: Block): SanitizeToolCallHistoryResult {
  const [call, ...results] = block.messages as [Message, ...Message[]];
  const calls = call.toolCalls ?? [];
  const unnamed = calls.filter(
    (toolCall) => typeof toolCall.name !== 'string' || toolCall.name.trim() === '',
  );
  if (unnamed.length === 0) return { messages: block.messages, decisions: [] };
  const ids = new Set(unnamed.flatMap((toolCall) => (toolCall.id ? [toolCall.id] : [])));
  const keptCalls = calls.filter((toolCall) => !unnamed.includes(toolCall));
  const droppedResults = results.filter(
    (result) => result.toolCallId !== undefined && ids.has(result.toolCallId),
  );
  const keptResults = results.filter((result) => !droppedResults.includes(result));
  const decisions: Decision[] = [
    decision('tool-call-repair', {
      stage: block.stage,
      reason:
        `Removed ${unnamed.length === 1 ? 'a tool call' : `${unnamed.length} tool calls`} with an empty tool name` +
        `${droppedResults.length > 0 ? ' and the results that answer them' : ''} from this request.`,
      messageIds: [call.id, ...idsOf(droppedResults)],
      details: { toolCallIds: [...ids] },
    }),
  ];
  if (keptCalls.length > 0)
    return { messages: [{ ...call, toolCalls: keptCalls }, ...keptResults], decisions };
  const { toolCalls: _unnamed, ...text } = call;
  const blank = typeof call.content === 'string' ? call.content.trim() === '' : call.content.length === 0;
  return { messages: blank ? keptResults : [{ ...text, toolCalls: [] }, ...keptResults], decisions };
}

/**
 * A call whose id an earlier transaction already declared (providers that number calls per turn,
 * `call_0`, reuse ids) gets a fresh id, and so do the results in its transaction that answer it: the
 * pairing stays the provider's, the request stays legal.
 */
function renameReusedIds(block: Block): SanitizeToolCallHistoryResult {
  const [call, ...results] = block.messages as [Message | undefined, ...Message[]];
  if (call?.role !== 'assistant') return { messages: block.messages, decisions: [] };
  const calls = call.toolCalls ?? [];
  const reused = calls.filter((toolCall) => toolCall.id && block.declared.has(toolCall.id));
  const answers = new Map<string, number>();
  for (const result of results)
    if (result.toolCallId) answers.set(result.toolCallId, (answers.get(result.toolCallId) ?? 0) + 1);
  const renames = new Map<string, string>();
  for (const toolCall of reused) {
    const sameIdCalls = calls.filter((other) => other.id === toolCall.id).length;
    // Rename only an unambiguous pair: one call with this id here, answered at most once.
    if (sameIdCalls !== 1 || (answers.get(toolCall.id) ?? 0) > 1) continue;
    renames.set(toolCall.id, freshId(toolCall.id, block.taken()));
  }
  if (renames.size === 0) return { messages: block.messages, decisions: [] };
  const renamedCall: Message = {
    ...call,
    toolCalls: calls.map((toolCall) => {
      const fresh = renames.get(toolCall.id);
      return fresh === undefined ? toolCall : { ...toolCall, id: fresh };
    }),
  };
  const renamedResults = results.map((result) => {
    const fresh = result.toolCallId === undefined ? undefined : renames.get(result.toolCallId);
    return fresh === undefined ? result : { ...result, toolCallId: fresh };
  });
  const decisions = [...renames].map(([from, to]) =>
    decision('tool-call-repair', {
      stage: block.stage,
      reason: `call id ${from} was already declared earlier in the history; renamed to ${to} with its result`,
      messageIds: [call.id, ...idsOf(results.filter((result) => result.toolCallId === from))],
      details: { toolCallId: from, newToolCallId: to },
    }),
  );
  return { messages: [renamedCall, ...renamedResults], decisions };
}

function freshId(id: string, taken: Set<string>): string {
  let counter = 1;
  while (taken.has(`${id}_${counter}`)) counter += 1;
  const fresh = `${id}_${counter}`;
  taken.add(fresh);
  return fresh;
}

function sanitizeNamedBlock(block: Block): SanitizeToolCallHistoryResult {
  if (block.messages.length === 0) return { messages: [], decisions: [] };
  const [call, ...results] = block.messages as [Message, ...Message[]];
  if (call.role === 'tool') {
    return {
      messages: [],
      decisions: [dropBlock(block.messages, { ...block, problems: block.messages.map(orphanProblem) })],
    };
  }
  const calls = call.toolCalls ?? [];
  if (calls.length === 0) {
    const { toolCalls: _empty, ...rest } = call;
    const repair = decision('tool-call-repair', {
      stage: block.stage,
      reason: 'Removed an empty toolCalls list from an assistant message.',
      messageIds: [call.id],
    });
    if (results.length === 0) return { messages: [rest], decisions: [repair] };
    const drop = dropBlock(results, { ...block, problems: results.map(orphanProblem) });
    return { messages: [rest], decisions: [repair, drop] };
  }
  const repaired = backfillToolCallIds({ call, results, generateId: block.generateId, stage: block.stage });
  const problems = findProblems(repaired.messages, block.declared);
  if (problems.length > 0)
    return { messages: [], decisions: [dropBlock(block.messages, { ...block, problems })] };
  for (const toolCall of (repaired.messages[0] as Message).toolCalls ?? []) block.declared.add(toolCall.id);
  return repaired;
}

function findProblems(messages: readonly Message[], declaredBefore: ReadonlySet<string>): readonly Problem[] {
  const [call, ...results] = messages as [Message, ...Message[]];
  const problems: Problem[] = [];
  const pending = new Set<string>();
  for (const toolCall of call.toolCalls ?? []) {
    const problem = callProblem(toolCall, { declaredBefore, pending });
    if (problem === undefined) pending.add(toolCall.id);
    else problems.push(problem);
  }
  const answered = new Set<string>();
  for (const result of results) {
    const problem = resultProblem(result, { pending, answered });
    if (problem === undefined) answered.add(result.toolCallId ?? '');
    else problems.push(problem);
  }
  for (const id of pending) {
    if (!answered.has(id)) problems.push({ text: `call ${id} has no result`, toolCallId: id });
  }
  return problems;
}

function callProblem(
  toolCall: ToolCall,
  state: { readonly declaredBefore: ReadonlySet<string>; readonly pending: ReadonlySet<string> },
): Problem | undefined {
  if (!toolCall.id) return { text: `a call to '${toolCall.name}' has no id` };
  if (state.declaredBefore.has(toolCall.id) || state.pending.has(toolCall.id)) {
    return { text: `call id ${toolCall.id} is declared twice`, toolCallId: toolCall.id };
  }
  return undefined;
}

function resultProblem(
  result: Message,
  state: { readonly pending: ReadonlySet<string>; readonly answered: ReadonlySet<string> },
): Problem | undefined {
  const id = result.toolCallId;
  if (!id) return { text: `tool result ${result.id} has no toolCallId` };
  if (state.answered.has(id)) return { text: `call ${id} is answered twice`, toolCallId: id };
  if (!state.pending.has(id)) return { text: `result ${id} answers no call here`, toolCallId: id };
  return undefined;
}

function orphanProblem(message: Message): Problem {
  const id = message.toolCallId;
  return id
    ? { text: `result ${id} follows no assistant message that declared it`, toolCallId: id }
    : { text: `tool result ${message.id} has no toolCallId` };
}

function dropBlock(
  messages: readonly Message[],
  where: { readonly problems: readonly Problem[]; readonly stage: string; readonly isTail: boolean },
): Decision {
  const { problems } = where;
  const toolCallIds = [...new Set(problems.flatMap((problem) => problem.toolCallId ?? []))];
  const what = problems.map((problem) => problem.text).join('; ');
  if (where.isTail) {
    throw new ContextError({
      code: 'TOOL_CALL_INTEGRITY',
      message:
        `The current tool-call transaction (the end of the message list) is broken: ${what}` +
        `${toolCallIds.length > 0 ? ` (call ids: ${toolCallIds.join(', ')})` : ''}. Sending it would be an ` +
        'illegal request; add the missing tool results or remove the unanswered calls before building.',
      details: {
        toolCallIds,
        messageIds: idsOf(messages),
        problems: problems.map((problem) => problem.text),
      },
    });
  }
  return decision('message-drop', {
    stage: where.stage,
    reason: `Removed a broken historical tool-call transaction from this request (stored history unchanged): ${what}.`,
    messageIds: idsOf(messages),
    details: { toolCallIds },
  });
}
