/**
 * @module ctxloom/workspace
 */
export {};
