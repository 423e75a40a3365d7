import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider, StageErrorPolicy } from '../pipeline/contracts.js';
import { SystemMessageMemo } from './system-message-memo.js';

/** Options for {@link StaticPromptProvider}. */
export type StaticPromptProviderOptions = {
  /** The provider id, which becomes the section of its message. @default 'static-prompt' */
  readonly id?: string;
  /** The system prompt text. Blank text contributes nothing. */
  readonly text: string;
  /** What the pipeline does when this provider throws. @default 'skip' */
  readonly onError?: StageErrorPolicy;
};

/** Defaults of {@link StaticPromptProviderOptions}. */
export const DEFAULT_STATIC_PROMPT_PROVIDER = Object.freeze({ id: 'static-prompt' });

/**
 * Wraps a fixed text as one `system` message. The presets use one for the persona
 * (`id: 'persona'`) and one for the ReAct protocol (`id: 'react-protocol'`).
 *
 * @example
 * new StaticPromptProvider({ id: 'persona', text: 'You are a careful code reviewer.' });
 */
export class StaticPromptProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly onError: StageErrorPolicy;
  readonly text: string;
  /** The last message, given again while it says the same. */
  readonly #said = new SystemMessageMemo();

  constructor(options: StaticPromptProviderOptions) {
    if (typeof options.text !== 'string') {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `StaticPromptProvider needs { text: string }, got ${typeof options.text}.`,
      });
    }
    this.id = options.id ?? DEFAULT_STATIC_PROMPT_PROVIDER.id;
    this.text = options.text;
    this.onError = options.onError ?? 'skip';
  }

  getMessages(_input: BuildInput, context: BuildContext): readonly Message[] {
    if (this.text.trim() === '') return [];
    return [this.#said.message({ content: this.text }, context.generateId)];
  }
}
