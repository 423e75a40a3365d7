import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * How the catalogue checks a skill's requirements. Inject one in tests so availability does not
 * depend on the host (its PATH, its environment variables, its operating system).
 */
export type SkillEnvironment = {
  /** True when an executable named `bin` can be found on PATH. */
  isOnPath(bin: string): boolean;
  /** Reads an environment variable. */
  readEnv(name: string): string | undefined;
};

/** Options for {@link createSkillEnvironment}. */
export type SkillEnvironmentOptions = {
  /** The environment variables (PATH, PATHEXT and the skills' `requires.env`). @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The operating system; `win32` splits PATH on `;` and tries PATHEXT extensions. @default process.platform */
  readonly platform?: string;
};

/**
 * Makes the real {@link SkillEnvironment}: looks executables up in the PATH folders (results are
 * cached per environment object) and reads variables from `env`.
 */
export function createSkillEnvironment(options: SkillEnvironmentOptions = {}): SkillEnvironment {
  const env = options.env ?? process.env;
  const isWindows = (options.platform ?? process.platform) === 'win32';
  const folders = (env['PATH'] ?? env['Path'] ?? '').split(isWindows ? ';' : ':').filter((dir) => dir !== '');
  const extensions = isWindows ? ['', ...(env['PATHEXT'] ?? '.EXE;.CMD;.BAT;.COM').split(';')] : [''];
  const cache = new Map<string, boolean>();
  return {
    isOnPath(bin) {
      const known = cache.get(bin);
      if (known !== undefined) return known;
      const found =
        isPlainName(bin) &&
        folders.some((dir) => extensions.some((ext) => isExecutable(path.join(dir, bin + ext))));
      cache.set(bin, found);
      return found;
    },
    readEnv: (name) => env[name],
  };
}

/** A fixed environment for tests: the listed executables exist and `env` holds the variables. */
export function createStaticSkillEnvironment(options: {
  readonly bins?: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
}): SkillEnvironment {
  const bins = new Set(options.bins ?? []);
  const env = options.env ?? {};
  return { isOnPath: (bin) => bins.has(bin), readEnv: (name) => env[name] };
}

function isPlainName(bin: string): boolean {
  return bin !== '' && !bin.includes('/') && !bin.includes('\\') && !bin.includes('\0');
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
