import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JsonlSessionStore } from '../../index.js';
import { JsonlRequestStore } from '../../recorder/index.js';
import { main } from '../main.js';

const EXAMPLE = path.resolve(import.meta.dirname, '../../../examples/workspace');
let workspace = '';

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-inspect-'));
  await cp(EXAMPLE, workspace, { recursive: true });
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function run(
  args: readonly string[],
  options: { env?: Record<string, string>; columns?: number; isTTY?: boolean } = {},
) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: {
      write: (text: string) => {
        stdout += text;
      },
      ...(options.columns === undefined ? {} : { columns: options.columns }),
      ...(options.isTTY === undefined ? {} : { isTTY: options.isTTY }),
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
      },
    },
    env: options.env ?? {},
    cwd: workspace,
  });
  return { code, stdout, stderr };
}

type Row = { name: string; tokens: number; percent: number };

/** Reads `NAME  1,234 tokens  1.0%` lines (the grid may sit on their left). */
function parseRows(text: string): Row[] {
  const rows: Row[] = [];
  for (const line of text.split('\n')) {
    const list = line.replace(/^(?:(?:\S ){9}\S|\s{19}) {3}/, '');
    const match = /^\S (.+?)\s+([\d,]+) tokens\s+([\d.]+)%$/.exec(list);
    if (match?.[1] !== undefined && match[2] !== undefined && match[3] !== undefined) {
      rows.push({
        name: match[1].trim(),
        tokens: Number(match[2].replaceAll(',', '')),
        percent: Number(match[3]),
      });
    }
  }
  return rows;
}

function parseHeader(text: string): { used: number; total: number } {
  const match = /([\d,]+)\/([\d,]+) tokens \(([\d.]+)%\)/.exec(text);
  return { used: Number(match?.[1]?.replaceAll(',', '')), total: Number(match?.[2]?.replaceAll(',', '')) };
}

describe('ctxloom inspect', () => {
  it('prints the grid and categories that add up to the total on the example workspace', async () => {
    const { code, stdout, stderr } = await run([
      'inspect',
      '--workspace',
      workspace,
      'What should I work on next?',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const header = parseHeader(stdout);
    expect(header.total).toBe(128_000);
    const rows = parseRows(stdout);
    const names = rows.map((row) => row.name);
    expect(names).toEqual(
      expect.arrayContaining(['AGENTS.md', 'SOUL.md', 'USER.md', 'History', 'Current message']),
    );
    const used = rows.filter((row) => row.name !== 'Reserved output' && row.name !== 'Free space');
    expect(used.reduce((sum, row) => sum + row.tokens, 0)).toBe(header.used);
    expect(rows.reduce((sum, row) => sum + row.tokens, 0)).toBe(header.total);
    const gridLines = stdout.split('\n').filter((line) => /^(?:\S ){9}\S/.test(line));
    expect(gridLines).toHaveLength(10);
    expect(stdout).not.toContain('\u001b[');
    expect(rows.find((row) => row.name === 'Summary')?.tokens).toBeGreaterThan(0);
    expect(rows.find((row) => row.name === 'Tool contract')?.tokens).toBeGreaterThan(0);
    expect(stdout).toMatch(/^Decisions \(\d+\):$/m);
    expect(stdout).toMatch(/^ {2}- message-drop by [\w-]+: .+ \[m22\]$/m);
    expect(stdout).toMatch(/^ {2}- tool-result-backfill by [\w-]+: .*call_09.*$/m);
    expect(stdout).toMatch(/^ {2}- tool-result-offload by [\w-]+: .+ \[m18\]$/m);
  });

  it('prints the same numbers as JSON', async () => {
    const text = await run(['inspect', '--workspace', workspace, 'What should I work on next?']);
    const json = await run(['inspect', '--workspace', workspace, '--json', 'What should I work on next?']);
    expect(json.code).toBe(0);
    const data = JSON.parse(json.stdout) as {
      session: string;
      model: string;
      usedTokens: number;
      contextWindowTokens: number;
      categories: { name: string; kind: string; tokens: number; percent: number }[];
      warnings: unknown[];
      decisions: { type: string; reason: string }[];
    };
    expect(data.session).toBe('cli:direct');
    expect(data.model).toBe('gpt-4o');
    const used = data.categories.filter((category) => category.kind === 'used');
    expect(used.reduce((sum, category) => sum + category.tokens, 0)).toBe(data.usedTokens);
    expect(data.usedTokens).toBe(parseHeader(text.stdout).used);
    expect(data.categories.map(({ name, tokens, percent }) => ({ name, tokens, percent }))).toEqual(
      parseRows(text.stdout),
    );
    expect(data.decisions.length).toBeGreaterThan(0);
  });

  it('colours the grid on a terminal, and honours NO_COLOR', async () => {
    const coloured = await run(['inspect', '--workspace', workspace], { isTTY: true });
    expect(coloured.stdout).toContain('\u001b[38;5;');
    const plain = await run(['inspect', '--workspace', workspace], {
      isTTY: true,
      env: { NO_COLOR: '1', FORCE_COLOR: '1' },
    });
    expect(plain.stdout).not.toContain('\u001b[');
  });

  it('falls back to a one-column list on a narrow terminal', async () => {
    const { stdout } = await run(['inspect', '--workspace', workspace, '--session', 'telegram:8281248569'], {
      columns: 40,
    });
    expect(stdout).toContain('Context of session telegram:8281248569');
    expect(stdout.split('\n').some((line) => /^(?:\S ){9}\S/.test(line))).toBe(false);
    const rows = parseRows(stdout);
    const header = parseHeader(stdout);
    expect(
      rows
        .filter((row) => !['Reserved output', 'Free space'].includes(row.name))
        .reduce((s, r) => s + r.tokens, 0),
    ).toBe(header.used);
  });

  it('reads a history file, honours the window flags and warns about a large tool result', async () => {
    const file = path.join(workspace, 'big-history.json');
    const big = Array.from({ length: 700 }, (_, index) => `line ${index}: ok`).join('\n');
    await writeFile(
      file,
      JSON.stringify([
        { id: 'u1', role: 'user', content: 'run it' },
        {
          id: 'a1',
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 'run_command', arguments: '{}' }],
        },
        { id: 't1', role: 'tool', toolCallId: 'c1', name: 'run_command', content: big },
      ]),
    );
    const { code, stdout } = await run([
      'inspect',
      '--workspace',
      workspace,
      '--history',
      file,
      '--context-window',
      '20000',
      '--max-output',
      '1000',
      '--model',
      'my-model',
      '--json',
    ]);
    expect(code).toBe(0);
    const data = JSON.parse(stdout) as {
      model: string;
      contextWindowTokens: number;
      warnings: { type: string; message: string }[];
    };
    expect(data).toMatchObject({ model: 'my-model', contextWindowTokens: 20_000 });
    expect(data.warnings[0]?.message).toMatch(
      /^tool result of run_command \(c1\) takes [\d,]+ tokens \(\d+\.\d% of the window\)\.$/,
    );
  });

  it('counts a Claude --model conservatively when the config names no counter, and says so', async () => {
    const plain = await mkdtemp(path.join(tmpdir(), 'ctxloom-inspect-claude-'));
    try {
      await cp(EXAMPLE, plain, { recursive: true });
      await writeFile(path.join(plain, 'ctxloom.yaml'), 'agent:\n  contextWindowTokens: 128000\n');
      const report = async (model: string) =>
        JSON.parse((await run(['inspect', '--workspace', plain, '--model', model, '--json'])).stdout) as {
          tokenCounter: string;
          usedTokens: number;
        };
      const claude = await report('claude-sonnet-4-5');
      const other = await report('llama-3.1');
      expect(claude.tokenCounter).toBe('scaled(1.25):estimate:o200k');
      expect(other.tokenCounter).toBe('estimate:o200k');
      expect(claude.usedTokens).toBeGreaterThan(other.usedTokens * 1.2);
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });

  it('warns from a lower share of the window with --warn-percent', async () => {
    const { stdout } = await run(['inspect', '--workspace', workspace, '--warn-percent', '0.3', '--json']);
    const data = JSON.parse(stdout) as { warnings: { type: string; message: string }[] };
    expect(data.warnings.map((warning) => warning.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Tool contract takes [\d,]+ tokens \(0\.\d% of the window\)\.$/),
      ]),
    );
    const bad = await run(['inspect', '--workspace', workspace, '--warn-percent', '0']);
    expect(bad.code).toBe(2);
  });

  it('rejects bad flags and unknown sessions with clear errors', async () => {
    const bad = await run(['inspect', '--workspace', workspace, '--context-window', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^INVALID_OPTIONS: --context-window must be a whole number/);
    const unknown = await run(['inspect', '--workspace', workspace, '--bogus']);
    expect(unknown.code).toBe(2);
    const missing = await run(['inspect', '--workspace', workspace, '--session', 'nope']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^NOT_FOUND: No session is stored under the key "nope"/);
  });

  it('closes the session store when the request log cannot be opened', async () => {
    const failure = vi.spyOn(JsonlRequestStore, 'besideSessions').mockImplementation(() => {
      throw new Error('request log unreadable');
    });
    const close = vi.spyOn(JsonlSessionStore.prototype, 'close');
    try {
      const { code, stderr } = await run(['inspect', '--workspace', workspace, '--session', 'cli:direct']);
      expect(code).toBe(1);
      expect(stderr).toContain('request log unreadable');
      expect(close).toHaveBeenCalledTimes(1);
    } finally {
      failure.mockRestore();
      close.mockRestore();
    }
  });
});
