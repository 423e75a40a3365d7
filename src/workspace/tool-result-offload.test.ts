import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dryRunOffloadReference, offloadReference } from './offload-reference.js';
import { persistToolResult } from './persist-tool-result.js';
import { planToolResultOffload } from './plan-tool-result-offload.js';
import { leavesFolder } from './safe-path.js';
import { ToolResultOffloadWriter } from './tool-result-offload-writer.js';

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

  it('says in a dry run that the output would be saved, writes nothing, and names a file only once it is there', async () => {
    const options = { workspace, sessionKey: 's', toolCallId: 'call_dry', content: big };
    const dry = await persistToolResult({ ...options, dryRun: true });
    if (dry.status !== 'persisted') throw new Error('expected an offload');
    expect(dry).toMatchObject({ created: false, isDryRun: true });
    expect(await readdir(workspace)).toEqual([]);
    expect(dry.reference).toMatch(
      /^\[tool output not persisted: dry run\]\nFull output would be saved to: \S+call_dry\.txt \(not written\)\nOriginal size: 20000 chars\nPreview:\n/,
    );
    expect(dry.reference).not.toContain('Full output saved to');
    expect(dry.reference).not.toContain('Read the saved file');
    expect(
      dry.reference.endsWith(
        '(This request was built in a dry run: the full output was not saved anywhere.)',
      ),
    ).toBe(true);
    const real = await persistToolResult(options);
    if (real.status !== 'persisted') throw new Error('expected an offload');
    expect(dry.reference).toBe(dryRunOffloadReference(real.reference));
    const again = await persistToolResult({ ...options, dryRun: true });
    expect(again).toMatchObject({ reference: real.reference, path: real.path });
    expect(again).not.toHaveProperty('isDryRun');
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
    expect(leavesFolder(path.relative(root, outcome.path))).toBe(false);
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

  it("gives call:1 and call_1, or sessions a:b and a_b, nanobot's shared names only while the bytes agree", async () => {
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
      await write('a_b', 'call_1', `${big}1`),
    ];
    const bucket = path.join(workspace, '.ctxloom', 'tool-results', 'a_b');
    expect(paths[0]).toBe(path.join(bucket, 'call_1.txt'));
    expect(paths[4]).toBe(paths[0]);
    expect(new Set(paths.slice(0, 4)).size).toBe(4);
    expect(await Promise.all(paths.map((file) => readFile(file, 'utf8')))).toEqual(
      ['1', '2', '3', '4', '1'].map((suffix) => `${big}${suffix}`),
    );
  });

  it('never replaces a file nanobot wrote under its name: other bytes go to the digest-named file', async () => {
    const bucket = path.join(workspace, '.ctxloom', 'tool-results', 'cli_direct');
    await mkdir(bucket, { recursive: true });
    await writeFile(path.join(bucket, 'call_0.txt'), 'nanobot wrote this');
    const outcome = await persistToolResult({
      workspace,
      sessionKey: 'cli:direct',
      toolCallId: 'call_0',
      content: big,
    });
    if (outcome.status !== 'persisted') throw new Error('expected an offload');
    expect(outcome.path).toBe(path.join(bucket, `call_0.${digest(big)}.txt`));
    expect(await readFile(path.join(bucket, 'call_0.txt'), 'utf8')).toBe('nanobot wrote this');
    expect(await readFile(outcome.path, 'utf8')).toBe(big);
    const dry = await persistToolResult({
      workspace,
      sessionKey: 'cli:direct',
      toolCallId: 'call_0',
      content: big,
      dryRun: true,
    });
    expect(dry).toMatchObject({ path: outcome.path, reference: outcome.reference });
  });

  it('two writers racing for one name with other bytes each keep their own file (no replace)', async () => {
    const plans = [`${big}a`, `${big}b`, `${big}c`].map((content) => {
      const plan = planToolResultOffload({ workspace, sessionKey: 'race', toolCallId: 'call_0', content });
      if ('status' in plan) throw new Error('expected a plan');
      return plan;
    });
    const outcomes = await Promise.all(
      plans.map(async (plan) => (await new ToolResultOffloadWriter().write([plan]))[0]),
    );
    const paths = outcomes.map((outcome) => (outcome?.ok === true ? outcome.path : ''));
    expect(new Set(paths).size).toBe(3);
    expect(paths).toContain(plans[0]?.path);
    for (const [index, file] of paths.entries())
      expect(await readFile(file, 'utf8')).toBe(plans[index]?.stored);
    expect((await readdir(path.dirname(paths[0] ?? ''))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('never replaces other bytes found under the digest name: the offload fails, in a dry run too', async () => {
    const plan = planToolResultOffload({ workspace, toolCallId: 'c', content: big });
    if ('status' in plan) throw new Error('expected a plan');
    await mkdir(path.dirname(plan.path), { recursive: true });
    await writeFile(plan.path, 'other bytes');
    await writeFile(plan.alternate.path, 'truncated');
    for (const dryRun of [true, false]) {
      const [outcome] = await new ToolResultOffloadWriter().write([plan], { dryRun });
      expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining(plan.alternate.path) });
    }
    expect(await readFile(plan.alternate.path, 'utf8')).toBe('truncated');
    expect(await readFile(plan.path, 'utf8')).toBe('other bytes');
  });

  it('never points a reference at a same-size file of a call id that ends in its digest', async () => {
    const other = 'z'.repeat(big.length);
    await persistToolResult({ workspace, toolCallId: 'c', content: `${big}!` });
    const squatter = await persistToolResult({ workspace, toolCallId: `c.${digest(big)}`, content: other });
    const plan = planToolResultOffload({ workspace, toolCallId: 'c', content: big });
    if ('status' in plan || squatter.status !== 'persisted') throw new Error('expected offloads');
    expect(squatter.path).toBe(plan.alternate.path);
    for (const dryRun of [true, false])
      await expect(persistToolResult({ workspace, toolCallId: 'c', content: big, dryRun })).rejects.toThrow(
        plan.alternate.path,
      );
    expect(await readFile(squatter.path, 'utf8')).toBe(other);
  });

  it('keeps the name a result took alone when a later batch sends another result first under its call id', async () => {
    const plans = [`${big}1`, `${big}2`].map((content) => {
      const plan = planToolResultOffload({ workspace, toolCallId: 'call_0', content });
      if ('status' in plan) throw new Error('expected a plan');
      return plan;
    });
    const [first, second] = plans as [(typeof plans)[number], (typeof plans)[number]];
    const [alone] = await new ToolResultOffloadWriter().write([second]);
    expect(alone).toEqual({ ok: true, created: true, path: second.path, reference: second.reference });
    const expected = [
      { ok: true, created: true, ...first.alternate },
      { ok: true, created: false, path: second.path, reference: second.reference },
    ];
    expect(await new ToolResultOffloadWriter().write(plans, { dryRun: true })).toEqual([
      {
        ...expected[0],
        created: false,
        isDryRun: true,
        reference: dryRunOffloadReference(first.alternate.reference),
      },
      expected[1],
    ]);
    expect(await new ToolResultOffloadWriter().write(plans)).toEqual(expected);
    expect((await readdir(path.dirname(second.path))).sort()).toEqual(
      [path.basename(first.alternate.path), 'call_0.txt'].sort(),
    );
  });

  it("sends one result under two call ids that share nanobot's name in one batch to that one file", async () => {
    const plans = ['call:1', 'call_1'].map((toolCallId) => {
      const plan = planToolResultOffload({ workspace, toolCallId, content: big });
      if ('status' in plan) throw new Error('expected a plan');
      return plan;
    });
    for (const dryRun of [true, false]) {
      const outcomes = await new ToolResultOffloadWriter().write(plans, { dryRun });
      expect(outcomes.map((outcome) => outcome.ok && path.basename(outcome.path))).toEqual([
        'call_1.txt',
        'call_1.txt',
      ]);
    }
    expect(await readdir(path.dirname(plans[0]?.path ?? ''))).toEqual(['call_1.txt']);
  });

  it('sends two results under one reused call id in one batch to two files', async () => {
    const plans = [`${big}a`, `${big}b`].map((content) => {
      const plan = planToolResultOffload({ workspace, toolCallId: 'call_0', content });
      if ('status' in plan) throw new Error('expected a plan');
      return plan;
    });
    const outcomes = await new ToolResultOffloadWriter().write(plans);
    expect(outcomes.map((outcome) => outcome.ok && path.basename(outcome.path))).toEqual([
      'call_0.txt',
      path.basename((plans[1] as (typeof plans)[number]).alternate.path),
    ]);
    for (const [index, outcome] of outcomes.entries())
      expect(outcome.ok && (await readFile(outcome.path, 'utf8'))).toBe(plans[index]?.stored);
  });

  it('writes a batch with one writer and does not touch the disk again for files it knows', async () => {
    const writer = new ToolResultOffloadWriter();
    const plans = ['a', 'b', 'c'].map((id) => {
      const plan = planToolResultOffload({ workspace, toolCallId: id, content: `${big}${id}` });
      if ('status' in plan) throw new Error('expected a plan');
      return plan;
    });
    const at = (plan: (typeof plans)[number]) => ({ path: plan.path, reference: plan.reference });
    expect(await writer.write([...plans, plans[0] as (typeof plans)[number]])).toEqual([
      ...plans.map((plan) => ({ ok: true, created: true, ...at(plan) })),
      { ok: true, created: false, ...at(plans[0] as (typeof plans)[number]) },
    ]);
    await rm(path.join(workspace, '.ctxloom'), { recursive: true });
    // A known file is trusted: no stat, no mkdir (the writer would fail on the missing folder otherwise).
    expect(await writer.write(plans)).toEqual(
      plans.map((plan) => ({ ok: true, created: false, ...at(plan) })),
    );
    expect(await new ToolResultOffloadWriter().write(plans)).toEqual(
      plans.map((plan) => ({ ok: true, created: true, ...at(plan) })),
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

  test.prop(
    [
      fc.array(fc.tuple(arbitraryKey, arbitraryKey, fc.string({ minLength: 0, maxLength: 3 })), {
        minLength: 2,
        maxLength: 8,
      }),
    ],
    { numRuns: 40 },
  )(
    'every reference names a file holding exactly its own bytes, inside the root, valid on Windows',
    async (cases) => {
      const root = path.join(workspace, '.ctxloom', 'tool-results');
      await rm(root, { recursive: true, force: true });
      const writer = new ToolResultOffloadWriter();
      const plans = cases.map(([sessionKey, toolCallId, tail]) => {
        const plan = planToolResultOffload({
          workspace,
          sessionKey,
          toolCallId,
          content: `${'z'.repeat(30)}${tail}`,
          maxChars: 10,
        });
        if ('status' in plan) throw new Error('expected a plan');
        return plan;
      });
      // Half in one batch, the rest one by one: both paths must keep every reference true.
      const half = Math.ceil(plans.length / 2);
      const outcomes = [
        ...(await writer.write(plans.slice(0, half))),
        ...(await Promise.all(plans.slice(half).map(async (plan) => (await writer.write([plan]))[0]))),
      ];
      for (const [index, outcome] of outcomes.entries()) {
        const plan = plans[index] as (typeof plans)[number];
        if (outcome === undefined || !outcome.ok) throw new Error(`write failed: ${JSON.stringify(outcome)}`);
        expect(await readFile(outcome.path, 'utf8')).toBe(plan.stored);
        expect(outcome.reference).toContain(`Full output saved to: ${outcome.path}\n`);
        expect(path.dirname(path.dirname(outcome.path))).toBe(root);
        for (const segment of [path.basename(path.dirname(outcome.path)), path.basename(outcome.path)]) {
          // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are invalid names
          expect(segment).not.toMatch(/[<>:"/\\|?*\u0000-\u001f]/);
          expect(segment).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i);
          expect(segment).not.toMatch(/[. ]$/);
          expect(segment).not.toMatch(/^\.\.?$/);
        }
      }
    },
  );
});
