/**
 * @module ctxloom/cli
 * The `ctxloom` command line, runnable in-process.
 */
export type { CliCommand, CliIo } from './cli-io.js';
export { main } from './main.js';
