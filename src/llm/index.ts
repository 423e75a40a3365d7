/**
 * @module ctxloom/llm
 */
export {};
