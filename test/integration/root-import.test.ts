import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

/** The packages (under node_modules) that a fresh process loads for `source`. */
async function packagesLoadedBy(source: string): Promise<readonly string[]> {
  const hooks = pathToFileURL(path.join(root, 'test/helpers/module-loads.mjs')).href;
  const { stderr } = await run(
    process.execPath,
    ['--import', 'tsx', '--import', hooks, '--input-type=module', '-e', source],
    { cwd: root },
  );
  const packages = new Set<string>();
  for (const line of stderr.split('\n')) {
    const match = /node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/.exec(line);
    if (match?.[1] !== undefined && /^(resolved|required) /.test(line)) packages.add(match[1]);
  }
  return [...packages].sort();
}

describe("import 'ctxloom'", () => {
  it('loads no package until a feature needs it (yaml only when a SKILL.md is parsed)', async () => {
    const index = pathToFileURL(path.join(root, 'src/index.ts')).href;
    const loaded = await packagesLoadedBy(`await import(${JSON.stringify(index)});`);
    // tsx itself (the test's TypeScript loader) and its own dependencies are not ctxloom's.
    expect(loaded.filter((name) => !/^(tsx|esbuild|get-tsconfig|resolve-pkg-maps)$/.test(name))).toEqual([]);

    const skills = pathToFileURL(path.join(root, 'src/skills/parse-skill-file.ts')).href;
    const parsed = await packagesLoadedBy(
      `const { parseSkillFile } = await import(${JSON.stringify(skills)}); parseSkillFile('---\\nname: x\\ndescription: y\\n---\\nbody');`,
    );
    expect(parsed).toContain('yaml');
  }, 30_000);
});
