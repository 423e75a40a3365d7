import { describe, expect, it } from 'vitest';
import { testBuildContext } from './test-context.js';
import { ToolsDescProvider } from './tools-desc-provider.js';

describe('ToolsDescProvider', () => {
  it('renders the pre-formatted description through the default template', () => {
    const messages = new ToolsDescProvider().getMessages(
      { toolsDescription: '- read_file: read a file' },
      testBuildContext(),
    );
    expect(messages).toEqual([
      { id: 'p-1', role: 'system', content: 'Available tools:\n- read_file: read a file' },
    ]);
  });

  it('renders tool names and descriptions when no description is given', () => {
    const [message] = new ToolsDescProvider().getMessages(
      { tools: [{ name: 'read_file', description: 'Read a file.' }, { name: 'list_dir' }] },
      testBuildContext(),
    );
    expect(message?.content).toBe('Available tools:\n- read_file: Read a file.\n- list_dir');
  });

  it('prefers toolsDescription over the tool definitions', () => {
    const [message] = new ToolsDescProvider().getMessages(
      { toolsDescription: 'custom', tools: [{ name: 'x' }] },
      testBuildContext(),
    );
    expect(message?.content).toBe('Available tools:\ncustom');
  });

  it('contributes nothing when there are no tools', () => {
    expect(new ToolsDescProvider().getMessages({}, testBuildContext())).toEqual([]);
    expect(new ToolsDescProvider().getMessages({ toolsDescription: ' ' }, testBuildContext())).toEqual([]);
  });

  it('uses an overridden template and replaces every placeholder literally', () => {
    const provider = new ToolsDescProvider({ template: 'Tools ({tools_desc}) again: {tools_desc}' });
    const [message] = provider.getMessages({ toolsDescription: 'a $& b' }, testBuildContext());
    expect(message?.content).toBe('Tools (a $& b) again: a $& b');
  });

  it('rejects a template without the placeholder', () => {
    expect(() => new ToolsDescProvider({ template: 'Tools:' })).toThrow(/no \{tools_desc\} placeholder/);
  });
});

describe('ToolsDescProvider toolsDescription option', () => {
  it('is used when the input has no description, and the input wins otherwise', () => {
    const provider = new ToolsDescProvider({ toolsDescription: '- grep: search' });
    expect(provider.getMessages({ tools: [{ name: 'x' }] }, testBuildContext())[0]?.content).toBe(
      'Available tools:\n- grep: search',
    );
    expect(provider.getMessages({ toolsDescription: 'mine' }, testBuildContext())[0]?.content).toBe(
      'Available tools:\nmine',
    );
  });
});
