/**
 * ContextGovernor.prepareForModel on a 10,000-message generated session, compared on the same data
 * (converted to the AI SDK's ModelMessage beforehand, outside the timings) with the AI SDK's
 * `pruneMessages`. The two do different jobs: pruneMessages drops reasoning and old tool calls by
 * position; the governor repairs tool-call integrity, normalises/offloads tool results, compacts
 * and snips to a token budget. The comparison shows what the governor's extra guarantees cost.
 * Also: the clean-history fast path (the same array comes back) and offloading to a workspace (first
 * run writes the files, later runs find them). Prints ms and ratios; asserts nothing about speed.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ModelMessage, pruneMessages } from 'ai';
import { toAiSdkMessages } from '../src/ai-sdk/index.js';
import { ContextGovernor, type Message, SimpleTokenCounter } from '../src/index.js';
import { withTokenCache } from '../src/tokens/index.js';
import { atomicWriteFile } from '../src/workspace/atomic-write.js';
import { planToolResultOffload } from '../src/workspace/plan-tool-result-offload.js';
import { BENCH_TOOLS, generateHistory } from './generate-history.js';

const MESSAGES = 10_000;
const RUNS = 5;

type Row = { readonly name: string; readonly ms: number; readonly note: string };

export async function run(): Promise<void> {
  const history = generateHistory(MESSAGES);
  const dirty = corrupt(history);
  const aiSdkHistory = toAiSdkMessages(history).messages;
  const counter = withTokenCache(new SimpleTokenCounter());
  const totalTokens = counter.countMessages(history) + counter.countTools(BENCH_TOOLS);
  const rows: Row[] = [];
  const ratios: string[] = [];

  const roomy = new ContextGovernor({ contextWindowTokens: totalTokens * 2, tokenCounter: counter });
  await roomy.prepareForModel(history, { tools: BENCH_TOOLS });
  const clean = await timed(async () => {
    const result = await roomy.prepareForModel(history, { tools: BENCH_TOOLS });
    return result.messages === history ? 'same array returned' : 'COPY returned';
  });
  rows.push({ name: 'ctxloom prepareForModel, clean history, fits (fast path)', ...clean });

  const budget = 128_000;
  const tight = new ContextGovernor({
    contextWindowTokens: budget + 8_192 + 1_024,
    maxOutputTokens: 8_192,
    tokenCounter: counter,
  });
  const repaired = await timed(async () => {
    const result = await tight.prepareForModel(dirty, {
      tools: BENCH_TOOLS,
      inflightStartIndex: dirty.length - 40,
    });
    return `kept ${result.messages.length}, ${result.trace.stages.flatMap((stage) => stage.decisions).length} decisions`;
  });
  rows.push({
    name: `ctxloom prepareForModel, corrupted history, snip to ${budget.toLocaleString('en-US')} tokens`,
    ...repaired,
  });

  const workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-bench-'));
  try {
    const offloadOptions = { maxToolResultChars: 2_000, tokenCounter: counter } as const;
    const dry = await timed(async () => {
      const governor = new ContextGovernor({ ...offloadOptions, workspace, offload: { dryRun: true } });
      const result = await governor.prepareForModel(history, { tools: BENCH_TOOLS });
      return `${result.trace.stages.flatMap((stage) => stage.decisions).length} references, nothing written`;
    });
    rows.push({ name: 'ctxloom prepareForModel, offload > 2,000 chars, dry run', ...dry });
    const perFile = await timed(async () => {
      const folder = await mkdtemp(path.join(workspace, 'per-file-'));
      const plans = history.flatMap((message) => {
        if (message.role !== 'tool' || message.name === 'read_file') return [];
        const plan = planToolResultOffload({
          workspace: folder,
          toolCallId: message.toolCallId ?? message.id,
          content: message.content,
          maxChars: 2_000,
        });
        return 'status' in plan ? [] : [plan];
      });
      await mkdir(plans[0]?.bucket ?? folder, { recursive: true });
      for (const plan of plans) await atomicWriteFile(plan.path, plan.stored, { mode: 0o644 });
      return `${plans.length} files, file sync + folder sync each (the previous way)`;
    }, 1);
    rows.push({ name: 'baseline: the same files, one atomic write per file', ...perFile });
    const offloading = new ContextGovernor({ ...offloadOptions, workspace });
    const first = await timed(async () => {
      const result = await offloading.prepareForModel(history, { tools: BENCH_TOOLS });
      return `${result.trace.stages.flatMap((stage) => stage.decisions).length} results offloaded`;
    }, 1);
    rows.push({ name: 'ctxloom prepareForModel, offload, first run (batched writes)', ...first });
    const again = await timed(async () => {
      const result = await offloading.prepareForModel(history, { tools: BENCH_TOOLS });
      return result.messages === (await offloading.prepareForModel(history, { tools: BENCH_TOOLS })).messages
        ? 'same array again'
        : 'same objects, no file access';
    });
    rows.push({ name: 'ctxloom prepareForModel, offload, warm governor (x2 per sample)', ...again });
    const fresh = await timed(async () => {
      const governor = new ContextGovernor({ ...offloadOptions, workspace });
      await governor.prepareForModel(history, { tools: BENCH_TOOLS });
      return 'new governor: files found by size, none written';
    });
    rows.push({ name: 'ctxloom prepareForModel, offload, new governor, files exist', ...fresh });
    ratios.push(
      `offload first run / dry run: x${(first.ms / dry.ms).toFixed(2)}; per-file writes / batched first run: x${(perFile.ms / first.ms).toFixed(2)}`,
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }

  const prune = await timed(async () => {
    const pruned = pruneMessages({
      messages: aiSdkHistory as ModelMessage[],
      reasoning: 'before-last-message',
      toolCalls: 'before-last-2-messages',
      emptyMessages: 'remove',
    });
    return `kept ${pruned.length}`;
  });
  rows.push({ name: "AI SDK pruneMessages (toolCalls 'before-last-2-messages')", ...prune });

  process.stdout.write(
    `history: ${MESSAGES} messages, ${totalTokens.toLocaleString('en-US')} tokens (simple counter, cached), median of ${RUNS} runs\n\n`,
  );
  const width = Math.max(...rows.map((row) => row.name.length));
  for (const row of rows) {
    process.stdout.write(
      `${row.name.padEnd(width)}  ${row.ms.toFixed(2).padStart(9)} ms  ${`x${(row.ms / prune.ms).toFixed(2)} vs pruneMessages`.padStart(24)}  ${row.note}\n`,
    );
  }
  for (const line of ratios) process.stdout.write(`${line}\n`);
}

async function timed(work: () => Promise<string>, runs = RUNS): Promise<{ ms: number; note: string }> {
  const samples: { ms: number; note: string }[] = [];
  for (let index = 0; index < runs; index += 1) {
    const start = performance.now();
    const note = await work();
    samples.push({ ms: performance.now() - start, note });
  }
  samples.sort((a, b) => a.ms - b.ms);
  return samples[Math.floor(samples.length / 2)] as { ms: number; note: string }; // runs ≥ 1
}

/** The same history with the damage stored sessions carry: orphans, lost results, placeholders, null names. */
function corrupt(history: readonly Message[]): readonly Message[] {
  const out: Message[] = [];
  history.forEach((message, index) => {
    if (index % 997 === 0 && message.role === 'tool') return; // a lost result
    out.push(message);
    if (index % 1009 === 0)
      out.push({ id: `orphan-${index}`, role: 'tool', content: 'stray', toolCallId: `gone-${index}` });
    if (index % 1013 === 0)
      out.push({
        id: `placeholder-${index}`,
        role: 'assistant',
        content: '[Previous assistant message omitted.]',
      });
  });
  return out;
}
