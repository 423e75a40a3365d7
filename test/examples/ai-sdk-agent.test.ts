import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWithMiddleware, runWithPrepareStep } from '../../examples/ai-sdk-agent.js';
import { startScriptedAnthropicServer } from '../helpers/scripted-anthropic-server.js';

let workspace = '';
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-example-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('the AI SDK example (docs/ai-sdk.md)', () => {
  it.each([
    ['prepareStep', runWithPrepareStep],
    ['the middleware', runWithMiddleware],
  ] as const)('loops with %s: reads, runs, answers; the 180 KB log is offloaded', async (_name, run) => {
    const server = await startScriptedAnthropicServer([
      {
        kind: 'reply',
        content: [
          { type: 'thinking', thinking: 'Read first.', signature: 'sig-1' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/answer.ts' } },
        ],
      },
      {
        kind: 'reply',
        content: [{ type: 'tool_use', id: 'toolu_2', name: 'exec', input: { cmd: 'npm test' } }],
      },
      { kind: 'reply', content: [{ type: 'text', text: 'The answer is 42 and the tests pass.' }] },
    ]);
    try {
      const result = await run({ baseURL: server.baseURL, apiKey: 'test', workspace }, [
        { role: 'user', content: 'What is the answer? Run the tests.' },
      ]);
      expect(result.text).toBe('The answer is 42 and the tests pass.');
      expect(server.violations.flat()).toEqual([]);
      const last = JSON.stringify(server.requests.at(-1));
      expect(last).toContain('"signature":"sig-1"');
      expect(last).toContain('"cache_control":{"type":"ephemeral"}');
      expect(last).toContain('[tool output persisted]');
      expect(last.length).toBeLessThan(30_000);
    } finally {
      await server.close();
    }
  });
});
