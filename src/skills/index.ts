/**
 * @module ctxloom/skills
 */
export {};
