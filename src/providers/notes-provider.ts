import type { Message } from '../core/message.js';
import { renderSessionNotes } from '../core/session-notes.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider } from '../pipeline/contracts.js';
import { SystemMessageMemo } from './system-message-memo.js';

/** Options for {@link NotesProvider}. */
export type NotesProviderOptions = {
  /** The provider id (the section name in the trace, `inspect` and the inspector). @default 'notes' */
  readonly id?: string;
};

/**
 * The model's own notes (`input.notes`, written through the context tools' `new_context` or `notes`)
 * as a pinned system section: goal, state, decisions, open tasks and next step. The text changes only
 * when the model writes its notes, so the prompt stays cacheable between those writes. Nothing when
 * the session has no notes.
 */
export class NotesProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  /** The last message, given again while it says the same. */
  readonly #said = new SystemMessageMemo();

  constructor(options: NotesProviderOptions = {}) {
    this.id = options.id ?? 'notes';
  }

  getMessages(input: BuildInput, context: BuildContext): readonly Message[] {
    if (input.notes === undefined) return [];
    return [this.#said.message({ content: renderSessionNotes(input.notes) }, context.generateId)];
  }
}
