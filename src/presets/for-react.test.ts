import { describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS } from '../config/prompt-defaults.js';
import { ContextBuilder } from './context-builder.js';

describe('ContextBuilder.forReact', () => {
  it('is persona, ReAct protocol, tools description, history', async () => {
    const builder = ContextBuilder.forReact({ toolsDesc: '- read_file: read a file', maxInputTokens: 5000 });
    expect(builder.providers.map((provider) => provider.id)).toEqual([
      'persona',
      'react-protocol',
      'tools-desc',
      'history',
      'current-message',
    ]);
    expect(builder.filters.map((filter) => filter.id)).toEqual([
      'sanitize-tool-calls',
      'token-budget',
      'budget-guard',
    ]);
    const { messages } = await builder.build({ current: 'hi' });
    expect(messages.map((message) => message.content)).toEqual([
      DEFAULT_PROMPTS.personaDefaultPrompt,
      DEFAULT_PROMPTS.reactProtocolPrompt,
      'Available tools:\n- read_file: read a file',
      'hi',
    ]);
    expect(String(messages[1]?.content)).toContain('Final Answer:');
  });

  it('renders the tools block from the input tools with the configured template, or leaves it out', async () => {
    const builder = ContextBuilder.forReact({
      prompts: { toolsTemplate: 'Tools you may call:\n{tools_desc}' },
    });
    const withTools = await builder.build({ tools: [{ name: 'grep', description: 'Search files.' }] });
    expect(withTools.messages[2]?.content).toBe('Tools you may call:\n- grep: Search files.');
    const without = await builder.build({});
    expect(without.messages.map((message) => message.metadata?.['section'])).toEqual([
      'persona',
      'react-protocol',
    ]);
  });

  it('drops the tools block when includeToolsDesc is false and uses a configured protocol text', async () => {
    const builder = ContextBuilder.forReact({
      includeToolsDesc: false,
      prompts: { reactProtocolPrompt: 'Think, act.' },
    });
    expect(builder.providers.map((provider) => provider.id)).toEqual([
      'persona',
      'react-protocol',
      'history',
      'current-message',
    ]);
    expect((await builder.build({})).messages[1]?.content).toBe('Think, act.');
  });

  it('ignores the skill fields', () => {
    const builder = ContextBuilder.forReact({
      runtimePrompt: { includeSkillsSummary: true, skillsDir: '/skills' },
    });
    expect(builder.providers.map((provider) => provider.id)).toEqual([
      'persona',
      'react-protocol',
      'tools-desc',
      'history',
      'current-message',
    ]);
  });
});
