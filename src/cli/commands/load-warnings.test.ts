import { copyFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import { main } from '../main.js';

const EXAMPLE = fileURLToPath(new URL('../../../examples/workspace', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/nanobot-sessions/', import.meta.url));
/** A nanobot session with three unreadable lines (7, 11 and a torn last one). */
const FILE = 'dGVsZWdyYW06ODI4MTI0ODU2OQ.jsonl';
const KEY = 'telegram:8281248569';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-load-warnings-'));
  await cp(EXAMPLE, path.join(dir, 'ws'), { recursive: true });
  await copyFile(path.join(FIXTURES, FILE), path.join(dir, 'ws', 'sessions', FILE));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("build and inspect report the store's load warnings, as session show does", () => {
  it('session show (the reference)', async () => {
    const io = memoryIo(dir);
    expect(await main(['session', 'show', KEY, '--workspace', 'ws'], io)).toBe(0);
    expect(io.err()).toMatch(/^warning: Session "telegram:8281248569": line 7 skipped/m);
  });

  it('build --session: on stderr, and in --json warnings', async () => {
    const text = memoryIo(dir);
    const args = ['build', '--workspace', 'ws', '--preset', 'agent', '--session', KEY];
    expect(await main([...args, 'Hi'], text), text.err()).toBe(0);
    expect(text.err()).toMatch(/^warning: Session "telegram:8281248569": line 7 skipped/m);
    expect(text.err()).toMatch(/line 11 skipped/);
    const json = memoryIo(dir);
    expect(await main([...args, '--json', 'Hi'], json)).toBe(0);
    const report = JSON.parse(json.out()) as { warnings: string[] };
    expect(report.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Session "telegram:8281248569": line 7 skipped/)]),
    );
  });

  it('inspect: in the Warnings of the report, on stderr, and in --json warnings', async () => {
    const text = memoryIo(dir);
    const args = ['inspect', '--workspace', 'ws', '--session', KEY];
    expect(await main([...args, 'Hi'], text), text.err()).toBe(0);
    expect(text.out()).not.toContain('Warnings: none');
    expect(text.out()).toMatch(/! Store: Session "telegram:8281248569": line 7 skipped/);
    expect(text.err()).toMatch(/^warning: Session "telegram:8281248569": line 7 skipped/m);
    const json = memoryIo(dir);
    expect(await main([...args, '--json', 'Hi'], json)).toBe(0);
    const report = JSON.parse(json.out()) as { warnings: { type: string; message: string }[] };
    expect(report.warnings).toEqual(
      expect.arrayContaining([
        { type: 'store-load', message: expect.stringMatching(/^Session "telegram:8281248569": line 7/) },
      ]),
    );
  });
});
