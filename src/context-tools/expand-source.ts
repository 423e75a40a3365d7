import path from 'node:path';
import type { CompactionRecord } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import { HistoryLog } from '../memory/history-log.js';
import { sessionCompactions } from '../sessions/session-compactions.js';
import type { SessionRecord } from '../sessions/session-store.js';
import { TOOL_RESULTS_DIR } from '../workspace/plan-tool-result-offload.js';
import { resolveRealInside } from '../workspace/resolve-real-inside.js';
import { nanobotFileName, resolveInside } from '../workspace/safe-path.js';
import { messageSearchText, readOffload } from './recall-sources.js';

/** The full text of a source, before paging. */
export type ExpandedSource = { readonly title: string; readonly text: string };

/**
 * The full text behind an id recall gave, from the sessions given (the current one first): a record's
 * original messages and earlier summaries in order, a message, an offloaded tool result or a history
 * entry. `undefined` when nothing has that id.
 */
export async function expandSource(
  id: string,
  options: {
    readonly workspace: string;
    readonly sessions: () => AsyncIterable<SessionRecord>;
    /** Whether offloads and history entries of other sessions may be read. */
    readonly isWorkspaceScope: boolean;
    readonly sessionKey: string;
  },
): Promise<ExpandedSource | undefined> {
  if (id.startsWith('offload:')) return expandOffload(id, options);
  if (id.startsWith('history:')) return expandHistory(id, options);
  for await (const session of options.sessions()) {
    const found = expandInSession(id, session);
    if (found !== undefined) return found;
  }
  return undefined;
}

function expandInSession(id: string, session: SessionRecord): ExpandedSource | undefined {
  const records = sessionCompactions(session);
  const record = records.find((candidate) => candidate.id === id);
  if (record !== undefined) return expandRecord(record, { session, records });
  const message = session.messages.find((candidate) => candidate.id === id);
  if (message !== undefined)
    return {
      title: `message ${id} (${message.role}) of session ${session.key}`,
      text: messageBlock(message),
    };
  return undefined;
}

function expandRecord(
  record: CompactionRecord,
  at: { readonly session: SessionRecord; readonly records: readonly CompactionRecord[] },
): ExpandedSource {
  const messages = new Map(at.session.messages.map((message) => [message.id, message]));
  const records = new Map(at.records.map((candidate) => [candidate.id, candidate]));
  const blocks = record.replaces.map((id) => {
    const message = messages.get(id);
    if (message !== undefined) return `--- message ${id} (${message.role}) ---\n${messageBlock(message)}`;
    const earlier = records.get(id);
    const summary = earlier?.summary === undefined ? '(no summary)' : messageBlock(earlier.summary);
    return `--- summary of record ${id} (expand ${id} for its own sources) ---\n${summary}`;
  });
  const pinned = record.pinned ?? [];
  const pins = pinned.length === 0 ? [] : [`(still in view, pinned: ${pinned.join(', ')})`];
  return {
    title: `record ${record.id} (${record.kind}, trigger ${record.trigger}, ${record.createdAt}): the ${record.replaces.length} items it replaced, in order`,
    text: [...blocks, ...pins].join('\n\n'),
  };
}

function messageBlock(message: Message): string {
  const call = message.toolCallId === undefined ? '' : `[result of tool call ${message.toolCallId}]\n`;
  return `${call}${messageSearchText(message)}`;
}

async function expandOffload(
  id: string,
  options: { readonly workspace: string; readonly isWorkspaceScope: boolean; readonly sessionKey: string },
): Promise<ExpandedSource | undefined> {
  const relative = id.slice('offload:'.length);
  const root = resolveInside(options.workspace, TOOL_RESULTS_DIR);
  let file: string;
  try {
    file = await resolveRealInside(root, relative);
  } catch {
    return undefined;
  }
  const bucket = path.dirname(resolveInside(root, relative));
  const own = resolveInside(root, nanobotFileName(options.sessionKey));
  if (!options.isWorkspaceScope && bucket !== own) return undefined;
  const text = await readOffload(file);
  return text === undefined ? undefined : { title: `offloaded tool result ${id}`, text: text.text };
}

async function expandHistory(
  id: string,
  options: { readonly workspace: string; readonly isWorkspaceScope: boolean; readonly sessionKey: string },
): Promise<ExpandedSource | undefined> {
  const cursor = Number(id.slice('history:'.length));
  if (!Number.isInteger(cursor)) return undefined;
  const entries = await new HistoryLog({ workspace: options.workspace }).read();
  const entry = entries.find((candidate) => candidate.cursor === cursor);
  if (entry === undefined) return undefined;
  if (!options.isWorkspaceScope && entry.sessionKey !== options.sessionKey) return undefined;
  return { title: `history entry ${cursor} (${entry.timestamp})`, text: entry.content };
}

/** The page of an expanded source from character `offset`, as the text the model reads. */
export function renderExpandedPage(
  source: ExpandedSource,
  page: { readonly offset: number; readonly pageChars: number },
): string {
  const end = Math.min(source.text.length, page.offset + page.pageChars);
  const body = source.text.slice(page.offset, end);
  const header = `${source.title}; characters ${page.offset}–${end} of ${source.text.length}:`;
  const footer =
    end < source.text.length
      ? `(more: call expand again with cursor ${JSON.stringify(String(end))})`
      : '(end of source)';
  return `${header}\n${body}\n${footer}`;
}
