/**
 * @module ctxloom/filters
 */
export {};
