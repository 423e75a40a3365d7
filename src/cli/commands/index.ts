import type { CliCommand } from '../cli-io.js';
import { buildCommand } from './build.js';
import { inspectCommand } from './inspect.js';
import { serveCommand } from './serve.js';

/** Every sub-command, in the order `ctxloom --help` lists them. */
export const COMMANDS: readonly CliCommand[] = [buildCommand, inspectCommand, serveCommand];
