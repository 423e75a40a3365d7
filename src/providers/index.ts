/**
 * @module ctxloom/providers
 */
export {};
