import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../test/helpers/memory-io.js';
import { PG_URL, pgQuery, requirePostgres } from '../../test/helpers/pg-test-server.js';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.js';
import { assistant, user } from '../core/index.js';
import { JsonlSessionStore } from '../index.js';
import { COMMANDS } from './commands/index.js';
import { main } from './main.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'src/cli/bin.ts');
let dir: string;
let server: ScriptedOpenAIServer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-cli-json-'));
  await cp(path.join(ROOT, 'examples/workspace'), path.join(dir, 'ws'), { recursive: true });
  // A long session, so `memory consolidate` under a 3,000-token window has turns to archive.
  const long = Array.from({ length: 20 }, (_, index) =>
    index % 2 === 0
      ? user(`question ${index} ${'q'.repeat(400)}`)
      : assistant(`answer ${index} ${'a'.repeat(400)}`),
  );
  await new JsonlSessionStore({ dir: path.join(dir, 'ws', 'sessions') }).append('cli:long', long);
  await writeFile(path.join(dir, 'more.json'), JSON.stringify([{ role: 'user', content: 'appended' }]));
  server = await startScriptedOpenAIServer(
    Array.from({ length: 8 }, () => ({ kind: 'reply' as const, content: '- [durable] a fact' })),
  );
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process and parses its stdout as one JSON value. */
async function json(args: readonly string[]): Promise<unknown> {
  const io = memoryIo(dir, { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'm' });
  const code = await main(args, io);
  expect(code, `${args.join(' ')}\n${io.err()}`).toBe(0);
  return JSON.parse(io.out());
}

/** One `--json` invocation per command and action; every command must appear. */
const WALK: readonly (readonly string[])[] = [
  ['init', 'fresh', '--json'],
  ['build', '--workspace', 'ws', 'Next?'],
  ['build', '--workspace', 'ws', '--json', 'Next?'],
  ['build', '--workspace', 'ws', '--preset', 'agent', '--session', 'cli:direct', '--json', 'Next?'],
  ['build', '--workspace', 'ws', '--format', 'anthropic', '--json', 'Next?'],
  ['inspect', '--workspace', 'ws', '--session', 'cli:direct', '--json'],
  ['cache', '--workspace', 'ws', '--session', 'cli:direct', '--json'],
  ['skills', 'list', '--workspace', 'ws', '--json'],
  ['session', 'list', '--workspace', 'ws', '--json'],
  ['session', 'show', 'cli:direct', '--workspace', 'ws', '--json'],
  ['session', 'show', 'cli:direct', '--workspace', 'ws', '--replay', '--json'],
  ['session', 'append', 'cli:new', '--workspace', 'ws', '--json', 'hello'],
  ['session', 'append', 'cli:new', '--workspace', 'ws', '--file', 'more.json', '--json'],
  ['session', 'repair', 'cli:direct', '--workspace', 'ws', '--json'],
  ['session', 'import', 'ws/sessions', '--sqlite', 'copy.db', '--json'],
  ['session', 'list', '--sqlite', 'copy.db', '--json'],
  ['memory', 'status', '--workspace', 'ws', '--json'],
  ['memory', 'status', '--workspace', 'ws', '--sqlite', 'copy.db', '--json'],
  ['memory', 'write', '--workspace', 'ws', '--dry-run', '--min-retained', '0', '--json'],
  [
    'memory',
    'consolidate',
    'cli:long',
    '--workspace',
    'ws',
    '--context-window',
    '3000',
    '--max-output',
    '100',
    '--plain-prompt',
    '--json',
  ],
  ['memory', 'consolidate', '--workspace', 'ws', '--idle-minutes', '0', '--json'],
  ['compact', '--workspace', 'ws', '--session', 'cli:direct', '--keep-recent', '0', '--dry-run', '--json'],
];

describe('every ctxloom command prints pure JSON on stdout', () => {
  it('walks every command with --json (build: also its default --format json) and parses stdout', async () => {
    const walked = new Set(WALK.map((args) => args[0]));
    // serve is walked below (it runs until a signal, so it gets its own process); eval --json in
    // eval.test.ts (it runs the small tier, a minute of work).
    expect([...walked, 'serve', 'eval'].sort()).toEqual(COMMANDS.map((command) => command.name).sort());
    for (const args of WALK) {
      const value = await json(args);
      expect(value, args.join(' ')).not.toBeNull();
      expect(typeof value, args.join(' ')).toBe('object');
    }
  }, 60_000);

  it('gives build --json the messages, the sections and the totals', async () => {
    const report = (await json(['build', '--workspace', 'ws', '--json', 'Next?'])) as {
      preset: string;
      messages: { role: string }[];
      sections: { section: string; tokens: number }[];
      totalTokens: number;
    };
    expect(report.preset).toBe('react');
    expect(report.messages.at(-1)?.role).toBe('user');
    expect(report.sections.reduce((sum, row) => sum + row.tokens, 0)).toBe(report.totalTokens);
  });

  it('prints the same numbers in build --preset agent and inspect for the same session and message', async () => {
    for (const extra of [
      [],
      ['--max-tokens', '1800'],
      ['--max-messages', '4'],
      ['--context-window', '9000', '--max-output', '2000'],
    ]) {
      const built = (await json([
        'build',
        '--workspace',
        'ws',
        '--preset',
        'agent',
        '--session',
        'cli:direct',
        '--allow-over-budget',
        '--json',
        ...extra,
        'What next?',
      ])) as { totalTokens: number; sections: { section: string; tokens: number }[] };
      const inspected = (await json([
        'inspect',
        '--workspace',
        'ws',
        '--session',
        'cli:direct',
        '--json',
        ...extra,
        'What next?',
      ])) as { usedTokens: number; sections: { section: string; tokens: number }[] };
      expect(built.totalTokens, extra.join(' ')).toBe(inspected.usedTokens);
      expect(
        built.sections.map(({ section, tokens }) => ({ section, tokens })),
        extra.join(' '),
      ).toEqual(inspected.sections);
    }
  });

  it('prints the same numbers in build --preset agent and inspect for the same --history file', async () => {
    const source = ['--history', 'ws/history.jsonl'];
    const built = (await json([
      'build',
      '--workspace',
      'ws',
      '--preset',
      'agent',
      ...source,
      '--json',
      'Go',
    ])) as {
      totalTokens: number;
      sections: { section: string; tokens: number }[];
    };
    const inspected = (await json(['inspect', '--workspace', 'ws', ...source, '--json', 'Go'])) as {
      usedTokens: number;
      sections: { section: string; tokens: number }[];
    };
    expect(built.totalTokens).toBe(inspected.usedTokens);
    expect(built.sections.map(({ section, tokens }) => ({ section, tokens }))).toEqual(inspected.sections);
    expect(inspected.sections.find((row) => row.section === 'history')?.tokens).toBeGreaterThan(0);
  });

  it('honours --max-tokens and --max-messages in the agent preset', async () => {
    const base = ['build', '--workspace', 'ws', '--preset', 'agent', '--session', 'cli:direct', '--json'];
    const full = (await json([...base, 'Next?'])) as { totalTokens: number; messages: unknown[] };
    const capped = (await json([...base, '--max-tokens', '1800', 'Next?'])) as { totalTokens: number };
    const few = (await json([...base, '--max-messages', '3', 'Next?'])) as { messages: unknown[] };
    expect(capped.totalTokens).toBeLessThanOrEqual(1800);
    expect(capped.totalTokens).toBeLessThan(full.totalTokens);
    expect(few.messages.length).toBeLessThanOrEqual(4);
    expect(few.messages.length).toBeLessThan(full.messages.length);
  });

  it('exits 3 when the agent context does not fit, and warns instead with --allow-over-budget or in inspect', async () => {
    const args = [
      '--workspace',
      'ws',
      '--session',
      'cli:direct',
      '--context-window',
      '3000',
      '--max-output',
      '1500',
    ];
    const refused = memoryIo(dir);
    expect(await main(['build', '--preset', 'agent', ...args, 'Next?'], refused)).toBe(3);
    expect(refused.out()).toBe('');
    expect(refused.err()).toMatch(
      /^BUDGET_UNSATISFIABLE: The built context does not fit: .*3,000-token window/,
    );
    const allowed = memoryIo(dir);
    expect(await main(['build', '--preset', 'agent', ...args, '--allow-over-budget', 'Next?'], allowed)).toBe(
      0,
    );
    expect(allowed.err()).toMatch(/warning: the prompt .* over the 3,000-token window/);
    const inspected = memoryIo(dir);
    expect(await main(['inspect', ...args, '--json', 'Next?'], inspected)).toBe(0);
    expect(JSON.parse(inspected.out()).warnings).toContainEqual(
      expect.objectContaining({ type: 'over-window' }),
    );
    expect(inspected.err()).toMatch(/^warning: The context and the reserved output need/);
  });

  it('serves with --json: one JSON line with the address, then stops on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', BIN, 'serve', '--workspace', path.join(dir, 'ws'), '--port', '0', '--json'],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out);
      });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
    });
    const { url } = JSON.parse(line) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await fetch(`${url}api/sessions`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});

describe('read commands create nothing', () => {
  it('leaves a missing SQLite file missing and rejects a missing workspace, folder or file', async () => {
    const cases: [string[], RegExp][] = [
      [['session', 'list', '--sqlite', 'fresh.db'], /^NOT_FOUND: --sqlite .*fresh\.db does not exist/],
      [['memory', 'status', '--sqlite', 'fresh.db'], /^NOT_FOUND: --sqlite .*fresh\.db does not exist/],
      [['inspect', '--workspace', 'ws', '--sqlite', 'fresh.db'], /^NOT_FOUND: --sqlite/],
      [['inspect', '--workspace', 'nowhere'], /^NOT_FOUND: --workspace .*nowhere does not exist/],
      [['serve', '--workspace', 'nowhere'], /^NOT_FOUND: --workspace .*nowhere does not exist/],
      [['memory', 'status', '--workspace', 'nowhere'], /^NOT_FOUND: --workspace/],
      [['session', 'list', '--workspace', 'nowhere'], /^NOT_FOUND: --workspace/],
      [['session', 'list', '--sessions', 'nowhere'], /^NOT_FOUND: --sessions/],
      [
        ['skills', 'list', '--workspace', 'ws', '--dir', 'nowhere'],
        /^NOT_FOUND: --dir .*nowhere does not exist/,
      ],
      [['inspect', '--workspace', 'ws', '--history', 'nowhere.jsonl'], /^NOT_FOUND: --history/],
      [
        ['build', '--workspace', 'ws', '--session', 'cli:direct', '--sqlite', 'fresh.db', 'x'],
        /^NOT_FOUND: --sqlite/,
      ],
    ];
    const before = await readdir(dir);
    for (const [args, pattern] of cases) {
      const io = memoryIo(dir);
      expect(await main(args, io), args.join(' ')).toBe(2);
      expect(io.err(), args.join(' ')).toMatch(pattern);
    }
    expect(await readdir(dir)).toEqual(before);
  });

  it('leaves every file of the workspace as it was after build, inspect, session list|show and memory status', async () => {
    const tree = async (): Promise<string[]> =>
      (await readdir(path.join(dir, 'ws'), { recursive: true, withFileTypes: true }))
        .map((entry) => `${path.relative(dir, entry.parentPath)}/${entry.name}`)
        .sort();
    const before = await tree();
    for (const args of [
      ['build', '--workspace', 'ws', '--preset', 'agent', '--session', 'telegram:8281248569', 'Next?'],
      [
        'build',
        '--workspace',
        'ws',
        '--preset',
        'agent',
        '--session',
        'cli:direct',
        '--max-tokens',
        '1800',
        'Next?',
      ],
      ['inspect', '--workspace', 'ws', '--session', 'telegram:8281248569'],
      ['session', 'list', '--workspace', 'ws'],
      ['session', 'show', 'cli:direct', '--workspace', 'ws', '--replay'],
      ['memory', 'status', '--workspace', 'ws'],
    ]) {
      const io = memoryIo(dir);
      expect(await main(args, io), `${args.join(' ')}\n${io.err()}`).toBe(0);
    }
    expect(await tree()).toEqual(before);
  });

  it('does not create a PostgreSQL schema for session list, memory status or inspect', async (context) => {
    requirePostgres(context);
    const schema = `ctxloom_typo_${process.pid}`;
    for (const args of [
      ['session', 'list'],
      ['memory', 'status', '--workspace', 'ws'],
      ['inspect', '--workspace', 'ws'],
    ]) {
      const io = memoryIo(dir);
      expect(await main([...args, '--pg', PG_URL, '--pg-schema', schema], io), args.join(' ')).toBe(2);
      expect(io.err()).toMatch(new RegExp(`^NOT_FOUND: No ctxloom sessions in schema "${schema}"`));
    }
    const client = (await import('../../test/helpers/pg-test-server.js')).pgClient();
    await client.connect();
    const found = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [
      schema,
    ]);
    await client.end();
    expect(found.rowCount).toBe(0);
    await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });

  it('reads build, inspect and memory status from a session store given by --pg', async (context) => {
    requirePostgres(context);
    const schema = `ctxloom_cli_${process.pid}`;
    try {
      const importing = memoryIo(dir);
      const importArgs = ['session', 'import', 'ws/sessions', '--pg', PG_URL, '--pg-schema', schema];
      expect(await main(importArgs, importing), importing.err()).toBe(0);
      const store = ['--pg', PG_URL, '--pg-schema', schema];
      const built = (await json([
        'build',
        '--workspace',
        'ws',
        '--preset',
        'agent',
        '--session',
        'cli:direct',
        ...store,
        '--json',
        'Hi',
      ])) as {
        totalTokens: number;
      };
      const inspected = (await json([
        'inspect',
        '--workspace',
        'ws',
        '--session',
        'cli:direct',
        ...store,
        '--json',
        'Hi',
      ])) as {
        usedTokens: number;
      };
      expect(built.totalTokens).toBe(inspected.usedTokens);
      const status = (await json(['memory', 'status', '--workspace', 'ws', ...store, '--json'])) as {
        store: string;
        sessions: { key: string }[];
      };
      expect(status.store).toBe('postgres');
      expect(status.sessions.map((entry) => entry.key)).toContain('cli:direct');
    } finally {
      await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });
});

describe('one error style', () => {
  it('names the closest flag, command and action, and never leaks Node parser or class names', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['build', '--wokspace', 'ws', 'hi'],
        /^INVALID_OPTIONS: Unknown option --wokspace for 'ctxloom build'\. Did you mean --workspace\?/,
      ],
      [['biuld'], /^INVALID_OPTIONS: Unknown command 'biuld'\. Did you mean build\?/],
      [
        ['session', 'lsit'],
        /^INVALID_OPTIONS: Unknown action 'lsit' for 'ctxloom session'\. Did you mean list\?/,
      ],
      [
        ['build', '--workspace', 'ws', '--max-tokens', '-5', 'hi'],
        /^INVALID_OPTIONS: --max-tokens must be a whole number from 1 to 1,000,000,000, got "-5"/,
      ],
      [['build', '--workspace', 'ws', '--max-tokens'], /^INVALID_OPTIONS: --max-tokens needs a value/],
      [
        ['session', 'list', '--pg', 'notaurl'],
        /^INVALID_OPTIONS: --pg "notaurl" is not a PostgreSQL connection URL/,
      ],
      [
        ['build', '--workspace', 'ws', '--tokenizer', 't.json', 'hi'],
        /^INVALID_OPTIONS: --tokenizer is the tokenizer\.json of the hf counter/,
      ],
      [
        ['skills', 'list', '--workspace', 'ws', '--disable', 'nosuch'],
        /^INVALID_OPTIONS: --disable "nosuch" names no skill/,
      ],
      [
        ['memory', 'consolidate', 'nosuch:key', '--workspace', 'ws'],
        /^NOT_FOUND: No session "nosuch:key" in the jsonl store/,
      ],
      [
        ['memory', 'status', 'extra', '--workspace', 'ws'],
        /^INVALID_OPTIONS: memory status takes no arguments/,
      ],
      [
        ['session', 'list', '--pg-schema', 'x'],
        /^INVALID_OPTIONS: --pg-schema names a schema of the PostgreSQL store/,
      ],
      [
        ['memory', 'status', '--workspace', 'ws', '--max-rounds', '3'],
        /^INVALID_OPTIONS: --max-rounds does nothing for 'ctxloom memory status'/,
      ],
      [
        ['session', 'list', '--workspace', 'ws', '--replace'],
        /^INVALID_OPTIONS: --replace does nothing for 'ctxloom session list'/,
      ],
      [
        ['session', 'show', 'cli:direct', '--workspace', 'ws', '--max-tokens', '50'],
        /^INVALID_OPTIONS: --max-tokens shapes the replayed history: add --replay/,
      ],
      [
        ['build', '--workspace', 'ws', '--context-window', '9000', 'hi'],
        /^INVALID_OPTIONS: --context-window sets the window of the agent preset, but the preset is react/,
      ],
      [
        ['inspect', '--workspace', 'ws', '--context-window', '1000', '--max-output', '8192'],
        /^INVALID_OPTIONS: The output reserve \(8192 tokens\) does not fit in the context window \(1000 tokens\)/,
      ],
    ];
    for (const [args, pattern] of cases) {
      const io = memoryIo(dir);
      expect(await main(args, io), args.join(' ')).toBe(
        args[0] === 'memory' && args[1] === 'consolidate' ? 2 : 2,
      );
      expect(io.err(), args.join(' ')).toMatch(pattern);
      expect(io.err()).not.toMatch(/XYZ|as in '--|ERR_PARSE_ARGS|Coercer|getaddrinfo|\n {4}at /);
      expect(io.out()).toBe('');
    }
  });

  it('says what --strict refuses without naming classes', async () => {
    await writeFile(path.join(dir, 'loose.json'), JSON.stringify([{ role: 'human', text: 'hi' }]));
    const io = memoryIo(dir);
    expect(
      await main(['session', 'append', 'cli:x', '--workspace', 'ws', '--file', 'loose.json', '--strict'], io),
    ).toBe(2);
    expect(io.err()).toMatch(
      /^INVALID_INPUT: Invalid message at .*With --strict every entry must already be a ctxloom message/,
    );
    expect(io.err()).not.toMatch(/Coercer/);
  });

  it('prints the version for --version, -V and version, and a command usage for help CMD', async () => {
    for (const flag of ['--version', '-V', 'version']) {
      const io = memoryIo(dir);
      expect(await main([flag], io)).toBe(0);
      expect(io.out()).toMatch(/^ctxloom \d+\.\d+\.\d+/);
    }
    const help = memoryIo(dir);
    expect(await main(['help', 'build'], help)).toBe(0);
    expect(help.out()).toMatch(/^Usage: ctxloom build --workspace DIR/);
    const unknown = memoryIo(dir);
    expect(await main(['help', 'biuld'], unknown)).toBe(2);
    expect(unknown.err()).toMatch(/Did you mean build\?/);
  });

  it('writes a TOOLS.md whose key ctxloom.yaml accepts (agent.includeToolsFile)', async () => {
    const io = memoryIo(dir);
    expect(await main(['init', 'tools-ws'], io)).toBe(0);
    const tools = await import('node:fs/promises').then((fs) =>
      fs.readFile(path.join(dir, 'tools-ws', 'TOOLS.md'), 'utf8'),
    );
    expect(tools).toContain('`includeToolsFile: true` under `agent:`');
    await writeFile(path.join(dir, 'tools-ws', 'ctxloom.yaml'), 'agent:\n  includeToolsFile: true\n');
    await writeFile(path.join(dir, 'tools-ws', 'TOOLS.md'), '# Tools\n\nUse the-marker-tool.\n');
    const built = (await json(['build', '--workspace', 'tools-ws', '--preset', 'agent', '--json', 'hi'])) as {
      messages: { content: unknown }[];
    };
    expect(JSON.stringify(built.messages[0]?.content)).toContain('the-marker-tool');
  });

  it('refuses init on a file with exit 2', async () => {
    await writeFile(path.join(dir, 'a-file'), 'x');
    const io = memoryIo(dir);
    expect(await main(['init', 'a-file'], io)).toBe(2);
    expect(io.err()).toMatch(/^INVALID_INPUT: .*a-file is a file, not a folder/);
  });
});
