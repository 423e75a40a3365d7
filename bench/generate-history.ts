/**
 * Deterministic generated workloads for the benchmarks: a long agent session with user questions,
 * assistant answers and tool transactions (parallel calls, long tool outputs), seeded so every run
 * and every compared library sees the same data.
 */

import { assistant, createSequentialIdGenerator, system, tool, user } from '../src/core/index.js';
import type { Message, ToolDefinition } from '../src/index.js';

const WORDS = (
  'the a to of and in is it you that for on with as are this be at or have from by not but what all ' +
  'were when we there can an your which their said if do will each about how up out them then she many ' +
  'some so these would other into has more her two like him see time could no make than first been its ' +
  'who now people my made over did down only way find use may water long little very after words called ' +
  'just where most know get through back much before go good new write our used me man too any day same ' +
  'right look think also around another came come work three word must because does part even place well ' +
  'function const return await async import export interface type string number boolean null undefined ' +
  'error result message session context token budget filter provider model request response config path ' +
  '上下文 模型 会话 工具 结果 预算 消息 配置 文件 错误'
).split(' ');

const TOOL_NAMES = ['read_file', 'exec', 'web_search', 'write_file', 'list_dir'] as const;

/** A seeded pseudo-random generator (mulberry32): the same seed gives the same workload. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function words(random: () => number, min: number, max: number): string {
  const count = min + Math.floor(random() * (max - min + 1));
  const out: string[] = [];
  for (let index = 0; index < count; index += 1) {
    out.push(WORDS[Math.floor(random() * WORDS.length)] as string);
    if (random() < 0.08) out.push(random() < 0.5 ? '.\n' : ',');
  }
  return out.join(' ');
}

/**
 * A session of exactly `count` messages: one system prompt, then turns of a user message and either
 * an assistant answer or a tool transaction (1–3 parallel calls with 50–600-word results) followed by
 * an answer; it ends with the current user message. About 40 % of turns use tools.
 */
export function generateHistory(count: number, seed = 42): readonly Message[] {
  const random = createRandom(seed);
  const generateId = createSequentialIdGenerator('b');
  const messages: Message[] = [system(words(random, 200, 300), { generateId })];
  let callCount = 0;
  while (messages.length < count - 1) {
    messages.push(user(words(random, 8, 80), { generateId }));
    if (random() < 0.4) {
      const calls = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
        callCount += 1;
        const name = TOOL_NAMES[Math.floor(random() * TOOL_NAMES.length)] as string;
        return {
          id: `call_${callCount}`,
          name,
          arguments: { path: `notes/${words(random, 1, 3).replaceAll(/\W+/g, '-')}.md` },
        };
      });
      messages.push(assistant('', { generateId, toolCalls: calls }));
      for (const call of calls)
        messages.push(tool(words(random, 50, 600), { generateId, toolCallId: call.id, name: call.name }));
    }
    messages.push(assistant(words(random, 20, 200), { generateId }));
  }
  // Cut at a turn boundary (never inside a transaction) and end with the current user message.
  let end = Math.min(messages.length, count - 1);
  while (end > 1 && (messages[end]?.role === 'tool' || messages[end - 1]?.toolCalls !== undefined)) end -= 1;
  const history = messages.slice(0, end);
  while (history.length < count - 1) history.push(assistant(words(random, 20, 200), { generateId }));
  history.push(user(words(random, 8, 80), { generateId }));
  return history;
}

/** Five tool definitions with JSON schemas, as an agent would send them. */
export const BENCH_TOOLS: readonly ToolDefinition[] = TOOL_NAMES.map((name) => ({
  name,
  description: `The ${name.replace('_', ' ')} tool: does what its name says within the workspace.`,
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', description: 'A path inside the workspace.' } },
    required: ['path'],
  },
}));
