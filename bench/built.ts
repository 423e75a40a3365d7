/**
 * ctxloom as its users run it: the built package (`dist/`, which `npm run bench` builds first), typed
 * from its sources. The cases that compare ctxloom with other libraries take ctxloom from here, so
 * it runs compiled by tsc like the others' published code, not through tsx (whose esbuild transform
 * names every function and class made at run time). Loaded by a computed path, so type-checking the
 * bench does not need a build.
 */
import { existsSync } from 'node:fs';

const built = (entry: string) => new URL(`../dist/${entry}`, import.meta.url).href;
if (!existsSync(new URL('../dist/index.js', import.meta.url)))
  throw new Error(
    'bench: ctxloom is not built (no dist/index.js); run `npm run build` (`npm run bench` does).',
  );

export const ctxloom: typeof import('../src/index.js') = await import(built('index.js'));
export const core: typeof import('../src/core/index.js') = await import(built('core/index.js'));
export const sessions: typeof import('../src/sessions/index.js') = await import(built('sessions/index.js'));
export const aiSdk: typeof import('../src/ai-sdk/index.js') = await import(built('ai-sdk/index.js'));
