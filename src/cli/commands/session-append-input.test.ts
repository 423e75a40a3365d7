import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import { main } from '../main.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-cli-append-'));
  await mkdir(path.join(dir, 'ws', 'sessions'), { recursive: true });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sessions = () => readdir(path.join(dir, 'ws', 'sessions'));

describe('ctxloom session append refuses input it would store wrongly (exit 2, nothing written)', () => {
  it('an empty session key', async () => {
    const io = memoryIo(dir);
    expect(await main(['session', 'append', '', 'hello', '--workspace', 'ws'], io)).toBe(2);
    expect(io.err()).toMatch(/^INVALID_OPTIONS: session append needs a session KEY, got an empty one/);
    expect(await sessions()).toEqual([]);
    const show = memoryIo(dir);
    expect(await main(['session', 'show', '', '--workspace', 'ws'], show)).toBe(2);
  });

  it('a --role that is not user, assistant or system, saying the allowed roles', async () => {
    const io = memoryIo(dir);
    expect(await main(['session', 'append', 'k', '--role', 'wizard', 'hi', '--workspace', 'ws'], io)).toBe(2);
    expect(io.err()).toMatch(
      /^INVALID_OPTIONS: --role "wizard" is not a role session append writes; use one of: user, assistant, system/,
    );
    const typo = memoryIo(dir);
    expect(
      await main(['session', 'append', 'k', '--role', 'asistant', 'hi', '--workspace', 'ws'], typo),
    ).toBe(2);
    expect(typo.err()).toContain('Did you mean assistant?');
    expect(await sessions()).toEqual([]);
    const ok = memoryIo(dir);
    expect(await main(['session', 'append', 'k', '--role', 'system', 'hi', '--workspace', 'ws'], ok)).toBe(0);
  });

  it('a JSON message without content, naming the missing field and where it is', async () => {
    await writeFile(path.join(dir, 'm.json'), '[{"role":"user","content":"ok"},{"role":"user"}]');
    const io = memoryIo(dir);
    expect(await main(['session', 'append', 'k', '--file', 'm.json', '--workspace', 'ws'], io)).toBe(2);
    expect(io.err()).toMatch(
      /^INVALID_INPUT: Cannot make a message from input\[1\]: it has no "content" field/,
    );
    expect(await sessions()).toEqual([]);
    await writeFile(
      path.join(dir, 'calls.jsonl'),
      '{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}\n{"role":"tool","tool_call_id":"c1","content":"done"}\n',
    );
    const calls = memoryIo(dir);
    expect(await main(['session', 'append', 'k', '--file', 'calls.jsonl', '--workspace', 'ws'], calls)).toBe(
      0,
    );
    expect(calls.out()).toBe('Appended 2 messages to k.\n');
  });

  it.each([
    ['build', ['--workspace', 'ws', '--preset', 'agent']],
    ['inspect', ['--workspace', 'ws']],
    ['serve', ['--workspace', 'ws']],
  ])(
    '%s refuses a --context-window that is not a safe, sane integer, naming the flag',
    async (command, flags) => {
      for (const value of ['99999999999999999999', '1e6', '0x10', '']) {
        const io = memoryIo(dir);
        expect(await main([command, ...flags, '--context-window', value, 'hi'], io), value).toBe(2);
        expect(io.err()).toMatch(
          /^INVALID_OPTIONS: --context-window must be a whole number from [01] to 1,000,000,000, got /,
        );
      }
    },
  );

  it('memory and session flags: a --timeout-ms setTimeout cannot honour, a --max-tokens past any window', async () => {
    const timeout = memoryIo(dir, { CTXLOOM_MODEL_URL: 'http://127.0.0.1:9/v1', CTXLOOM_MODEL: 'm' });
    expect(await main(['memory', 'write', '--workspace', 'ws', '--timeout-ms', '9999999999'], timeout)).toBe(
      2,
    );
    expect(timeout.err()).toContain(
      '--timeout-ms must be a whole number from 0 to 2,147,483,647, got "9999999999"',
    );
    expect(await main(['session', 'append', 'k', 'hi', '--workspace', 'ws'], memoryIo(dir))).toBe(0);
    const show = memoryIo(dir);
    expect(
      await main(['session', 'show', 'k', '--workspace', 'ws', '--replay', '--max-tokens', '1e21'], show),
    ).toBe(2);
    expect(show.err()).toContain('--max-tokens must be a whole number from 0 to 1,000,000,000');
  });
});
