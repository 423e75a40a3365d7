/**
 * @module ctxloom/presets
 * `ContextBuilder` and its presets.
 */
export { ContextBuilder } from './context-builder.js';
