import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../main.js';

const EXAMPLE = path.resolve(import.meta.dirname, '../../../examples/workspace');
let workspace = '';

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-cache-'));
  await cp(EXAMPLE, workspace, { recursive: true });
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function run(args: readonly string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { NO_COLOR: '1' },
    cwd: workspace,
  });
  return { code, stdout, stderr };
}

describe('ctxloom cache', () => {
  it('replays a stored session and prints the simulation under both providers', async () => {
    const { code, stdout } = await run(['cache', '--session', 'cli:direct']);
    expect(code).toBe(0);
    expect(stdout).toContain('Prompt cache of session cli:direct');
    expect(stdout).toContain('anthropic:');
    expect(stdout).toContain('openai:');
    expect(stdout).toContain('No volatile content in the stable prefix.');
  });

  it('prints JSON with per-request reads that grow as the session goes on', async () => {
    const { code, stdout } = await run([
      'cache',
      '--session',
      'cli:direct',
      '--provider',
      'anthropic',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      simulations: {
        provider: string;
        requests: { cacheReadTokens: number }[];
        totals: { illegalRequests: number; steadyStateHitRate: number };
      }[];
    };
    const [anthropic] = report.simulations;
    expect(anthropic?.provider).toBe('anthropic');
    expect(anthropic?.requests.length).toBeGreaterThan(3);
    expect(anthropic?.requests[0]?.cacheReadTokens).toBe(0);
    expect(anthropic?.requests.at(-1)?.cacheReadTokens).toBeGreaterThan(0);
    expect(anthropic?.totals.illegalRequests).toBe(0);
  });

  it('fails with exit code 2 without --session or for an unknown provider', async () => {
    expect((await run(['cache'])).code).toBe(2);
    expect((await run(['cache', '--session', 'cli:direct', '--provider', 'gemini'])).code).toBe(2);
  });
});
