/**
 * @module ctxloom
 * Builds, governs and explains the context an LLM agent sends to its model. Every public name of
 * every layer is exported here.
 */
export * from './adapters/index.js';
export * from './config/index.js';
export * from './core/index.js';
export * from './filters/index.js';
export * from './llm/index.js';
export * from './memory/index.js';
export * from './pipeline/index.js';
export * from './presets/index.js';
export * from './providers/index.js';
export * from './recorder/index.js';
export * from './sessions/index.js';
export * from './skills/index.js';
export * from './telemetry/index.js';
export * from './tokens/index.js';
export * from './workspace/index.js';
