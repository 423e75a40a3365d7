import type { IdGenerator } from '../core/ids.js';
import type { Message, Metadata } from '../core/message.js';
import { samePlainData } from '../pipeline/same-plain-data.js';

/**
 * The last system message a provider made, given again while it would say the same (the same
 * content and metadata): a build with nothing new for the provider hands the pipeline the same
 * object, with the same id, so what the stages keep by identity (tags, counts, the joined system
 * message) is reused. A provider keeps one. @internal
 */
export class SystemMessageMemo {
  #last: Message | undefined;

  /** The system message saying `content` (with `metadata`): the last one when it says the same. */
  message(
    said: { readonly content: string; readonly metadata?: Metadata },
    generateId: IdGenerator,
  ): Message {
    const last = this.#last;
    if (last !== undefined && last.content === said.content && samePlainData(last.metadata, said.metadata))
      return last;
    const message: Message = {
      id: generateId(),
      role: 'system',
      content: said.content,
      ...(said.metadata === undefined ? {} : { metadata: said.metadata }),
    };
    this.#last = message;
    return message;
  }
}
