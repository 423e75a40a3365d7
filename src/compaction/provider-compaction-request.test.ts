import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { anthropicCompactNow } from './anthropic-compact-now.js';
import { anthropicContextManagement } from './anthropic-context-management.js';
import { openaiContextManagement } from './openai-context-management.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return ContextError.isInstance(error) ? error.code : 'not a ContextError';
  }
  return undefined;
}

describe('anthropicContextManagement', () => {
  it('builds the edits with their betas, Anthropic defaults left to the server', () => {
    expect(anthropicContextManagement({ compact: true })).toEqual({
      context_management: { edits: [{ type: 'compact_20260112' }] },
      betas: ['compact-2026-01-12'],
    });
    expect(
      anthropicContextManagement({
        compact: { triggerTokens: 120_000, instructions: 'Keep paths.', pauseAfterCompaction: true },
        clearToolUses: {
          triggerToolUses: 30,
          keep: 5,
          clearAtLeast: 2000,
          excludeTools: ['todo'],
          clearToolInputs: ['bash'],
        },
      }),
    ).toEqual({
      context_management: {
        edits: [
          {
            type: 'clear_tool_uses_20250919',
            trigger: { type: 'tool_uses', value: 30 },
            keep: { type: 'tool_uses', value: 5 },
            clear_at_least: { type: 'input_tokens', value: 2000 },
            exclude_tools: ['todo'],
            clear_tool_inputs: ['bash'],
          },
          {
            type: 'compact_20260112',
            trigger: { type: 'input_tokens', value: 120_000 },
            instructions: 'Keep paths.',
            pause_after_compaction: true,
          },
        ],
      },
      betas: ['context-management-2025-06-27', 'compact-2026-01-12'],
    });
  });

  it('refuses a trigger under 50,000 tokens (reported, never clamped), no edit, bad counts and unknown keys', () => {
    expect(codeOf(() => anthropicContextManagement({ compact: { triggerTokens: 40_000 } }))).toBe(
      'INVALID_OPTIONS',
    );
    expect(codeOf(() => anthropicContextManagement({}))).toBe('INVALID_OPTIONS');
    expect(codeOf(() => anthropicContextManagement({ clearToolUses: { keep: -1 } }))).toBe('INVALID_OPTIONS');
    expect(
      codeOf(() => anthropicContextManagement({ clearToolUses: { triggerTokens: 1, triggerToolUses: 1 } })),
    ).toBe('INVALID_OPTIONS');
    expect(codeOf(() => anthropicContextManagement({ compact: { trigger: 60_000 } } as never))).toBe(
      'INVALID_OPTIONS',
    );
  });
});

describe('anthropicCompactNow and openaiContextManagement', () => {
  it('build the on-demand request and the Responses context_management entry', () => {
    expect(anthropicCompactNow()).toEqual({
      compaction: { type: 'summarize' },
      betas: ['compact-2026-09-04'],
    });
    expect(anthropicCompactNow({ instructions: '  ' })).toEqual({
      compaction: { type: 'summarize' },
      betas: ['compact-2026-09-04'],
    });
    expect(anthropicCompactNow({ instructions: 'Keep ids.' }).compaction).toEqual({
      type: 'summarize',
      instructions: 'Keep ids.',
    });
    expect(openaiContextManagement()).toEqual({ context_management: [{ type: 'compaction' }] });
    expect(openaiContextManagement({ compactThreshold: 200_000 })).toEqual({
      context_management: [{ type: 'compaction', compact_threshold: 200_000 }],
    });
    expect(codeOf(() => openaiContextManagement({ compactThreshold: 0 }))).toBe('INVALID_OPTIONS');
    expect(codeOf(() => anthropicCompactNow({ prompt: 'x' } as never))).toBe('INVALID_OPTIONS');
  });
});
