import { lstat, readdir, readFile } from 'node:fs/promises';
import { applyCompactions } from '../core/apply-compactions.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import { textOf } from '../core/content.js';
import type { Message } from '../core/message.js';
import { HistoryLog } from '../memory/history-log.js';
import { sessionCompactions } from '../sessions/session-compactions.js';
import type { SessionRecord } from '../sessions/session-store.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import { TOOL_RESULTS_DIR } from '../workspace/plan-tool-result-offload.js';
import { nanobotFileName, resolveInside } from '../workspace/safe-path.js';

/** What kind of source a recall hit comes from. */
export type RecallSourceKind = 'message' | 'summary' | 'offload' | 'history';

/** One searchable source: something the model can no longer see, with where it came from. */
export type RecallSource = {
  /** The id `expand` takes: a message id, a record id, `offload:<session folder>/<file>`, `history:<cursor>`. */
  readonly id: string;
  readonly kind: RecallSourceKind;
  readonly text: string;
  readonly sessionKey: string;
  /** The record that took it out of view (a summary, a context reset, nanobot's consolidation). */
  readonly recordId?: string;
  readonly messageId?: string;
  /** The message's role, for a message. */
  readonly role?: string;
  /** The user turn it belongs to (1 = the session's first user message), for a message. */
  readonly turn?: number;
  /** When it was written (ISO time, or history's `YYYY-MM-DD HH:MM`), when known. */
  readonly time?: string;
  /** Position for "newest first" among sources without a time: later is newer. */
  readonly order: number;
};

/** The largest offload file read for recall (larger ones are searched in their first bytes). */
export const MAX_RECALL_FILE_BYTES = 4 * 1024 * 1024;

/** The text searched for a message: its content and its tool calls. @internal */
export function messageSearchText(message: Message): string {
  const calls = (message.toolCalls ?? []).map((call) => `${call.name}(${call.arguments})`);
  const reasoning = message.reasoning === undefined ? [] : [message.reasoning];
  return [textOf(message.content), ...reasoning, ...calls].filter((text) => text !== '').join('\n');
}

/** What a session's records hide: the messages and earlier summaries no longer in its view. */
export function hiddenSessionSources(session: SessionRecord): readonly RecallSource[] {
  const records = sessionCompactions(session);
  if (records.length === 0) return [];
  const { view, applied } = applyCompactions(session.messages, records);
  const visible = new Set(view.map((message) => message.id));
  const used = new Set(applied);
  const replacedBy = new Map<string, string>();
  for (const record of records)
    if (used.has(record.id)) for (const id of record.replaces) replacedBy.set(id, record.id);
  const sources: RecallSource[] = [];
  let turn = 0;
  session.messages.forEach((message, order) => {
    if (message.role === 'user') turn += 1;
    if (visible.has(message.id)) return;
    const recordId = replacedBy.get(message.id);
    const time = message.metadata?.['timestamp'];
    sources.push({
      id: message.id,
      kind: 'message',
      text: messageSearchText(message),
      sessionKey: session.key,
      ...(recordId === undefined ? {} : { recordId }),
      messageId: message.id,
      role: message.role,
      turn,
      ...(typeof time === 'string' ? { time } : {}),
      order,
    });
  });
  records.forEach((record, index) => {
    const recordId = replacedBy.get(record.id);
    if (!used.has(record.id) || record.summary === undefined || recordId === undefined) return;
    sources.push(summarySource(record, { recordId, sessionKey: session.key, order: index }));
  });
  return sources;
}

function summarySource(
  record: CompactionRecord,
  at: { readonly recordId: string; readonly sessionKey: string; readonly order: number },
): RecallSource {
  return {
    id: record.id,
    kind: 'summary',
    text: record.summary === undefined ? '' : messageSearchText(record.summary),
    sessionKey: at.sessionKey,
    recordId: at.recordId,
    time: record.createdAt,
    order: at.order,
  };
}

/** The offloaded tool results of one session folder (or every folder), as sources. */
export async function offloadSources(options: {
  readonly workspace: string;
  /** One session's folder; every folder when absent. */
  readonly sessionKey?: string;
}): Promise<readonly RecallSource[]> {
  const root = resolveInside(options.workspace, TOOL_RESULTS_DIR);
  const buckets =
    options.sessionKey === undefined ? await listNames(root) : [nanobotFileName(options.sessionKey)];
  const sources: RecallSource[] = [];
  for (const bucket of buckets) {
    const folder = resolveInside(root, bucket);
    for (const name of await listNames(folder)) {
      if (name.startsWith('.')) continue;
      const file = resolveInside(folder, name);
      const text = await readOffload(file);
      if (text === undefined) continue;
      sources.push({
        id: `offload:${bucket}/${name}`,
        kind: 'offload',
        text: text.text,
        sessionKey: options.sessionKey ?? bucket,
        time: text.time,
        order: 0,
      });
    }
  }
  return sources;
}

/** An offload file's text (a `.json` list of text parts as its joined text) and time. @internal */
export async function readOffload(
  file: string,
): Promise<{ readonly text: string; readonly time: string } | undefined> {
  try {
    // Only regular files: a link planted in the tool-results folder is never followed.
    const info = await lstat(file);
    if (!info.isFile()) return undefined;
    const raw = (await readFile(file)).subarray(0, MAX_RECALL_FILE_BYTES).toString('utf8');
    return { text: file.endsWith('.json') ? jsonPartsText(raw) : raw, time: info.mtime.toISOString() };
  } catch (error) {
    if (isMissingFileError(error)) return undefined;
    throw error;
  }
}

function jsonPartsText(raw: string): string {
  try {
    const parts: unknown = JSON.parse(raw);
    if (!Array.isArray(parts)) return raw;
    return parts
      .map((part: unknown) =>
        typeof part === 'object' && part !== null && typeof Reflect.get(part, 'text') === 'string'
          ? String(Reflect.get(part, 'text'))
          : '',
      )
      .join('\n');
  } catch {
    return raw;
  }
}

/** The entries of `memory/history.jsonl` of one session (or all), as sources. */
export async function historySources(options: {
  readonly workspace: string;
  readonly sessionKey?: string;
}): Promise<readonly RecallSource[]> {
  const entries = await new HistoryLog({ workspace: options.workspace }).read();
  return entries
    .filter((entry) => options.sessionKey === undefined || entry.sessionKey === options.sessionKey)
    .map((entry) => ({
      id: `history:${entry.cursor}`,
      kind: 'history' as const,
      text: entry.content,
      sessionKey: entry.sessionKey ?? '',
      time: entry.timestamp,
      order: entry.cursor,
    }));
}

async function listNames(folder: string): Promise<readonly string[]> {
  try {
    return (await readdir(folder)).sort();
  } catch (error) {
    if (isMissingFileError(error)) return [];
    throw error;
  }
}
