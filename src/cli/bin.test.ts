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
      expect(JSON.parse(stdout)).toContainEqual(
        expect.objectContaining({ content: 'What should I work on next?' }),
      );
      expect(stderr).toMatch(/\nsection +messages +tokens +percent\n/);
      expect(stderr).toMatch(/\nbootstrap-files +1 +[\d,]+ +\d+\.\d%\n/);
      expect(stderr).toMatch(/\ntotal +\d+ +[\d,]+ +100\.0%\ncounter: /);
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
      stderr: expect.stringMatching(/^NOT_FOUND: --workspace .*no-such-dir does not exist/),
    });
  });
});
