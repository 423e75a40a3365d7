import { mkdir, mkdtemp, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settle } from '../../test/helpers/settle.js';
import { ContextError } from '../core/errors.js';
import { WorkspaceFileCache } from '../workspace/file-cache.js';
import { BootstrapFilesProvider } from './bootstrap-files-provider.js';
import { testBuildContext } from './test-context.js';

let root: string;
let workspace: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ctxloom-bootstrap-'));
  workspace = path.join(root, 'ws');
  await mkdir(workspace);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('BootstrapFilesProvider', () => {
  it('embeds the files in order as one system message with ## headings', async () => {
    await writeFile(path.join(workspace, 'AGENTS.md'), 'Run the tests.\n');
    await writeFile(path.join(workspace, 'USER.md'), 'Name: Ada');
    const provider = new BootstrapFilesProvider({ workspace });
    const { messages } = await provider.getMessages({}, testBuildContext());
    expect(messages).toEqual([
      {
        id: 'p-1',
        role: 'system',
        content: '## AGENTS.md\n\nRun the tests.\n\n\n## USER.md\n\nName: Ada',
        metadata: {
          files: ['AGENTS.md', 'USER.md'],
          truncated: [],
          skipped: [
            { file: 'SOUL.md', reason: 'missing' },
            { file: 'TOOLS.md', reason: 'missing' },
          ],
        },
      },
    ]);
  });

  it('skips blank files and records them', async () => {
    await writeFile(path.join(workspace, 'A.md'), ' \n\t\n');
    await writeFile(path.join(workspace, 'B.md'), 'b');
    const provider = new BootstrapFilesProvider({ workspace, files: ['A.md', 'B.md'] });
    const {
      messages: [message],
    } = await provider.getMessages({}, testBuildContext());
    expect(message?.content).toBe('## B.md\n\nb');
    expect(message?.metadata?.['skipped']).toEqual([{ file: 'A.md', reason: 'blank' }]);
  });

  it('contributes nothing when every file is missing or there is no workspace', async () => {
    const missing = await new BootstrapFilesProvider({ workspace }).getMessages({}, testBuildContext());
    expect(missing.messages).toEqual([]);
    expect(missing.decisions.map((decision) => decision.details?.['cause'])).toEqual([
      'missing',
      'missing',
      'missing',
      'missing',
    ]);
    expect(await new BootstrapFilesProvider().getMessages({}, testBuildContext())).toEqual({
      messages: [],
      decisions: [],
    });
  });

  it('caps a long file with a visible marker naming the sizes', async () => {
    await writeFile(path.join(workspace, 'AGENTS.md'), 'x'.repeat(48_213));
    const provider = new BootstrapFilesProvider({ workspace, files: ['AGENTS.md'] });
    const {
      messages: [message],
    } = await provider.getMessages({}, testBuildContext());
    const content = String(message?.content);
    expect(content).toBe(
      `## AGENTS.md\n\n${'x'.repeat(20_000)}\n\n[... truncated: AGENTS.md is 48,213 chars; showing the first 20,000]`,
    );
    expect(message?.metadata?.['truncated']).toEqual(['AGENTS.md']);
    const { decisions } = await provider.getMessages({}, testBuildContext());
    expect(decisions.map((decision) => decision.type)).toEqual(['message-truncate']);
  });

  it('honours a custom maxFileChars and rejects a bad one', async () => {
    await writeFile(path.join(workspace, 'AGENTS.md'), 'abcdef');
    const provider = new BootstrapFilesProvider({ workspace, files: ['AGENTS.md'], maxFileChars: 3 });
    const {
      messages: [message],
    } = await provider.getMessages({}, testBuildContext());
    expect(message?.content).toBe(
      '## AGENTS.md\n\nabc\n\n[... truncated: AGENTS.md is 6 chars; showing the first 3]',
    );
    expect(() => new BootstrapFilesProvider({ maxFileChars: 0 })).toThrow(/positive integer/);
  });

  it('refuses file names that leave the workspace', () => {
    for (const file of ['../secret.md', '/etc/passwd', 'a/../../b.md', '']) {
      expect(() => new BootstrapFilesProvider({ workspace, files: [file] }), file).toThrow(ContextError);
    }
  });

  it('reads a file whose name merely starts with two dots', async () => {
    await writeFile(path.join(workspace, '..notes.md'), 'dots');
    const provider = new BootstrapFilesProvider({ workspace, files: ['..notes.md'] });
    const {
      messages: [message],
    } = await provider.getMessages({}, testBuildContext());
    expect(message?.content).toBe('## ..notes.md\n\ndots');
  });

  it('skips a symbolic link that points outside the workspace', async () => {
    await writeFile(path.join(root, 'secret.md'), 'do not leak');
    await symlink(path.join(root, 'secret.md'), path.join(workspace, 'AGENTS.md'));
    await writeFile(path.join(workspace, 'SOUL.md'), 'calm');
    const {
      messages: [message],
      decisions,
    } = await new BootstrapFilesProvider({ workspace }).getMessages({}, testBuildContext());
    expect(message?.content).toBe('## SOUL.md\n\ncalm');
    expect(message?.metadata?.['skipped']).toContainEqual({ file: 'AGENTS.md', reason: 'outside-workspace' });
    expect(decisions).toContainEqual(
      expect.objectContaining({
        type: 'section-skip',
        details: { file: 'AGENTS.md', cause: 'outside-workspace' },
      }),
    );
  });

  it('follows a symbolic link that stays inside the workspace', async () => {
    await mkdir(path.join(workspace, 'docs'));
    await writeFile(path.join(workspace, 'docs', 'agents.md'), 'inside');
    await symlink(path.join(workspace, 'docs', 'agents.md'), path.join(workspace, 'AGENTS.md'));
    const provider = new BootstrapFilesProvider({ workspace, files: ['AGENTS.md'] });
    const {
      messages: [message],
    } = await provider.getMessages({}, testBuildContext());
    expect(message?.content).toBe('## AGENTS.md\n\ninside');
  });

  it('refuses on the next build a plain file replaced by a link outside, and a subfolder that is one', async () => {
    await writeFile(path.join(root, 'secret.md'), 'do not leak');
    await mkdir(path.join(root, 'elsewhere'));
    await writeFile(path.join(root, 'elsewhere', 'USER.md'), 'not yours');
    await symlink(path.join(root, 'elsewhere'), path.join(workspace, 'docs'));
    const agents = path.join(workspace, 'AGENTS.md');
    await writeFile(agents, 'plain');
    const provider = new BootstrapFilesProvider({ workspace, files: ['AGENTS.md', 'docs/USER.md'] });
    const first = await provider.getMessages({}, testBuildContext());
    expect(first.messages[0]?.content).toBe('## AGENTS.md\n\nplain');
    expect(first.messages[0]?.metadata?.['skipped']).toEqual([
      { file: 'docs/USER.md', reason: 'outside-workspace' },
    ]);
    await rm(agents);
    await symlink(path.join(root, 'secret.md'), agents);
    const second = await provider.getMessages({}, testBuildContext());
    expect(second.messages).toEqual([]);
    expect(second.decisions.map((decision) => decision.details)).toEqual([
      { file: 'AGENTS.md', cause: 'outside-workspace' },
      { file: 'docs/USER.md', cause: 'outside-workspace' },
    ]);
  });

  it('is off when runtimePrompt.includeBootstrapFiles is false and reads workspaceDir otherwise', async () => {
    await writeFile(path.join(workspace, 'AGENTS.md'), 'hi');
    const provider = new BootstrapFilesProvider({ files: ['AGENTS.md'] });
    const off = await provider.getMessages(
      { runtimePrompt: { workspaceDir: workspace, includeBootstrapFiles: false } },
      testBuildContext(),
    );
    expect(off.messages).toEqual([]);
    const on = await provider.getMessages({ runtimePrompt: { workspaceDir: workspace } }, testBuildContext());
    expect(on.messages[0]?.content).toBe('## AGENTS.md\n\nhi');
  });

  it('does not re-read unchanged files on the next build, and re-reads a changed one', async () => {
    const file = path.join(workspace, 'AGENTS.md');
    await writeFile(file, 'v1');
    await settle();
    const fileCache = new WorkspaceFileCache({ settleMs: 0 });
    const provider = new BootstrapFilesProvider({ workspace, files: ['AGENTS.md'], fileCache });
    await provider.getMessages({}, testBuildContext());
    await provider.getMessages({}, testBuildContext());
    expect({ hits: fileCache.hits, misses: fileCache.misses }).toEqual({ hits: 1, misses: 1 });
    await writeFile(file, 'v2 longer');
    await utimes(file, new Date(2030, 0, 1), new Date(2030, 0, 1));
    const {
      messages: [message],
    } = await provider.getMessages({}, testBuildContext());
    expect(message?.content).toBe('## AGENTS.md\n\nv2 longer');
    expect(fileCache.misses).toBe(2);
  });

  describe('in a workspace that has settled (its last change older than 2 s)', () => {
    beforeEach(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20)); // the next change falls in a later tick
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 10_000);
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('sees a file created or renamed into the workspace on the next build', async () => {
      const provider = new BootstrapFilesProvider({ workspace });
      const contentOf = async () => (await provider.getMessages({}, testBuildContext())).messages[0]?.content;
      expect(await contentOf()).toBeUndefined();
      expect(await contentOf()).toBeUndefined(); // the build that finds every file known missing
      await writeFile(path.join(workspace, 'SOUL.md'), 'soul');
      expect(await contentOf()).toBe('## SOUL.md\n\nsoul');
      await writeFile(path.join(root, 'agents.tmp'), 'agents');
      await rename(path.join(root, 'agents.tmp'), path.join(workspace, 'AGENTS.md'));
      expect(await contentOf()).toBe('## AGENTS.md\n\nagents\n\n## SOUL.md\n\nsoul');
    });

    it('sees the target of a dangling link appear in another folder', async () => {
      await mkdir(path.join(workspace, 'real'));
      await symlink(path.join(workspace, 'real', 'AGENTS.md'), path.join(workspace, 'AGENTS.md'));
      const provider = new BootstrapFilesProvider({ workspace, files: ['AGENTS.md'] });
      const first = await provider.getMessages({}, testBuildContext());
      expect(first.decisions[0]?.details).toEqual({ file: 'AGENTS.md', cause: 'missing' });
      await provider.getMessages({}, testBuildContext());
      await writeFile(path.join(workspace, 'real', 'AGENTS.md'), 'through the link');
      const { messages } = await provider.getMessages({}, testBuildContext());
      expect(messages[0]?.content).toBe('## AGENTS.md\n\nthrough the link');
    });
  });

  it('throws ABORTED when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      new BootstrapFilesProvider({ workspace }).getMessages({}, testBuildContext(controller.signal)),
    ).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
