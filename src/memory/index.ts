/**
 * @module ctxloom/memory
 */
export {};
