/**
 * @module ctxloom/adapters
 */
export {};
