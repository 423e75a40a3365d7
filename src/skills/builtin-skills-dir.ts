import { fileURLToPath } from 'node:url';

/**
 * The folder of ctxloom's built-in skills (`skills/` at the package root). Both `src/skills/` and
 * `dist/skills/` sit two levels below the root, so one relative URL serves source and build.
 */
export const BUILTIN_SKILLS_DIR: string = fileURLToPath(new URL('../../skills', import.meta.url));
