import type { CliCommand } from '../cli-io.js';
import { buildCommand } from './build.js';
import { cacheCommand } from './cache.js';
import { compactCommand } from './compact.js';
import { evalCommand } from './eval.js';
import { initCommand } from './init.js';
import { inspectCommand } from './inspect.js';
import { memoryCommand } from './memory.js';
import { serveCommand } from './serve.js';
import { sessionCommand } from './session.js';
import { skillsCommand } from './skills.js';

/** Every sub-command, in the order `ctxloom --help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  initCommand,
  buildCommand,
  inspectCommand,
  skillsCommand,
  sessionCommand,
  memoryCommand,
  compactCommand,
  serveCommand,
  cacheCommand,
  evalCommand,
];
