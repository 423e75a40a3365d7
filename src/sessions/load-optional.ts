import { ContextError } from '../core/errors.js';

/**
 * Imports an optional peer dependency on first use, so `import 'ctxloom'` never loads it.
 * @throws ContextError `DEPENDENCY_MISSING` naming the package and the install command.
 */
export async function loadOptional<T>(name: string, load: () => Promise<T>, feature: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new ContextError({
      code: 'DEPENDENCY_MISSING',
      message: `${feature} needs the package '${name}', which could not be loaded; install it with 'npm install ${name}'.`,
      cause: error,
      details: { package: name },
    });
  }
}
