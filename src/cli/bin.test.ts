import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const isBuilt = existsSync(bin);

describe('the built ctxloom bin', () => {
  it.skipIf(!isBuilt)(
    'builds the example workspace (skipped when dist/cli/bin.js is missing: run npm run build first)',
    async () => {
      const { stdout, stderr } = await run(
        process.execPath,
        [bin, 'build', '--workspace', 'examples/workspace', 'What should I work on next?'],
        { cwd: root },
      );
      expect(stderr).toBe('');
      expect(stdout).toContain('"content": "What should I work on next?"');
      expect(stdout).toMatch(/\nsection +messages +tokens +percent\n/);
      expect(stdout).toMatch(/\nbootstrap-files +1 +[\d,]+ +\d+\.\d%\n/);
      expect(stdout).toMatch(/\ntotal +\d+ +[\d,]+ +100\.0%\ncounter: /);
    },
  );

  it.skipIf(!isBuilt)('exits with code 2 and a clear message for a missing workspace', async () => {
    const failure = await run(process.execPath, [bin, 'build', '--workspace', 'no-such-dir', 'hi'], {
      cwd: root,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^NOT_FOUND: Workspace .*no-such-dir/),
    });
  });
});
