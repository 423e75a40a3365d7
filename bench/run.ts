/**
 * Runs every `bench/*.bench.ts` file in name order: each exports `run(): Promise<void>` and prints
 * its own table. `npm run bench -- token-budget` runs only the files whose name contains an argument;
 * `--sizes 1k,10k` limits the history sizes of the context-build benchmark (default 1k,10k,100k).
 * Benchmarks are measurements, not timed tests: nothing here fails on a slow machine.
 */
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type BenchModule = { readonly run?: () => Promise<void> };

const folder = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const sizesAt = args.indexOf('--sizes');
if (sizesAt !== -1) {
  process.env['CTXLOOM_BENCH_SIZES'] = args[sizesAt + 1] ?? '';
  args.splice(sizesAt, 2);
}
const filters = args;
const files = (await readdir(folder))
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

process.stdout.write(`ctxloom benchmarks: node ${process.version}, ${files.length} file(s)\n`);
let failures = 0;
for (const file of files) {
  process.stdout.write(`\n=== ${file} ===\n`);
  const module: BenchModule = await import(pathToFileURL(join(folder, file)).href);
  if (typeof module.run !== 'function') {
    process.stderr.write(`${file} exports no run() function; skipped\n`);
    failures += 1;
    continue;
  }
  try {
    await module.run();
  } catch (error) {
    failures += 1;
    process.stderr.write(
      `${file} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
}
process.exitCode = failures === 0 ? 0 : 1;
