import type { SessionNotes } from '../core/session-notes.js';
import { stringArgument, stringListArgument } from './tool-arguments.js';

/** The note fields `new_context` and `notes write` take. */
export const NOTE_ARGUMENT_KEYS: readonly string[] = [
  'goal',
  'state',
  'decisions',
  'open_tasks',
  'next_step',
];

/** The default cap of the notes, in characters (all fields together). */
export const DEFAULT_MAX_NOTES_CHARS = 8_000;

/** Characters of every field of the notes together. */
function notesSize(notes: SessionNotes): number {
  const texts = [
    notes.goal,
    notes.state,
    notes.nextStep,
    ...(notes.decisions ?? []),
    ...(notes.openTasks ?? []),
  ];
  return texts.reduce((sum, text) => sum + (text?.length ?? 0), 0);
}

/**
 * The notes in a call's arguments (`goal` required; `state`, `decisions`, `open_tasks`, `next_step`),
 * stamped `updatedAt`, or the message telling the model what was wrong.
 */
export function notesFromArguments(
  args: Readonly<Record<string, unknown>>,
  at: { readonly tool: string; readonly updatedAt: string; readonly maxChars: number },
): SessionNotes | { readonly error: string } {
  const fields = noteFields(args, at.tool);
  if ('error' in fields) return fields;
  const notes: SessionNotes = { ...fields, updatedAt: at.updatedAt };
  const size = notesSize(notes);
  if (size > at.maxChars)
    return {
      error: `${at.tool}: the notes have ${size} characters, over the ${at.maxChars} allowed; keep what the next context needs and put details in the memory folder.`,
    };
  return notes;
}

function noteFields(
  args: Readonly<Record<string, unknown>>,
  tool: string,
): Omit<SessionNotes, 'updatedAt'> | { readonly error: string } {
  const goal = stringArgument(args['goal'], { tool, name: 'goal', isRequired: true });
  if ('error' in goal) return goal;
  if ((goal.value ?? '').trim() === '')
    return { error: `${tool}: \`goal\` is empty; say what the task is for.` };
  const state = stringArgument(args['state'], { tool, name: 'state', isRequired: false });
  const nextStep = stringArgument(args['next_step'], { tool, name: 'next_step', isRequired: false });
  const decisions = stringListArgument(args['decisions'], { tool, name: 'decisions' });
  const openTasks = stringListArgument(args['open_tasks'], { tool, name: 'open_tasks' });
  const failed = [state, nextStep, decisions, openTasks].find((field) => 'error' in field);
  if (failed !== undefined && 'error' in failed) return failed;
  const value = <T>(field: { readonly value: T | undefined } | { readonly error: string }): T | undefined =>
    'value' in field ? field.value : undefined;
  const fields = {
    state: value(state),
    decisions: value(decisions),
    openTasks: value(openTasks),
    nextStep: value(nextStep),
  };
  return {
    goal: goal.value ?? '',
    ...Object.fromEntries(Object.entries(fields).filter(([, field]) => field !== undefined)),
  };
}
