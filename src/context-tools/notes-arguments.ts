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

/**
 * The notes in a call's arguments (`goal` required; `state`, `decisions`, `open_tasks`, `next_step`),
 * stamped `updatedAt`, or the message telling the model what was wrong.
 */
export function notesFromArguments(
  args: Readonly<Record<string, unknown>>,
  at: { readonly tool: string; readonly updatedAt: string; readonly maxChars: number },
): SessionNotes | { readonly error: string } {
  const goal = stringArgument(args['goal'], { tool: at.tool, name: 'goal', isRequired: true });
  if ('error' in goal) return goal;
  if ((goal.value ?? '').trim() === '')
    return { error: `${at.tool}: \`goal\` is empty; say what the task is for.` };
  const state = stringArgument(args['state'], { tool: at.tool, name: 'state', isRequired: false });
  if ('error' in state) return state;
  const nextStep = stringArgument(args['next_step'], { tool: at.tool, name: 'next_step', isRequired: false });
  if ('error' in nextStep) return nextStep;
  const decisions = stringListArgument(args['decisions'], { tool: at.tool, name: 'decisions' });
  if ('error' in decisions) return decisions;
  const openTasks = stringListArgument(args['open_tasks'], { tool: at.tool, name: 'open_tasks' });
  if ('error' in openTasks) return openTasks;
  const notes: SessionNotes = {
    goal: goal.value ?? '',
    ...(state.value === undefined ? {} : { state: state.value }),
    ...(decisions.value === undefined ? {} : { decisions: decisions.value }),
    ...(openTasks.value === undefined ? {} : { openTasks: openTasks.value }),
    ...(nextStep.value === undefined ? {} : { nextStep: nextStep.value }),
    updatedAt: at.updatedAt,
  };
  const size = [
    notes.goal,
    notes.state ?? '',
    notes.nextStep ?? '',
    ...(notes.decisions ?? []),
    ...(notes.openTasks ?? []),
  ]
    .map((text) => text.length)
    .reduce((sum, length) => sum + length, 0);
  if (size > at.maxChars)
    return {
      error: `${at.tool}: the notes have ${size} characters, over the ${at.maxChars} allowed; keep what the next context needs and put details in the memory folder.`,
    };
  return notes;
}
