/**
 * The generated agent session of the context-build benchmark: user questions (one in five in
 * Chinese), assistant answers, tool transactions with 50–600-word results and, one call in twelve, a
 * large result (a 20–60 KB file dump of code and JSON, over the governor's 16,000-character limit, so
 * it is offloaded). Seeded: every run and every compared library sees the same data.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assistant, createSequentialIdGenerator, system, tool, user } from '../src/core/index.js';
import type { Message, ToolDefinition } from '../src/index.js';
import { createRandom } from './generate-history.js';

const ENGLISH = (
  'the a to of and in is it you that for on with as are this be at or have from by not but what all ' +
  'when we there can an your which their said if do will each about how up out them then many some so ' +
  'function const return await async import export interface type string number boolean null error ' +
  'result message session context token budget filter provider model request response config path'
).split(' ');
const CHINESE =
  '上下文 模型 会话 工具 结果 预算 消息 配置 文件 错误 我们 需要 检查 这个 函数 返回 的 了 是 在 和 有 不 用户 问题 回答'.split(
    ' ',
  );
/** The token budget of the benchmarks on this corpus: the whole request (messages + tool schemas) must fit in it. */
export const BUDGET_TOKENS = 100_000;

const TOOL_NAMES = ['read_file', 'exec', 'web_search', 'write_file', 'list_dir'] as const;

function words(random: () => number, count: number, chinese: boolean): string {
  const out: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const list = chinese ? CHINESE : ENGLISH;
    out.push(list[Math.floor(random() * list.length)] as string);
    if (random() < 0.08) out.push(chinese ? '。\n' : '.\n');
  }
  return out.join(chinese ? '' : ' ');
}

function between(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** A 20–60 KB dump: source lines and JSON records, as `exec cat` or a search API returns them. */
function largeResult(random: () => number): string {
  const target = between(random, 20_000, 60_000);
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < target; line += 1) {
    const text =
      random() < 0.5
        ? `  const value${line} = await context.${words(random, 1, false)}(${JSON.stringify(words(random, 3, false))});`
        : JSON.stringify({ id: line, name: words(random, 2, false), note: words(random, 4, random() < 0.3) });
    lines.push(text);
    size += text.length + 1;
  }
  return lines.join('\n');
}

/** A session of exactly `count` messages, ending with a user message (the current turn's question). */
export function generateAgentCorpus(count: number, seed = 11): readonly Message[] {
  const random = createRandom(seed);
  const generateId = createSequentialIdGenerator('c');
  const messages: Message[] = [system(words(random, 250, false), { generateId })];
  let calls = 0;
  while (messages.length < count - 1) {
    messages.push(user(words(random, between(random, 8, 80), random() < 0.2), { generateId }));
    if (random() < 0.4) {
      const turn = Array.from({ length: between(random, 1, 3) }, () => {
        calls += 1;
        const name = TOOL_NAMES[Math.floor(random() * TOOL_NAMES.length)] as string;
        return {
          id: `call_${calls}`,
          name,
          arguments: { path: `src/${words(random, 1, false)}-${calls}.ts` },
        };
      });
      messages.push(assistant('', { generateId, toolCalls: turn }));
      for (const call of turn) {
        const output =
          random() < 1 / 12 ? largeResult(random) : words(random, between(random, 50, 600), random() < 0.1);
        messages.push(tool(output, { generateId, toolCallId: call.id, name: call.name }));
      }
    }
    messages.push(assistant(words(random, between(random, 20, 200), random() < 0.2), { generateId }));
  }
  let end = Math.min(messages.length, count - 1);
  while (end > 1 && (messages[end]?.role === 'tool' || messages[end - 1]?.toolCalls !== undefined)) end -= 1;
  const history = messages.slice(0, end);
  while (history.length < count - 1) history.push(assistant(words(random, 40, false), { generateId }));
  history.push(user(words(random, 30, false), { generateId }));
  return history;
}

/** Five tool definitions with JSON schemas, as an agent sends them. */
export const CORPUS_TOOLS: readonly ToolDefinition[] = TOOL_NAMES.map((name) => ({
  name,
  description: `The ${name.replace('_', ' ')} tool: does what its name says within the workspace.`,
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', description: 'A path inside the workspace.' } },
    required: ['path'],
  },
}));

/**
 * The corpus of `count` messages, generated once per machine and kept as JSON in the temp folder
 * (generating 100,000 messages takes longer than parsing them), so every case process reads the
 * same bytes.
 */
export async function loadAgentCorpus(count: number, seed = 11): Promise<readonly Message[]> {
  const file = path.join(tmpdir(), `ctxloom-bench-corpus-v1-${count}-${seed}.json`);
  try {
    return JSON.parse(await readFile(file, 'utf8')) as readonly Message[];
  } catch {
    const corpus = generateAgentCorpus(count, seed);
    await writeFile(`${file}.tmp`, JSON.stringify(corpus));
    await rename(`${file}.tmp`, file);
    return corpus;
  }
}
