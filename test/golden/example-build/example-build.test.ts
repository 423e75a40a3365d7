import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/cli-io.js';
import { main } from '../../../src/cli/main.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');

/**
 * `ctxloom build` on the bundled example workspace as a terminal shows it: the result on stdout,
 * then the token table (and the decisions) that go to stderr. stdout alone must be the result.
 */
async function build(args: readonly string[]): Promise<string> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: {},
    cwd: repoRoot,
  };
  const code = await main(['build', '--workspace', 'examples/workspace', ...args], io);
  expect(code).toBe(0);
  expect(err).toMatch(/^preset: \w+\nsection {10}messages/);
  expect(out).not.toContain('counter:');
  return `${out}\n${err}`;
}

describe('golden: ctxloom build on examples/workspace', () => {
  it('react preset from ctxloom.yaml (annotated history, tiktoken o200k_base), text format', async () => {
    const out = await build(['--format', 'text', 'What should I work on next?']);
    await expect(out).toMatchFileSnapshot('./__golden__/react-text.txt');
  });

  it('chat preset trimmed to 6 messages, OpenAI chat format', async () => {
    const out = await build([
      '--preset',
      'chat',
      '--max-messages',
      '6',
      '--format',
      'openai',
      'What should I work on next?',
    ]);
    await expect(out).toMatchFileSnapshot('./__golden__/chat-openai.txt');
  });
});
