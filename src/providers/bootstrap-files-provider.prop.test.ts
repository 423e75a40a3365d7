import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { ContextError } from '../core/errors.js';
import { BootstrapFilesProvider } from './bootstrap-files-provider.js';
import { testBuildContext } from './test-context.js';

let root: string;
let workspace: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ctxloom-bootstrap-prop-'));
  workspace = path.join(root, 'ws');
  await mkdir(path.join(workspace, 'docs'), { recursive: true });
  await writeFile(path.join(root, 'SECRET.md'), 'TOP-SECRET-OUTSIDE');
  await writeFile(path.join(workspace, 'AGENTS.md'), 'inside agents');
  await writeFile(path.join(workspace, 'docs', 'USER.md'), 'inside user');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Hostile file names built from traversal pieces, separators, NUL, an absolute root and real names. */
const hostileName = fc
  .tuple(
    fc.array(
      fc.constantFrom(
        '..',
        '.',
        '',
        '\\',
        'docs',
        'AGENTS.md',
        'USER.md',
        'SECRET.md',
        'ws',
        '\0',
        '~',
        '<ROOT>',
      ),
      {
        minLength: 1,
        maxLength: 6,
      },
    ),
    fc.constantFrom('/', '\\', ''),
  )
  .map(([pieces, separator]) => pieces.join(separator));

describe('BootstrapFilesProvider properties', () => {
  test.prop([fc.array(hostileName, { minLength: 1, maxLength: 4 })], { numRuns: 200 })(
    'never reads a file outside the workspace, whatever the names',
    async (names) => {
      const files = names.map((name) => name.replaceAll('<ROOT>', root));
      let provider: BootstrapFilesProvider;
      try {
        provider = new BootstrapFilesProvider({ workspace, files });
      } catch (error) {
        expect(ContextError.isInstance(error) && error.code).toBe('UNSAFE_PATH');
        return;
      }
      const { messages } = await provider.getMessages({}, testBuildContext());
      for (const message of messages) expect(String(message.content)).not.toContain('TOP-SECRET-OUTSIDE');
    },
  );
});
