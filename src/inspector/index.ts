/**
 * @module ctxloom/inspector
 * See the context: the token breakdown behind `ctxloom inspect`, and the read-only web inspector
 * behind `ctxloom serve`. Uses only the public API.
 */
export { apportionTokens } from './apportion-tokens.js';
export { type ContextPiece, contextPieces } from './context-pieces.js';
export {
  type ContextCategory,
  type ContextInspection,
  type ContextWarning,
  DEFAULT_INSPECT_CONTEXT,
  type InspectContextOptions,
  inspectContext,
} from './inspect-context.js';
export { type CategoryKey, fileCategory, STANDARD_CATEGORIES, sectionCategory } from './section-category.js';
