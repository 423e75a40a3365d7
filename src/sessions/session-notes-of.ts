import { isRecord } from '../core/is-record.js';
import type { SessionNotes } from '../core/session-notes.js';
import type { SessionRecord } from './session-store.js';

/**
 * The session metadata key under which the model's notes are kept (every store keeps metadata, and
 * nanobot loads the file as it is).
 */
export const NOTES_METADATA_KEY = 'ctxloom_notes';

/** The notes a loaded session keeps, or `undefined` when it has none (or the entry is not notes). */
export function sessionNotesOf(session: Pick<SessionRecord, 'metadata'>): SessionNotes | undefined {
  const value = session.metadata[NOTES_METADATA_KEY];
  if (!isRecord(value)) return undefined;
  const { goal, updatedAt, state, nextStep, decisions, openTasks } = value;
  if (typeof goal !== 'string' || typeof updatedAt !== 'string') return undefined;
  const strings = (items: unknown): readonly string[] | undefined =>
    Array.isArray(items) ? items.filter((item): item is string => typeof item === 'string') : undefined;
  const decisionList = strings(decisions);
  const taskList = strings(openTasks);
  return {
    goal,
    ...(typeof state === 'string' ? { state } : {}),
    ...(decisionList === undefined ? {} : { decisions: decisionList }),
    ...(taskList === undefined ? {} : { openTasks: taskList }),
    ...(typeof nextStep === 'string' ? { nextStep } : {}),
    updatedAt,
  };
}
