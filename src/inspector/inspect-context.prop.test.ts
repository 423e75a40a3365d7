import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { type Message, SimpleTokenCounter, type ToolDefinition } from '../index.js';
import { inspectContext } from './inspect-context.js';

const sections = [
  'identity',
  'bootstrap-files',
  'tool-contract',
  'memory',
  'skills-index',
  'history',
  'current-message',
  'x',
];
const text = fc.string({ maxLength: 300 });
const fileBlock = fc
  .tuple(fc.constantFrom('AGENTS.md', 'SOUL.md', 'USER.md', 'notes.txt'), text)
  .map(([name, body]) => `## ${name}\n\n${body}`);

/** A system message joined from parts, with `metadata.parts` either exact or (sometimes) inconsistent. */
const joinedSystem = fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.constantFrom(...sections),
        fc.oneof(
          text,
          fc.array(fileBlock).map((b) => b.join('\n\n')),
        ),
      ),
      {
        minLength: 1,
        maxLength: 6,
      },
    ),
    fc.constantFrom('\n\n---\n\n', '\n\n', ''),
    fc.boolean(),
  )
  .map(
    ([parts, separator, exact]): Message => ({
      id: 'sys',
      role: 'system',
      content: parts.map(([, body]) => body).join(separator),
      metadata: {
        section: 'system-prompt',
        parts: parts.map(([section, body]) => ({ section, chars: exact ? body.length : body.length + 3 })),
      },
    }),
  );

const plain = fc
  .tuple(
    fc.constantFrom('system', 'user', 'assistant', 'tool'),
    fc.option(fc.constantFrom(...sections)),
    text,
    fc.nat(99),
  )
  .map(
    ([role, section, content, index]): Message => ({
      id: `m${index}`,
      role,
      content,
      ...(role === 'tool' ? { toolCallId: 'call_1', name: 'read_file' } : {}),
      ...(section === null ? {} : { metadata: { section } }),
    }),
  );

const tools = fc.array(fc.record({ name: fc.string({ minLength: 1, maxLength: 20 }), description: text }), {
  maxLength: 4,
}) satisfies fc.Arbitrary<ToolDefinition[]>;

describe('inspectContext', () => {
  test.prop([
    fc.array(fc.oneof(joinedSystem, plain), { maxLength: 12 }),
    tools,
    fc.integer({ min: 1, max: 8 }),
    fc.nat(200_000),
    fc.nat(8_000),
  ])(
    'used categories add up to usedTokens, which is what the counter says',
    (messages, toolList, chars, window, output) => {
      const counter = new SimpleTokenCounter({ charsPerToken: chars });
      const inspection = inspectContext({
        messages,
        tools: toolList,
        tokenCounter: counter,
        contextWindowTokens: window,
        maxOutputTokens: output,
      });
      const used = inspection.categories.filter((category) => category.kind === 'used');
      expect(used.reduce((sum, category) => sum + category.tokens, 0)).toBe(inspection.usedTokens);
      expect(inspection.usedTokens).toBe(counter.countMessages(messages) + counter.countTools(toolList));
      expect(inspection.pieces.reduce((sum, piece) => sum + piece.tokens, 0)).toBe(
        counter.countMessages(messages),
      );
      for (const category of inspection.categories) expect(category.tokens).toBeGreaterThanOrEqual(0);
      const free = inspection.categories.find((category) => category.kind === 'free');
      expect(free?.tokens).toBe(Math.max(0, window - inspection.usedTokens - output));
    },
  );
});
