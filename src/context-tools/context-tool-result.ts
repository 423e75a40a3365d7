/**
 * What a context tool returns to the model: its text, or the text with `isError` when the call was
 * refused or failed (bad arguments, a refusal with the numbers, a write that failed). A refusal is a
 * normal result the model reads, never an exception.
 */
export type ContextToolResult = string | { readonly output: string; readonly isError?: boolean };

/** The names of the context tools. */
export type ContextToolName =
  | 'recall'
  | 'expand'
  | 'compact_now'
  | 'context_remaining'
  | 'new_context'
  | 'notes'
  | 'memory';

/** Every context tool, in the order their definitions are listed. */
export const CONTEXT_TOOL_NAMES: readonly ContextToolName[] = Object.freeze([
  'recall',
  'expand',
  'compact_now',
  'context_remaining',
  'new_context',
  'notes',
  'memory',
]);

/** A refusal or failure the model reads. @internal */
export function toolError(output: string): ContextToolResult {
  return { output, isError: true };
}

/** The text of a result, and whether it is an error. */
export function contextToolOutput(result: ContextToolResult): {
  readonly output: string;
  readonly isError: boolean;
} {
  return typeof result === 'string'
    ? { output: result, isError: false }
    : { output: result.output, isError: result.isError === true };
}
