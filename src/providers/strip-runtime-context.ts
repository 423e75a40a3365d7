import type { Message } from '../core/message.js';
import { RUNTIME_CONTEXT_KEY, stripRuntimeContextExactly } from '../core/runtime-context-marker.js';

/**
 * The public view of a message, as nanobot's `public_history_message` gives it: the runtime context
 * recorded in `metadata.runtimeContext` is removed when it still matches the content exactly (see
 * `stripRuntimeContextExactly`), and the marker is dropped either way. A message without a marker
 * comes back as the same object.
 */
export function stripRuntimeContext(message: Message): Message {
  const metadata = message.metadata;
  if (metadata === undefined || !Object.hasOwn(metadata, RUNTIME_CONTEXT_KEY)) return message;
  const { [RUNTIME_CONTEXT_KEY]: marker, ...rest } = metadata;
  const content = stripRuntimeContextExactly(message.content, marker) ?? message.content;
  const { metadata: _old, ...fields } = message;
  return Object.keys(rest).length === 0 ? { ...fields, content } : { ...fields, content, metadata: rest };
}
