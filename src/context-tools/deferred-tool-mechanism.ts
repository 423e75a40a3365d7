/**
 * How deferred tools reach the model once loaded, the `tools` of the request staying byte-identical:
 * - `neutral`: any provider (and the AI SDK). `tools` holds the search tool and a `call_tool`
 *   dispatcher; a search result carries the loaded tools' JSON Schemas in the conversation, and the
 *   model calls them through `call_tool`.
 * - `anthropic-tool-search`: Anthropic tool search. Deferred tools are in `tools` with
 *   `defer_loading: true` (kept out of the prompt by the API); the search result holds `tool_reference`
 *   blocks, after which the model calls the tools by name.
 * - `anthropic-inline`: Anthropic inline tools (beta `inline-tools-2026-09-15`): a search is followed
 *   by `tool_addition` blocks carrying the definitions in the messages.
 * - `openai-tool-search`: OpenAI Responses' client-executed `tool_search` tool; the model's
 *   `tool_search_call` is answered by a `tool_search_output` item listing the loaded tools.
 */
export type DeferredToolMechanism =
  | 'neutral'
  | 'anthropic-tool-search'
  | 'anthropic-inline'
  | 'openai-tool-search';

/** Every {@link DeferredToolMechanism}. */
export const DEFERRED_TOOL_MECHANISMS: readonly DeferredToolMechanism[] = [
  'neutral',
  'anthropic-tool-search',
  'anthropic-inline',
  'openai-tool-search',
];
