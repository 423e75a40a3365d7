import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * Finds import cycles in src/: between files (a module that needs itself to load), and between the
 * folders (the layers of docs/architecture.md), where a cycle means some import goes up a layer.
 */

const SRC = path.resolve(import.meta.dirname, '../../src');
/** `import … from './x.js'`, `export … from '../y.js'` and `import('./z.js')`, type-only ones included. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** Each library file's relative imports, resolved to files (`.js` specifiers name `.ts` sources). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((match) =>
      path.resolve(path.dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts')),
    );
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle found by a depth-first search, each as the files on it (relative to src/). */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      const seen = state.get(next);
      if (seen === 'open')
        cycles.push(stack.slice(stack.indexOf(next)).map((entry) => path.relative(SRC, entry)));
      else if (seen === undefined) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

/** The folder-to-folder graph (the layers): the root `index.ts`, the public API, is left out. */
function layerGraph(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const folderOf = (file: string): string | undefined => {
    const relative = path.relative(SRC, file);
    return relative.includes(path.sep) ? path.join(SRC, relative.split(path.sep)[0] ?? '') : undefined;
  };
  const layers = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (from === undefined) continue;
    const next = layers.get(from) ?? [];
    for (const target of targets) {
      const to = folderOf(target);
      if (to !== undefined && to !== from && !next.includes(to)) next.push(to);
    }
    layers.set(from, next);
  }
  return layers;
}

describe('src/ imports', () => {
  const graph = importGraph();

  it('form no cycle', () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it('go down the layers only: no two folders import each other, directly or through others', () => {
    expect(findCycles(layerGraph(graph))).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself)', () => {
    const a = path.join(SRC, 'a.ts');
    const b = path.join(SRC, 'b.ts');
    expect(
      findCycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']]);
  });
});
