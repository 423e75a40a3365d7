/**
 * @module ctxloom/config
 */
export {};
