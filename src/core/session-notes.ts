/**
 * The model's own notes for a session (Codex's persistent notes, a `new_context` hand-over): a
 * first-class, pinned section of every request, updated only by the model through the context tools
 * (`new_context`, `notes`). Plain JSON, kept in the session's metadata.
 */
export type SessionNotes = {
  /** What the whole task is for. */
  readonly goal: string;
  /** Where the work stands. */
  readonly state?: string;
  /** Decisions made, with the reason when it matters. */
  readonly decisions?: readonly string[];
  /** What is still to do. */
  readonly openTasks?: readonly string[];
  /** The very next step. */
  readonly nextStep?: string;
  /** ISO 8601 time of the last write. */
  readonly updatedAt: string;
};

/** The title line of the rendered notes section. */
export const SESSION_NOTES_TITLE = '[Session Notes — written by you, kept across context resets]';

/** The notes as the Markdown the model reads (the same text for the same notes). */
export function renderSessionNotes(notes: SessionNotes): string {
  const lines = [SESSION_NOTES_TITLE, '', `Goal: ${notes.goal}`];
  if (notes.state !== undefined && notes.state !== '') lines.push('', `State: ${notes.state}`);
  const list = (title: string, items: readonly string[] | undefined): void => {
    if (items === undefined || items.length === 0) return;
    lines.push('', `${title}:`, ...items.map((item) => `- ${item}`));
  };
  list('Decisions', notes.decisions);
  list('Open tasks', notes.openTasks);
  if (notes.nextStep !== undefined && notes.nextStep !== '') lines.push('', `Next step: ${notes.nextStep}`);
  return lines.join('\n');
}
