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

  it('leaves out a missing, blank or untouched-template memory', async () => {
    for (const text of [
      '',
      '  \n',
      WORKSPACE_TEMPLATES['memory/MEMORY.md'],
      `\n${WORKSPACE_TEMPLATES['memory/MEMORY.md']}\n`,
    ]) {
      const provider = new MemoryProvider({ workspace: '/w', reader: counting(text) });
      expect(await provider.getMessages({}, testBuildContext())).toEqual([]);
    }
    const extra = new MemoryProvider({
      workspace: '/w',
      reader: counting('# Theirs'),
      extraTemplates: ['# Theirs\n'],
    });
    expect(await extra.getMessages({}, testBuildContext())).toEqual([]);
  });
});
