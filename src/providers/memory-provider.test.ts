import { describe, expect, it } from 'vitest';
import { WORKSPACE_TEMPLATES } from '../workspace/workspace-templates.js';
import { MemoryProvider } from './memory-provider.js';
import { testBuildContext } from './test-context.js';

function counting(text: string) {
  const reader = { calls: 0, read: async () => text };
  reader.read = async () => {
    reader.calls += 1;
    return text;
  };
  return reader;
}

describe('MemoryProvider', () => {
  it('inserts MEMORY.md as is under the memory headings, reading it once', async () => {
    const reader = counting('- Ana likes tea.\n');
    const messages = await new MemoryProvider({ workspace: '/w', reader }).getMessages(
      {},
      testBuildContext(),
    );
    expect(messages.map((message) => message.content)).toEqual([
      '# Memory\n\n## Long-term Memory\n- Ana likes tea.\n',
    ]);
    expect(reader.calls).toBe(1);
  });

  it('reads line ends as Python text mode does', async () => {
    const provider = new MemoryProvider({ workspace: '/w', reader: counting('- a\r\n- b\r') });
    expect((await provider.getMessages({}, testBuildContext()))[0]?.content).toBe(
      '# Memory\n\n## Long-term Memory\n- a\n- b\n',
    );
  });

  it('inserts a whitespace-only memory, as nanobot does (only an empty text is left out)', async () => {
    const provider = new MemoryProvider({ workspace: '/w', reader: counting(' \n') });
    expect((await provider.getMessages({}, testBuildContext()))[0]?.content).toBe(
      '# Memory\n\n## Long-term Memory\n \n',
    );
  });

  it('leaves out a missing or untouched-template memory', async () => {
    for (const text of [
      '',
      WORKSPACE_TEMPLATES['memory/MEMORY.md'],
      `\n${WORKSPACE_TEMPLATES['memory/MEMORY.md']}\n`,
    ]) {
      const provider = new MemoryProvider({ workspace: '/w', reader: counting(text) });
      expect(await provider.getMessages({}, testBuildContext())).toEqual([]);
    }
    const extra = new MemoryProvider({
      workspace: '/w',
      reader: counting('# Theirs\r\n'),
      extraTemplates: ['\n# Theirs\n'],
    });
    expect(await extra.getMessages({}, testBuildContext())).toEqual([]);
  });
});
