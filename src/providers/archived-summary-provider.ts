import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider } from '../pipeline/contracts.js';
import { SystemMessageMemo } from './system-message-memo.js';

/** Options for {@link ArchivedSummaryProvider}. */
export type ArchivedSummaryProviderOptions = {
  /** The provider id. @default 'archived-summary' */
  readonly id?: string;
};

/**
 * Part 8 of the agent system prompt: `input.summary` as
 * `[Archived Context Summary]\n\nPrevious conversation summary (last active {lastActive}):\n{text}`.
 * The timestamp is the static last-activity time, never "inactive for N minutes", so the prompt
 * stays cacheable. Nothing when there is no summary or its text is blank.
 */
export class ArchivedSummaryProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  /** The last message, given again while it says the same. */
  readonly #said = new SystemMessageMemo();

  constructor(options: ArchivedSummaryProviderOptions = {}) {
    this.id = options.id ?? 'archived-summary';
  }

  getMessages(input: BuildInput, context: BuildContext): readonly Message[] {
    const summary = input.summary;
    if (summary === undefined || summary.text.trim() === '') return [];
    const content = `[Archived Context Summary]\n\nPrevious conversation summary (last active ${summary.lastActive}):\n${summary.text}`;
    return [this.#said.message({ content }, context.generateId)];
  }
}
