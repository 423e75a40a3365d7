/**
 * @module ctxloom/sessions
 */
export {};
