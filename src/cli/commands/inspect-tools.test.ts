import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { copyExampleWorkspace } from '../../../test/helpers/example-workspace.js';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import { recordDeferredRequest } from '../../../test/helpers/record-deferred-request.js';
import { main } from '../main.js';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function run(workspace: string, args: readonly string[]) {
  const io = memoryIo(workspace, { NO_COLOR: '1' });
  const code = await main(args, io);
  return { code, stdout: io.out(), stderr: io.err() };
}

describe('ctxloom inspect: tools', () => {
  it('shows each tool with its tokens, the deferred ones and the loaded ones, in text and --json', async () => {
    const workspace = await copyExampleWorkspace('ctxloom-inspect-tools-');
    folders.push(workspace);
    const before = await run(workspace, ['inspect', '--session', 'cli:direct']);
    expect(before.stdout).not.toContain('Tools:');
    await recordDeferredRequest(workspace);
    const { code, stdout } = await run(workspace, ['inspect', '--session', 'cli:direct']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Tools: 7 sent \([\d,]+ tokens\), 60 deferred \([\d,]+ tokens not sent\)/);
    expect(stdout).toMatch(/tool_search +[\d,]+\n/);
    expect(stdout).toMatch(/jira__create_issue +[\d,]+ +deferred, loaded/);
    expect(stdout).toContain('… 52 more');
    expect(stdout).toContain('Loaded deferred tools (1): jira__create_issue');
    const json = JSON.parse(
      (await run(workspace, ['inspect', '--session', 'cli:direct', '--json'])).stdout,
    ) as {
      tools: { name: string; tokens: number; deferred?: boolean }[];
      loadedTools: string[];
    };
    expect(json.loadedTools).toEqual(['jira__create_issue']);
    expect(json.tools).toHaveLength(67);
    expect(json.tools.filter((tool) => tool.deferred === true)).toHaveLength(60);
    expect(json.tools.find((tool) => tool.name === 'tool_search')?.tokens).toBeGreaterThan(0);
  });
});
