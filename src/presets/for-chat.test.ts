import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toAnthropicMessages } from '../adapters/to-anthropic-messages.js';
import { DEFAULT_PROMPTS } from '../config/prompt-defaults.js';
import { assistant, tool, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { createStaticSkillEnvironment } from '../skills/skill-environment.js';
import { ContextBuilder } from './context-builder.js';

let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-chat-'));
  await writeFile(path.join(workspace, 'AGENTS.md'), 'Always run the tests.');
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const history = [
  user('u1', { id: 'u1' }),
  assistant('a1', { id: 'a1' }),
  user('u2', { id: 'u2' }),
  assistant('', { id: 'a2', toolCalls: [{ id: 'c1', name: 'ls', arguments: {} }] }),
  tool('x', { id: 't1', toolCallId: 'c1' }),
  assistant('a3', { id: 'a3' }),
];

describe('ContextBuilder.forChat', () => {
  it('is persona then history, with only the tool-call repair by default', async () => {
    const builder = ContextBuilder.forChat({ generateId: createSequentialIdGenerator('g') });
    expect(builder.providers.map((provider) => provider.id)).toEqual([
      'persona',
      'history',
      'current-message',
    ]);
    expect(builder.filters.map((filter) => filter.id)).toEqual(['sanitize-tool-calls']);
    const { messages } = await builder.build({ history, current: 'next?' });
    expect(messages[0]).toEqual({
      id: 'g-1',
      role: 'system',
      content: DEFAULT_PROMPTS.personaDefaultPrompt,
      metadata: { section: 'persona' },
    });
    expect(messages.slice(1, -1).map((message) => message.id)).toEqual(history.map((message) => message.id));
    expect(messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'next?',
      metadata: { section: 'current-message' },
    });
  });

  it('uses systemPrompt over the configured persona, and the configured persona over the default', async () => {
    const custom = await ContextBuilder.forChat({
      systemPrompt: 'Be terse.',
      prompts: { personaDefaultPrompt: 'P' },
    }).build();
    expect(custom.messages[0]?.content).toBe('Be terse.');
    const configured = await ContextBuilder.forChat({
      prompts: { personaDefaultPrompt: 'You are Loom.' },
    }).build();
    expect(configured.messages[0]?.content).toBe('You are Loom.');
  });

  it('adds MaxMessages then TokenBudget when asked, and applies them', async () => {
    const builder = ContextBuilder.forChat({ maxMessages: 3, maxInputTokens: 10_000 });
    expect(builder.filters.map((filter) => filter.id)).toEqual([
      'sanitize-tool-calls',
      'max-messages',
      'token-budget',
      'budget-guard',
    ]);
    const { messages, trace } = await builder.build({ history });
    expect(messages.map((message) => message.id).slice(1)).toEqual(['a2', 't1', 'a3']);
    expect(trace.stages.map((stage) => stage.id)).toEqual([
      'persona',
      'history',
      'current-message',
      'sanitize-tool-calls',
      'max-messages',
      'token-budget',
      'budget-guard',
    ]);
  });

  it('puts SanitizeToolCalls first when asked, removing a broken historical transaction', async () => {
    const builder = ContextBuilder.forChat({ sanitizeToolCalls: true, maxMessages: 50 });
    expect(builder.filters.map((filter) => filter.id)).toEqual(['sanitize-tool-calls', 'max-messages']);
    const broken = [
      user('u0', { id: 'u0' }),
      assistant('', { id: 'a0', toolCalls: [{ id: 'lost', name: 'ls', arguments: {} }] }),
      ...history,
    ];
    const { messages, trace } = await builder.build({ history: broken });
    expect(messages.map((message) => message.id)).not.toContain('a0');
    expect(validateToolCallIntegrity(messages)).toEqual([]);
    expect(
      trace.stages.find((stage) => stage.id === 'sanitize-tool-calls')?.decisions.length,
    ).toBeGreaterThan(0);
  });

  it('adds the bootstrap files only when includeBootstrapFiles is true and a workspace is known', async () => {
    const off = ContextBuilder.forChat({ workspace });
    expect(off.providers.map((provider) => provider.id)).toEqual(['persona', 'history', 'current-message']);
    const viaDir = ContextBuilder.forChat({
      runtimePrompt: { includeBootstrapFiles: true, workspaceDir: workspace },
    });
    const on = ContextBuilder.forChat({ workspace, runtimePrompt: { includeBootstrapFiles: true } });
    for (const builder of [viaDir, on]) {
      expect(builder.providers.map((provider) => provider.id)).toEqual([
        'persona',
        'bootstrap-files',
        'history',
        'current-message',
      ]);
      const { messages } = await builder.build({});
      expect(messages[1]?.content).toBe('## AGENTS.md\n\nAlways run the tests.');
    }
  });

  it('reads the bootstrap file list from the prompts', async () => {
    await writeFile(path.join(workspace, 'NOTES.md'), 'notes');
    const builder = ContextBuilder.forChat({
      workspace,
      runtimePrompt: { includeBootstrapFiles: true },
      prompts: { bootstrapFiles: ['NOTES.md'] },
    });
    const { messages } = await builder.build({});
    expect(messages[1]?.content).toBe('## NOTES.md\n\nnotes');
  });

  it('ignores the skill fields of the runtime prompt', async () => {
    const withSkills = {
      runtimePrompt: {
        skillsDir: workspace,
        includeSkillsSummary: true,
        includeActiveSkills: true,
        skillsCatalog: {},
      },
    };
    const builder = ContextBuilder.forChat(withSkills);
    expect(builder.providers.map((provider) => provider.id)).toEqual([
      'persona',
      'history',
      'current-message',
    ]);
    const plain = await ContextBuilder.forChat({ generateId: createSequentialIdGenerator('s') }).build({
      history,
    });
    const skilled = await ContextBuilder.forChat({
      ...withSkills,
      generateId: createSequentialIdGenerator('s'),
    }).build({
      history,
      runtimePrompt: withSkills.runtimePrompt,
    });
    expect(skilled.messages).toEqual(plain.messages);
  });

  it('rejects the skill preset options (forSkill or resolveForLlm take them)', () => {
    expect(() => ContextBuilder.forChat({ skillSet: [], allowSkillContext: true } as never)).toThrow(
      /Unknown option skillSet in ContextBuilder\.forChat options\. Unknown option allowSkillContext/,
    );
  });

  it('annotates the history when annotateHistory is set, with the configured semantics text', async () => {
    const builder = ContextBuilder.forChat({
      annotateHistory: true,
      prompts: { historySemanticsPrompt: 'Semantics!' },
    });
    const { messages } = await builder.build({ history });
    expect(messages[1]).toMatchObject({ role: 'system', content: 'Semantics!' });
    expect(messages.find((message) => message.id === 'a2')?.metadata?.['semanticKind']).toBe(
      'self_tool_plan',
    );
  });

  it('repairs tool-call integrity of the history by default: an orphan result never reaches the request', async () => {
    const orphaned = [
      user('u1', { id: 'u1' }),
      tool('stray', { id: 'stray', toolCallId: 'gone' }),
      assistant('a1', { id: 'a1' }),
    ];
    const { messages, trace } = await ContextBuilder.forChat().build({ history: orphaned, current: 'next' });
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(validateToolCallIntegrity(messages)).toEqual([]);
    expect(trace.stages.flatMap((stage) => stage.decisions)).toContainEqual(
      expect.objectContaining({ type: 'message-drop', messageIds: ['stray'] }),
    );
    const anthropic = toAnthropicMessages(messages);
    expect(JSON.stringify(anthropic)).not.toContain('tool_result');
    const kept = await ContextBuilder.forChat({ sanitizeToolCalls: false }).build({
      history: orphaned,
      current: 'next',
    });
    expect(kept.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'tool',
      'assistant',
      'user',
    ]);
  });

  it('repairs by default in forReact and forSkill too', async () => {
    const orphaned = [user('u1', { id: 'u1' }), tool('stray', { id: 'stray', toolCallId: 'gone' })];
    for (const builder of [
      ContextBuilder.forReact(),
      ContextBuilder.forSkill({ cwd: workspace, environment: createStaticSkillEnvironment({}) }),
    ]) {
      const { messages } = await builder.build({ history: orphaned, current: 'next' });
      expect(messages.map((message) => message.id)).not.toContain('stray');
      expect(validateToolCallIntegrity(messages)).toEqual([]);
    }
  });
});
