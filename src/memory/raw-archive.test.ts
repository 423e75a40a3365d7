import { describe, expect, it } from 'vitest';
import { assistant, user } from '../core/factories.js';
import { fromNanobotDict } from '../sessions/nanobot-message.js';
import { formatRawArchiveEntries } from './raw-archive.js';

function nanobot(dict: Record<string, unknown>) {
  const message = fromNanobotDict(dict, 'm');
  if (typeof message === 'string') throw new Error(message);
  return message;
}

describe('formatRawArchiveEntries', () => {
  it("writes nanobot's lines: an image-only user turn on one line, media breadcrumbs, stored tools_used", () => {
    const messages = [
      nanobot({
        role: 'user',
        content: '',
        media: ['/tmp/cat.png', ''],
        timestamp: '2026-03-01T09:00:00.123',
      }),
      nanobot({ role: 'user', content: 'look', media: ['/tmp/dog.png'], timestamp: '2026-03-01T09:01:00' }),
      nanobot({
        role: 'assistant',
        content: 'Searching.',
        tools_used: ['web_search'],
        timestamp: '2026-03-01T09:02:00',
      }),
      assistant('', { toolCalls: [{ id: 'c', name: 'read_file', arguments: '{}' }] }),
      user([{ type: 'image', url: 'data:image/png;base64,AAAA', path: '/tmp/fish.png' }]),
      assistant('With calls.', { toolCalls: [{ id: 'd', name: 'exec', arguments: '{}' }] }),
    ];
    expect(formatRawArchiveEntries(messages)).toEqual([
      [
        '[RAW] 6 messages',
        '[2026-03-01T09:00] USER: [image: /tmp/cat.png]',
        '[2026-03-01T09:01] USER: look',
        '[image: /tmp/dog.png]',
        '[2026-03-01T09:02] ASSISTANT [tools: web_search]: Searching.',
        '[?] USER: [image: /tmp/fish.png]',
        '[?] ASSISTANT: With calls.',
      ].join('\n'),
    ]);
  });

  it('removes the recorded runtime context (public view)', () => {
    const message = nanobot({
      role: 'user',
      content: 'run tests\n\n[Runtime Context]\ntime: now',
      _runtime_context: { version: 1, sources: ['runtime'], suffix: '[Runtime Context]\ntime: now' },
    });
    expect(formatRawArchiveEntries([message])).toEqual(['[RAW] 1 messages\n[?] USER: run tests']);
  });

  it('splits a long archive into parts that keep every character, cutting between lines where it can', () => {
    const messages = Array.from({ length: 30 }, (_, index) => user(`${index} ${'x'.repeat(90)}`));
    const entries = formatRawArchiveEntries(messages, 1000);
    expect(entries.length).toBeGreaterThan(3);
    expect(entries.every((entry) => entry.length <= 1000)).toBe(true);
    expect(entries[0]?.split('\n')[0]).toBe(`[RAW] 30 messages (part 1/${entries.length})`);
    const lines = entries.flatMap((entry) => entry.split('\n').slice(1));
    expect(lines).toEqual(messages.map((message) => `[?] USER: ${message.content}`));
    const long = formatRawArchiveEntries([user('y'.repeat(2500))], 1000);
    expect(long.map((entry) => entry.slice(entry.indexOf('\n') + 1)).join('')).toBe(
      `[?] USER: ${'y'.repeat(2500)}`,
    );
  });
});
