import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { injectiveFileName } from './safe-path.js';
import {
  offloadReference,
  persistToolResult,
  planToolResultOffload,
  ToolResultOffloadWriter,
} from './tool-result-offload.js';

const digest = (stored: string): string => createHash('sha256').update(stored).digest('hex').slice(0, 16);

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
    const expectedPath = path.join(
      workspace,
      '.ctxloom',
      'tool-results',
      injectiveFileName('test:runner'),
      `call_1.${digest(big)}.txt`,
    );
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
    expect(
      outcome.path.endsWith(path.join('default', `j.${digest(JSON.stringify(parts, null, 2))}.json`)),
    ).toBe(true);
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

  it('gives a reused call id with other output its own file: the reference points at the new bytes', async () => {
    const older = await persistToolResult({ workspace, sessionKey: 's', toolCallId: 'call_0', content: big });
    const newer = await persistToolResult({
      workspace,
      sessionKey: 's',
      toolCallId: 'call_0',
      content: 'y'.repeat(20_000),
    });
    if (older.status !== 'persisted' || newer.status !== 'persisted') throw new Error('expected offloads');
    expect(newer.path).not.toBe(older.path);
    expect(newer.created).toBe(true);
    expect(await readFile(older.path, 'utf8')).toBe(big);
    expect(await readFile(newer.path, 'utf8')).toBe('y'.repeat(20_000));
    expect(newer.reference).toContain(newer.path);
  });

  it('never lets call:1 and call_1, or sessions a:b and a_b, share a file or a folder', async () => {
    const write = async (sessionKey: string, toolCallId: string, content: string) => {
      const outcome = await persistToolResult({ workspace, sessionKey, toolCallId, content });
      if (outcome.status !== 'persisted') throw new Error('expected an offload');
      return outcome.path;
    };
    const paths = [
      await write('a:b', 'call:1', `${big}1`),
      await write('a:b', 'call_1', `${big}2`),
      await write('a_b', 'call:1', `${big}3`),
      await write('a_b', 'call_1', `${big}4`),
    ];
    expect(new Set(paths).size).toBe(4);
    expect(new Set(paths.map((file) => path.dirname(file))).size).toBe(2);
    expect(await Promise.all(paths.map((file) => readFile(file, 'utf8')))).toEqual(
      ['1', '2', '3', '4'].map((suffix) => `${big}${suffix}`),
    );
  });

  it('replaces a file found under the planned name with the wrong size (a copy from elsewhere)', async () => {
    const plan = planToolResultOffload({ workspace, toolCallId: 'c', content: big });
    if ('status' in plan) throw new Error('expected a plan');
    await mkdir(path.dirname(plan.path), { recursive: true });
    await writeFile(plan.path, 'truncated');
    const [outcome] = await new ToolResultOffloadWriter().write([plan]);
    expect(outcome).toEqual({ ok: true, created: true });
    expect(await readFile(plan.path, 'utf8')).toBe(big);
  });

  it('writes a batch with one writer and does not touch the disk again for files it knows', async () => {
    const writer = new ToolResultOffloadWriter();
    const plans = ['a', 'b', 'c'].map((id) => {
      const plan = planToolResultOffload({ workspace, toolCallId: id, content: `${big}${id}` });
      if ('status' in plan) throw new Error('expected a plan');
      return plan;
    });
    expect(await writer.write([...plans, plans[0] as (typeof plans)[number]])).toEqual([
      { ok: true, created: true },
      { ok: true, created: true },
      { ok: true, created: true },
      { ok: true, created: false },
    ]);
    await rm(path.join(workspace, '.ctxloom'), { recursive: true });
    // A known file is trusted: no stat, no mkdir (the writer would fail on the missing folder otherwise).
    expect(await writer.write(plans)).toEqual(plans.map(() => ({ ok: true, created: false })));
    expect(await new ToolResultOffloadWriter().write(plans)).toEqual(
      plans.map(() => ({ ok: true, created: true })),
    );
  });
});

describe('planToolResultOffload', () => {
  const arbitraryKey = fc.oneof(
    fc.string(),
    fc.constantFrom(
      'CON',
      'nul',
      'Com1',
      'lpt9',
      'a.',
      'a ',
      ' a',
      '..',
      '.',
      '../../x',
      'a:b',
      'a_b',
      'A_b',
      'k\uD800',
      'k\uDBFF',
    ),
  );

  test.prop([
    fc.array(fc.tuple(arbitraryKey, arbitraryKey, fc.string({ minLength: 0, maxLength: 3 })), {
      minLength: 2,
      maxLength: 8,
    }),
  ])(
    'maps distinct (session, call id, content) to distinct files, all inside the root and valid on Windows',
    (cases) => {
      const root = path.join(workspace, '.ctxloom', 'tool-results');
      const byPath = new Map<string, string>();
      for (const [sessionKey, toolCallId, tail] of cases) {
        const content = `${'z'.repeat(30)}${tail}`;
        const plan = planToolResultOffload({ workspace, sessionKey, toolCallId, content, maxChars: 10 });
        if ('status' in plan) throw new Error('expected a plan');
        const key = JSON.stringify([sessionKey, toolCallId]);
        // Case-insensitive file systems: compare names folded to lower case.
        const folded = plan.path.toLowerCase();
        const seen = byPath.get(folded);
        if (seen !== undefined) expect(seen).toBe(`${key}${content}`);
        byPath.set(folded, `${key}${content}`);
        expect(path.dirname(path.dirname(plan.path))).toBe(root);
        for (const segment of [path.basename(path.dirname(plan.path)), path.basename(plan.path)]) {
          expect(segment).toMatch(/^[A-Za-z0-9_~.-]+$/);
          expect(segment).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i);
          expect(segment).not.toMatch(/[. ]$/);
          expect(segment).not.toMatch(/^\./);
        }
      }
    },
  );
});
