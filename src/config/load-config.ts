import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ContextError, throwIfAborted } from '../core/errors.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import { CONFIG_FILE_NAME } from './config-file-name.js';
import type { CtxloomConfig } from './config-schema.js';

export { CONFIG_FILE_NAME };

/** Options for {@link loadConfig}: a file `path`, or a `dir` holding `ctxloom.yaml`. */
export type LoadConfigOptions = (
  | {
      /** The config file. A missing file is an error (`NOT_FOUND`) unless `optional` is true. */
      readonly path: string;
    }
  | {
      /** The folder holding `ctxloom.yaml`. A missing file yields the defaults. */
      readonly dir: string;
    }
) & {
  /** Treat a missing file as empty. @default false with `path`, true with `dir` */
  readonly optional?: boolean;
  readonly signal?: AbortSignal;
};

/** A loaded config and where it came from. */
export type LoadedConfig = {
  /** The validated config (empty object when the file is missing or empty). */
  readonly config: CtxloomConfig;
  /** The file that was (or would have been) read. */
  readonly path: string;
  /** True when the file exists. */
  readonly found: boolean;
};

/**
 * Reads and validates a `ctxloom.yaml`.
 * @throws ContextError `INVALID_CONFIG` naming the file and the key path (and, for an unknown key, the
 * allowed keys), or the line and column of a YAML syntax error; `NOT_FOUND` for a missing explicit `path`.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const file = 'path' in options ? options.path : path.join(options.dir, CONFIG_FILE_NAME);
  const optional = options.optional ?? !('path' in options);
  throwIfAborted(options.signal);
  let text: string;
  try {
    text = await readFile(file, {
      encoding: 'utf8',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if (isMissingFileError(error) && optional) return { config: {}, path: file, found: false };
    throw new ContextError({
      code: isMissingFileError(error) ? 'NOT_FOUND' : 'INVALID_CONFIG',
      message: `${file}: cannot read the config file (${error instanceof Error ? error.message : String(error)}).`,
      cause: error,
      details: { file },
    });
  }
  // The YAML parser and the config schema load only when a config file is there to read.
  const { parseConfig } = await import('./parse-config.js');
  return { config: parseConfig(text, file), path: file, found: true };
}
