import { describe, expect, it } from 'vitest';
import type { BuildTrace } from '../index.js';
import { renderSectionTable } from './render-section-table.js';

const trace = (sections: BuildTrace['sections'], toolTokens: number): BuildTrace => ({
  stages: [],
  sections,
  toolTokens,
  totalTokens: sections.reduce((sum, section) => sum + section.tokens, 0) + toolTokens,
  tokenCounter: 'simple',
  durationMs: 0,
});

describe('renderSectionTable', () => {
  it('lists sections with messages, tokens and percent, then tool schemas, the total and the counter', () => {
    const text = renderSectionTable(
      trace(
        [
          { section: 'persona', messages: 1, tokens: 250 },
          { section: 'history', messages: 12, tokens: 1500 },
        ],
        250,
      ),
    );
    expect(text).toBe(
      [
        'section         messages  tokens  percent',
        '--------------  --------  ------  -------',
        'persona                1     250    12.5%',
        'history               12   1,500    75.0%',
        '(tool schemas)         -     250    12.5%',
        '--------------  --------  ------  -------',
        'total                 13   2,000   100.0%',
        'counter: simple',
        '',
      ].join('\n'),
    );
  });

  it('shows 0.0% for an empty build', () => {
    expect(renderSectionTable(trace([], 0))).toMatch(/\ntotal +0 +0 +0\.0%\n/);
  });
});
