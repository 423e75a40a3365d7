/**
 * The Node 24 run of CI: the AI SDK tests against AI SDK 7 (`ai` → `ai-v7` and its providers), and
 * the tests that need Node 24 (`node:sqlite`). Only tests that never load better-sqlite3 (built for
 * Node 20's ABI) belong here: add a file to NODE24_TESTS to run it under Node 24 too.
 */
import { defineConfig } from 'vitest/config';

/** Tests run under Node 24. */
export const NODE24_TESTS: readonly string[] = [
  'src/ai-sdk/**/*.test.ts',
  'src/adapters/**/*.test.ts',
  'test/examples/**/*.test.ts',
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
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
