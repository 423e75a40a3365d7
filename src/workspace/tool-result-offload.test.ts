import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offloadReference, persistToolResult } from './tool-result-offload.js';

let workspace = '';
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-offload-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const big = 'x'.repeat(20_000);

describe('persistToolResult', () => {
  it('writes the full original once and returns the byte-identical reference on a second run', async () => {
    const first = await persistToolResult({
      workspace,
      sessionKey: 'test:runner',
      toolCallId: 'call_1',
      content: big,
    });
    if (first.status !== 'persisted') throw new Error('expected an offload');
    const expectedPath = path.join(workspace, '.ctxloom', 'tool-results', 'test_runner', 'call_1.txt');
    expect(first.path).toBe(expectedPath);
    expect(first.created).toBe(true);
    expect(await readFile(expectedPath, 'utf8')).toBe(big);
    expect(first.reference).toBe(
      `[tool output persisted]\nFull output saved to: ${expectedPath}\nOriginal size: 20000 chars\nPreview:\n${'x'.repeat(1200)}` +
        '\n...\n(Read the saved file if you need the full output.)',
    );
    const second = await persistToolResult({
      workspace,
      sessionKey: 'test:runner',
      toolCallId: 'call_1',
      content: big,
    });
    expect(second).toMatchObject({ status: 'persisted', created: false, reference: first.reference });
    expect((await readdir(path.dirname(expectedPath))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('returns the same reference in a dry run without writing anything', async () => {
    const options = { workspace, sessionKey: 's', toolCallId: 'call_dry', content: big };
    const dry = await persistToolResult({ ...options, dryRun: true });
    expect(dry).toMatchObject({ status: 'persisted', created: false });
    expect(await readdir(workspace)).toEqual([]);
    const real = await persistToolResult(options);
    expect(real.status === 'persisted' && real.reference).toBe(dry.status === 'persisted' && dry.reference);
  });

  it('keeps a hostile id and session inside the tool-results folder', async () => {
    const outcome = await persistToolResult({
      workspace,
      sessionKey: '../../etc',
      toolCallId: '../../x',
      content: big,
    });
    if (outcome.status !== 'persisted') throw new Error('expected an offload');
    const root = path.join(workspace, '.ctxloom', 'tool-results');
    expect(path.relative(root, outcome.path).startsWith('..')).toBe(false);
    expect(path.dirname(path.dirname(outcome.path))).toBe(root);
    expect(await readFile(outcome.path, 'utf8')).toBe(big);
  });

  it('stores a list of text parts as pretty JSON and leaves image results and small results inline', async () => {
    const parts = [
      { type: 'text' as const, text: 'a'.repeat(9000) },
      { type: 'text' as const, text: 'b'.repeat(9000) },
    ];
    const outcome = await persistToolResult({ workspace, toolCallId: 'j', content: parts });
    if (outcome.status !== 'persisted') throw new Error('expected an offload');
    expect(outcome.path.endsWith(path.join('default', 'j.json'))).toBe(true);
    expect(await readFile(outcome.path, 'utf8')).toBe(JSON.stringify(parts, null, 2));
    expect(outcome.originalChars).toBe(18_001);
    const image = [...parts, { type: 'image' as const, url: 'https://example.test/a.png' }];
    expect((await persistToolResult({ workspace, toolCallId: 'i', content: image })).status).toBe('inline');
    expect((await persistToolResult({ workspace, toolCallId: 's', content: 'small' })).status).toBe('inline');
    expect((await persistToolResult({ workspace, toolCallId: 'z', content: big, maxChars: 0 })).status).toBe(
      'inline',
    );
  });

  it('deletes buckets older than 7 days and keeps at most 32 including the current one', async () => {
    const root = path.join(workspace, '.ctxloom', 'tool-results');
    const now = new Date('2026-06-01T00:00:00Z');
    const day = 24 * 60 * 60 * 1000;
    await mkdir(path.join(root, 'old'), { recursive: true });
    await utimes(
      path.join(root, 'old'),
      new Date(now.getTime() - 8 * day),
      new Date(now.getTime() - 8 * day),
    );
    for (let index = 0; index < 35; index += 1) {
      const bucket = path.join(root, `s${String(index).padStart(2, '0')}`);
      await mkdir(bucket, { recursive: true });
      await writeFile(path.join(bucket, 'f.txt'), 'x');
      const time = new Date(now.getTime() - (index + 1) * 60_000);
      await utimes(bucket, time, time);
    }
    const outcome = await persistToolResult({
      workspace,
      sessionKey: 'current',
      toolCallId: 'c',
      content: big,
      clock: () => now,
    });
    if (outcome.status !== 'persisted') throw new Error('expected an offload');
    expect(outcome.cleanupErrors).toEqual([]);
    const left = (await readdir(root)).sort();
    expect(left).toHaveLength(32);
    expect(left).toContain('current');
    expect(left).not.toContain('old');
    expect(left).toContain('s00');
    expect(left).not.toContain('s31');
    expect(outcome.removedBuckets).toEqual(['old', 's31', 's32', 's33', 's34']);
  });

  it('fails loudly when the file cannot be written (the caller truncates instead)', async () => {
    await writeFile(path.join(workspace, '.ctxloom'), 'a file where a folder should be');
    await expect(persistToolResult({ workspace, toolCallId: 'c', content: big })).rejects.toThrow();
  });

  it('builds the reference without the tail for a short original', () => {
    expect(offloadReference({ path: '/p', text: 'abc', previewChars: 1200 })).toBe(
      '[tool output persisted]\nFull output saved to: /p\nOriginal size: 3 chars\nPreview:\nabc',
    );
  });
});
