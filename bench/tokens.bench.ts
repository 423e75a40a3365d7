/**
 * Token counting: gpt-tokenizer 4.0.0 against ctxloom's exact o200k counter (`TiktokenTokenCounter`
 * for o200k_base), the calibrated estimator (`EstimatingTokenCounter`) and `SimpleTokenCounter`
 * (characters ÷ 4). Prints, in one run:
 * 1. throughput in MB/s (UTF-8, per CPU second) per content class on fresh generated text (best of
 *    five rounds, each on new text, after a warm-up on other text), with a bare `charCodeAt` loop as
 *    the machine's yardstick, and the exact counter's ratio to gpt-tokenizer;
 * 2. cold start (a fresh child process: import, load, first count), median of 5, wall and CPU ms;
 * 3. the estimators' mean absolute percentage error against exact o200k per class, on generated text
 *    and on real files from node_modules (READMEs, package.json, sources, TypeScript's Chinese
 *    diagnostics), when they are there;
 * 4. memory a `CachedTokenCounter` retains at 10k and 100k messages (a child with `--expose-gc`),
 *    beside a cache keyed by a copy of the text (what it did before).
 * Self-contained (generates its own text); measures, never asserts. Over 150 lines: four benchmarks
 * that share their corpus and printing.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CachedTokenCounter } from '../src/tokens/cached-token-counter.js';
import { EstimatingTokenCounter } from '../src/tokens/estimating-token-counter.js';
import { SimpleTokenCounter } from '../src/tokens/simple-token-counter.js';
import { TiktokenTokenCounter } from '../src/tokens/tiktoken-token-counter.js';
import { CORPUS_CLASSES, generateCorpusDocuments } from '../src/tokens/token-corpus.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
const CHILD_FLAG = '--tokens-bench-child';
const PLAIN = { disallowedSpecial: new Set<string>() };
const ROUNDS = 5;
const DOCUMENTS_PER_ROUND = 120;

type Counter = { readonly name: string; readonly count: (text: string) => number };

const write = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};
const bytesOf = (texts: readonly string[]): number =>
  texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
const pad = (value: string, width: number): string => value.padStart(width);

export async function run(): Promise<void> {
  const gptTokenizer = await import('gpt-tokenizer/encoding/o200k_base');
  const exact = await TiktokenTokenCounter.create({ encoding: 'o200k_base' });
  const estimator = new EstimatingTokenCounter();
  const simple = new SimpleTokenCounter();
  const counters: Counter[] = [
    { name: 'gpt-tokenizer', count: (text) => gptTokenizer.countTokens(text, PLAIN) },
    { name: 'ctxloom exact', count: (text) => exact.countText(text) },
    { name: 'estimator', count: (text) => estimator.countText(text) },
    { name: 'simple ÷4', count: (text) => simple.countText(text) },
  ];
  write(
    `node ${process.version}; the machine may be shared: compare ratios within this run, not absolute MB/s.`,
  );
  throughput(counters);
  coldStart();
  accuracy({ exact: (text) => exact.countText(text), estimators: counters.slice(2) });
  cacheMemory();
}

function throughput(counters: readonly Counter[]): void {
  write(`\n1. Throughput, MB/s of UTF-8 per CPU second on fresh generated text (best of ${ROUNDS} rounds)`);
  write(
    `${'class'.padEnd(9)}${counters.map((counter) => pad(counter.name, 15)).join('')}${pad('bare loop', 12)}${pad('exact ÷ gpt', 13)}`,
  );
  for (const counter of counters)
    for (const text of generateCorpusDocuments({ corpusClass: 'mixed', seed: 1, count: 200 }))
      counter.count(text);
  for (const corpusClass of CORPUS_CLASSES) {
    const best = counters.map(() => Number.POSITIVE_INFINITY);
    let bare = Number.POSITIVE_INFINITY;
    let megabytes = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const texts = generateCorpusDocuments({ corpusClass, seed: 100 + round, count: DOCUMENTS_PER_ROUND });
      megabytes = bytesOf(texts) / 1e6;
      counters.forEach((counter, index) => {
        best[index] = Math.min(
          best[index] as number,
          timeMs(() => {
            for (const text of texts) counter.count(text);
          }) / megabytes,
        );
      });
      bare = Math.min(bare, timeMs(() => texts.forEach(bareLoop)) / megabytes);
    }
    const rates = best.map((msPerMb) => 1000 / msPerMb);
    const ratio = (rates[1] as number) / (rates[0] as number);
    write(
      `${corpusClass.padEnd(9)}${rates.map((rate) => pad(rate.toFixed(1), 15)).join('')}${pad((1000 / bare).toFixed(0), 12)}${pad(`${ratio.toFixed(2)}×`, 13)}`,
    );
  }
}

/** CPU time of `work` in ms: less disturbed than wall time when other processes share the cores. */
function timeMs(work: () => void): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

let sink = 0;
function bareLoop(text: string): void {
  for (let index = 0; index < text.length; index += 1) sink = (sink + text.charCodeAt(index)) | 0;
}

/** Each cold case as a module script: import, then load and count once; prints its timings. */
const COLD_CASES: Readonly<Record<string, { readonly module: string; readonly use: string }>> = {
  'gpt-tokenizer': {
    module: 'gpt-tokenizer/encoding/o200k_base',
    use: 'module.countTokens(text, { disallowedSpecial: new Set() })',
  },
  'ctxloom exact': {
    module: join(ROOT, 'src/tokens/tiktoken-token-counter.ts'),
    use: "(await module.TiktokenTokenCounter.create({ encoding: 'o200k_base' })).countText(text)",
  },
  estimator: {
    module: join(ROOT, 'src/tokens/estimating-token-counter.ts'),
    use: 'new module.EstimatingTokenCounter().countText(text)',
  },
  'simple ÷4': {
    module: join(ROOT, 'src/tokens/simple-token-counter.ts'),
    use: 'new module.SimpleTokenCounter().countText(text)',
  },
};

type ColdRun = { readonly import: number; readonly load: number; readonly cpu: number };

function coldStart(): void {
  write('\n2. Cold start in a fresh process, ms (median of 5). "import" of ctxloom sources includes tsx');
  write('   compiling them; "load + count" is creating the counter (reading the vocabulary) and one count.');
  write(
    `${'counter'.padEnd(16)}${pad('import', 9)}${pad('load + count', 14)}${pad('total', 9)}${pad('cpu', 9)}`,
  );
  const rows = Object.entries(COLD_CASES).map(([name, { module, use }]) => {
    const script = [
      'const started = performance.now(); const cpu = process.cpuUsage();',
      `const module = await import(${JSON.stringify(module)}); const imported = performance.now();`,
      `const text = 'Hello, world! 你好，世界。 {"ok": true}'; ${use};`,
      'const used = process.cpuUsage(cpu);',
      'process.stdout.write(JSON.stringify({ import: imported - started, load: performance.now() - imported, cpu: (used.user + used.system) / 1000 }));',
    ].join('\n');
    const once = () => JSON.parse(evaluate(script)) as ColdRun;
    once();
    const runs = Array.from({ length: 5 }, once);
    const pick = (key: keyof ColdRun) => median(runs.map((entry) => entry[key]));
    return { name, import: pick('import'), load: pick('load'), cpu: pick('cpu') };
  });
  for (const row of rows) {
    const cells = [row.import, row.load, row.import + row.load, row.cpu].map((value, index) =>
      pad(value.toFixed(1), [9, 14, 9, 9][index] ?? 9),
    );
    write(`${row.name.padEnd(16)}${cells.join('')}`);
  }
  const [reference, exact] = rows;
  if (reference !== undefined && exact !== undefined)
    write(
      `gpt-tokenizer import + count ÷ ctxloom exact load + count: ${((reference.import + reference.load) / exact.load).toFixed(1)}×`,
    );
}

function evaluate(script: string): string {
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
}

function child(argv: readonly string[], nodeFlags: readonly string[] = []): string {
  return execFileSync(process.execPath, [...nodeFlags, '--import', 'tsx', SELF, CHILD_FLAG, ...argv], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

type Accuracy = { readonly exact: (text: string) => number; readonly estimators: readonly Counter[] };

function accuracy(options: Accuracy): void {
  write('\n3. Mean absolute percentage error against exact o200k (per document or 2,000-character chunk)');
  write(
    `${'corpus'.padEnd(42)}${pad('n', 6)}${options.estimators.map((counter) => pad(counter.name, 13)).join('')}`,
  );
  const row = (name: string, texts: readonly string[]): void => {
    if (texts.length === 0) return;
    const errors = options.estimators.map((counter) =>
      mape(texts, { exact: options.exact, estimate: counter.count }),
    );
    write(
      `${name.padEnd(42)}${pad(String(texts.length), 6)}${errors.map((error) => pad(`${error.toFixed(1)} %`, 13)).join('')}`,
    );
  };
  for (const corpusClass of CORPUS_CLASSES)
    row(`generated ${corpusClass}`, generateCorpusDocuments({ corpusClass, seed: 4_000, count: 300 }));
  for (const [name, texts] of Object.entries(realTexts())) row(`node_modules ${name}`, texts);
}

function mape(
  texts: readonly string[],
  counters: { readonly exact: (text: string) => number; readonly estimate: (text: string) => number },
): number {
  let total = 0;
  for (const text of texts) {
    const exact = counters.exact(text);
    total += Math.abs(counters.estimate(text) - exact) / exact;
  }
  return (100 * total) / texts.length;
}

/** Real text from installed packages, cut in 2,000-character chunks; deterministic (sorted paths). */
function realTexts(): Record<string, string[]> {
  const modules = join(ROOT, 'node_modules');
  const files = packageFiles(modules);
  const every = (paths: readonly string[], count: number) =>
    paths.filter((_, index) => index % Math.max(1, Math.floor(paths.length / count)) === 0).slice(0, count);
  const sets: Record<string, readonly string[]> = {
    'English (README.md)': every(
      files.filter((file) => file.endsWith('/README.md')),
      150,
    ),
    'code (.ts/.js, no grammars)': every(
      files.filter(
        (file) => /\/(src|lib|dist)\/[^/]+\.(ts|js|mjs)$/.test(file) && !/\.min\.|\/langs\//.test(file),
      ),
      150,
    ),
    'JSON (package.json)': every(
      files.filter((file) => file.endsWith('/package.json')),
      150,
    ),
    'Chinese (TS zh-cn messages)': [join(modules, 'typescript/lib/zh-cn/diagnosticMessages.generated.json')],
  };
  return Object.fromEntries(Object.entries(sets).map(([name, paths]) => [name, paths.flatMap(chunks)]));
}

function packageFiles(folder: string, depth = 0): string[] {
  if (depth > 4) return [];
  let entries: string[];
  try {
    entries = readdirSync(folder).sort();
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(folder, entry);
    if (entry === '.bin' || entry === 'node_modules') return [];
    try {
      return statSync(path).isDirectory() ? packageFiles(path, depth + 1) : [path];
    } catch {
      return [];
    }
  });
}

function chunks(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const out: string[] = [];
  for (let start = 0; start + 500 < text.length && out.length < 20; start += 2_000)
    out.push(text.slice(start, start + 2_000));
  return out;
}

function cacheMemory(): void {
  write('\n4. Memory retained by the token cache (heap after GC, cache alive minus cache dropped)');
  write(
    `${'messages'.padEnd(10)}${pad('history MB', 12)}${pad('fingerprint cache', 19)}${pad('text-keyed cache', 18)}`,
  );
  for (const messages of [10_000, 100_000]) {
    const result = JSON.parse(child(['memory', String(messages)], ['--expose-gc'])) as {
      history: number;
      fingerprint: number;
      copies: number;
    };
    write(
      `${String(messages).padEnd(10)}${pad(result.history.toFixed(0), 12)}${pad(`${result.fingerprint.toFixed(1)} MB`, 19)}${pad(`${result.copies.toFixed(1)} MB`, 18)}`,
    );
  }
}

function memoryChild(count: number): void {
  const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  const heap = () => {
    collect();
    collect();
    return process.memoryUsage().heapUsed / 1e6;
  };
  const documents = generateCorpusDocuments({
    corpusClass: 'english',
    seed: 9,
    count: 500,
    minChars: 100,
    maxChars: 3000,
  });
  const history = JSON.parse(
    JSON.stringify(
      Array.from({ length: count }, (_, index) => ({
        id: `m${index}`,
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `${index} ${documents[index % documents.length]}`,
      })),
    ),
  ) as { id: string; role: 'user' | 'assistant'; content: string }[];
  const measure = (fill: () => object): number => {
    const holder: { cache?: object } = { cache: fill() };
    const alive = heap();
    delete holder.cache;
    return alive - heap();
  };
  const simple = new SimpleTokenCounter();
  const fingerprint = measure(() => {
    const cache = new CachedTokenCounter({ counter: simple });
    cache.countMessages(history);
    return cache;
  });
  const copies = measure(() => {
    const cache = new Map<string, number>();
    for (const message of history)
      cache.set([message.role, '', '', '', '', message.content].join('\u0000'), simple.countMessage(message));
    return cache;
  });
  const historyMb = bytesOf(history.map((message) => message.content)) / 1e6;
  process.stdout.write(JSON.stringify({ history: historyMb, fingerprint, copies }));
}

if (process.argv[2] === CHILD_FLAG) memoryChild(Number(process.argv[4]));
