import { z } from 'zod';
import type { Message } from './message.js';

const jsonObjectSchema = z.record(z.string(), z.json());
/** What every part, tool call and message may carry: provider options and native fields, by name. */
const carries = {
  providerOptions: z.record(z.string(), jsonObjectSchema).optional(),
  native: z.record(z.string(), jsonObjectSchema).optional(),
};

/** Zod schema of a {@link TextPart}. */
export const textPartSchema = z.strictObject({ type: z.literal('text'), text: z.string(), ...carries });

/** Zod schema of an {@link ImagePart}. */
export const imagePartSchema = z.strictObject({
  type: z.literal('image'),
  url: z.string().min(1),
  mediaType: z.string().optional(),
  path: z.string().optional(),
  ...carries,
});

/** Zod schema of a {@link FilePart}. */
export const filePartSchema = z.strictObject({
  type: z.literal('file'),
  url: z.string().min(1),
  mediaType: z.string().min(1),
  filename: z.string().optional(),
  path: z.string().optional(),
  ...carries,
});

/** Zod schema of a {@link ReasoningPart}. */
export const reasoningPartSchema = z.strictObject({
  type: z.literal('reasoning'),
  text: z.string(),
  provider: z.string().optional(),
  signature: z.string().optional(),
  redactedData: z.string().optional(),
  encryptedContent: z.string().optional(),
  ...carries,
});

/** Zod schema of a {@link ProviderPart}. */
export const providerPartSchema = z.strictObject({
  type: z.literal('provider'),
  format: z.string().min(1),
  kind: z.string(),
  value: jsonObjectSchema,
});

/** Zod schema of a {@link ContentPart}. */
export const contentPartSchema = z.discriminatedUnion('type', [
  textPartSchema,
  imagePartSchema,
  filePartSchema,
  reasoningPartSchema,
  providerPartSchema,
]);

/** Zod schema of a {@link ToolCall}. */
export const toolCallSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  ...carries,
});

/**
 * Zod schema of a {@link Message} given by untrusted input (JSON files, HTTP, the CLI). Checks the
 * role-specific rules too: `toolCalls` only on assistant messages, `toolCallId` required on tool
 * messages.
 */
export const messageSchema = z
  .strictObject({
    id: z.string().min(1),
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(contentPartSchema)]),
    name: z.string().optional(),
    toolCallId: z.string().min(1).optional(),
    toolCalls: z.array(toolCallSchema).optional(),
    reasoning: z.string().optional(),
    output: z.enum(['text', 'json', 'error-text', 'error-json', 'execution-denied', 'content']).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    ...carries,
  })
  .superRefine((value, context) => {
    if (value.toolCalls !== undefined && value.role !== 'assistant') {
      context.addIssue({
        code: 'custom',
        path: ['toolCalls'],
        message: 'only assistant messages carry toolCalls',
      });
    }
    if (value.role === 'tool' && value.toolCallId === undefined) {
      context.addIssue({ code: 'custom', path: ['toolCallId'], message: 'a tool message needs toolCallId' });
    }
    if (value.role !== 'tool' && value.output !== undefined) {
      context.addIssue({ code: 'custom', path: ['output'], message: 'only tool messages carry output' });
    }
    if (value.role !== 'tool' && value.toolCallId !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['toolCallId'],
        message: 'only tool messages carry toolCallId',
      });
    }
  });

/** The result of {@link safeParseMessage}. */
export type SafeParseMessageResult =
  | { readonly success: true; readonly value: Message }
  | { readonly success: false; readonly issues: readonly MessageIssue[] };

/** One problem found in untrusted message input: the field path and what is wrong. */
export type MessageIssue = { readonly path: string; readonly message: string };

/** Validates untrusted input as a {@link Message} without throwing. */
export function safeParseMessage(value: unknown): SafeParseMessageResult {
  const result = messageSchema.safeParse(value);
  if (!result.success) {
    return {
      success: false,
      issues: result.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message })),
    };
  }
  // Zod types absent optional keys as `T | undefined`; a parsed object never holds an explicit undefined.
  return { success: true, value: result.data as Message };
}

/** Renders a zod issue path as `toolCalls[0].name`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}
