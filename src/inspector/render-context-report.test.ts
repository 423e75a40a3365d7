import { describe, expect, it } from 'vitest';
import { type Message, SimpleTokenCounter } from '../index.js';
import { inspectContext } from './inspect-context.js';
import { renderContextReport } from './render-context-report.js';

const messages: readonly Message[] = [
  { id: 's', role: 'system', content: 'You are careful.', metadata: { section: 'identity' } },
  { id: 'u', role: 'user', content: 'x'.repeat(400), metadata: { section: 'history' } },
];
const inspection = {
  ...inspectContext({
    messages,
    contextWindowTokens: 1_000,
    maxOutputTokens: 100,
    model: 'm',
    tokenCounter: new SimpleTokenCounter(),
  }),
  decisions: [
    {
      type: 'message-drop' as const,
      stage: 'evil\u001b[2J',
      reason: 'gone\u001b]0;owned\u0007',
      messageIds: ['a\u001b[31m'],
    },
  ],
};

describe('renderContextReport', () => {
  it('draws 100 cells, one per percent of the window, every non-empty category at least once', () => {
    const text = renderContextReport(inspection, { columns: 70 });
    const grid = text.split('\n').filter((line) => /^(?:\S ){9}\S$/.test(line));
    expect(grid).toHaveLength(10);
    const cells = grid.join(' ').split(' ');
    expect(cells).toHaveLength(100);
    expect(cells.filter((cell) => cell === '#')).toHaveLength(1);
    expect(cells.filter((cell) => cell === '/')).toHaveLength(10);
    expect(text).toContain('m · 112/1,000 tokens (11.2%)');
  });

  it('replaces control characters from stored content so the terminal cannot be driven', () => {
    const text = renderContextReport(inspection, { title: 'session \u001b[31mred', color: false });
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u0007');
    expect(text).toContain('  - message-drop by evil?[2J: gone?]0;owned? [a?[31m]');
    expect(text.split('\n')[0]).toBe('session ?[31mred');
  });

  it('colours cells with ANSI 256 codes only when asked', () => {
    const ESC = String.fromCharCode(27);
    expect(renderContextReport(inspection, { color: true })).toContain(`${ESC}[38;5;75m■${ESC}[0m`);
    expect(renderContextReport(inspection, { color: false })).not.toContain(`${ESC}[38;5;`);
  });

  it('leaves the grid out below 60 columns', () => {
    const text = renderContextReport(inspection, { columns: 59 });
    expect(text.split('\n').some((line) => /^(?:\S ){9}\S/.test(line))).toBe(false);
    expect(text).toMatch(/^# Identity\s+8 tokens\s+0\.8%$/m);
  });
});
