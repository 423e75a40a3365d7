import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXAMPLE_WORKSPACE } from '../../test/helpers/example-workspace.js';
import { user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import { ContextBuilder } from '../presets/context-builder.js';
import { SystemMessageMemo } from './system-message-memo.js';

describe('SystemMessageMemo', () => {
  it('gives the same message while it says the same, and a new one with a new id when it does not', () => {
    const memo = new SystemMessageMemo();
    const generateId = createSequentialIdGenerator('s');
    const first = memo.message({ content: 'Be brief.', metadata: { files: ['AGENTS.md'] } }, generateId);
    // Equal content and metadata made anew (as a provider renders them every build).
    expect(memo.message({ content: `Be ${'brief.'}`, metadata: { files: ['AGENTS.md'] } }, generateId)).toBe(
      first,
    );
    const edited = memo.message({ content: 'Be thorough.', metadata: { files: ['AGENTS.md'] } }, generateId);
    expect(edited).not.toBe(first);
    expect(edited).toMatchObject({ role: 'system', content: 'Be thorough.' });
    expect(edited.id).not.toBe(first.id);
    const moreFiles = memo.message(
      { content: 'Be thorough.', metadata: { files: ['AGENTS.md', 'SOUL.md'] } },
      generateId,
    );
    expect(moreFiles).not.toBe(edited);
  });
});

describe('an agent builder on an unchanged workspace', () => {
  let workspace = '';
  beforeEach(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-same-system-'));
    await cp(EXAMPLE_WORKSPACE, workspace, { recursive: true });
  });
  afterEach(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it('sends the same system message object turn after turn, and a new one once a file changes', async () => {
    const builder = ContextBuilder.forAgent({ workspace, channel: 'cli', skills: { builtinDir: null } });
    const history = [user('first question')];
    const first = await builder.build({ history, current: 'next?', sessionKey: 's' });
    const second = await builder.build({
      history: [...history, user('more')],
      current: 'and?',
      sessionKey: 's',
    });
    const [system] = first.messages;
    expect(system?.role).toBe('system');
    // Same object, same id: nothing was rendered, joined, tagged or counted again.
    expect(second.messages[0]).toBe(system);
    await writeFile(path.join(workspace, 'AGENTS.md'), '# Agent\n\nAnswer in French.\n');
    const third = await builder.build({ history, current: 'next?', sessionKey: 's' });
    expect(third.messages[0]).not.toBe(system);
    expect(third.messages[0]?.id).not.toBe(system?.id);
    expect(third.messages[0]?.content).toContain('Answer in French.');
  });
});
