import type { Message } from '../core/message.js';

/**
 * The system prompt as `generateText({ system })` takes it (AI SDK 7: `instructions`): a string, a
 * system message, or a list of them.
 */
export type AiSdkSystem = string | { readonly content: string } | readonly { readonly content: string }[];

/** The id prefix of the system messages ctxloom adds to count the system prompt (never sent back). */
export const SYSTEM_MESSAGE_ID_PREFIX = 'ctxloom-ai-sdk-system-';

/** The system prompt as ctxloom system messages, so the governor counts it (they are pinned). */
export function aiSdkSystemMessages(system: AiSdkSystem | undefined): readonly Message[] {
  if (system === undefined) return [];
  const texts =
    typeof system === 'string'
      ? [system]
      : 'content' in system
        ? [system.content]
        : system.map((m) => m.content);
  return texts.map((content, index) => ({
    id: `${SYSTEM_MESSAGE_ID_PREFIX}${index}`,
    role: 'system',
    content,
  }));
}
