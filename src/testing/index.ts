/**
 * @module ctxloom/testing
 */
export {};
