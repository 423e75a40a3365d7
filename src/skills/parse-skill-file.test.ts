import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { parseSkillFile, safeParseSkillFile, stripFrontmatter } from './parse-skill-file.js';

describe('parseSkillFile', () => {
  it('reads name, description, nanobot metadata from a JSON string and the body', () => {
    const parsed = parseSkillFile(
      [
        '---',
        'name: weather',
        'description: Get current weather and forecasts (no API key required).',
        'homepage: https://wttr.in/:help',
        'metadata: {"nanobot":{"emoji":"🌤️","requires":{"bins":["curl"]}}}',
        '---',
        '# Weather',
        '',
        'Use curl.',
      ].join('\n'),
    );
    expect(parsed.name).toBe('weather');
    expect(parsed.description).toBe('Get current weather and forecasts (no API key required).');
    expect(parsed.metadata).toEqual({ requires: { bins: ['curl'], env: [] }, always: false, emoji: '🌤️' });
    expect(parsed.body).toBe('# Weather\n\nUse curl.');
    expect(parsed.frontmatter['homepage']).toBe('https://wttr.in/:help');
  });

  it('joins a folded description and keeps a literal one', () => {
    const folded = parseSkillFile('---\ndescription: >\n  one\n  two\n---\nbody');
    expect(folded.description).toBe('one two');
    const literal = parseSkillFile('---\ndescription: |\n  one\n  two\n---\nbody');
    expect(literal.description).toBe('one\ntwo');
  });

  it('reads metadata written as a YAML mapping and falls back to openclaw keys', () => {
    const mapping = parseSkillFile('---\nmetadata:\n  nanobot:\n    requires:\n      env: [GH_TOKEN]\n---\n');
    expect(mapping.metadata.requires).toEqual({ bins: [], env: ['GH_TOKEN'] });
    const openclaw = parseSkillFile(
      '---\nmetadata: {"openclaw":{"always":true,"requires":{"bins":["gh"]}}}\n---\nx',
    );
    expect(openclaw.metadata).toMatchObject({ always: true, requires: { bins: ['gh'], env: [] } });
  });

  it('prefers nanobot keys over openclaw keys', () => {
    const parsed = parseSkillFile(
      '---\nmetadata: {"nanobot":{"requires":{"bins":["a"]}},"openclaw":{"requires":{"bins":["b"]}}}\n---\n',
    );
    expect(parsed.metadata.requires.bins).toEqual(['a']);
  });

  it('honours a top-level always flag', () => {
    expect(parseSkillFile('---\nalways: true\n---\nbody').metadata.always).toBe(true);
    expect(parseSkillFile('---\nalways: "true"\n---\nbody').metadata.always).toBe(false);
  });

  it('tolerates null requires, null lists and blank elements', () => {
    const parsed = parseSkillFile(
      '---\nmetadata: {"nanobot":{"requires":{"bins":null,"env":["", null, "FOO"]}}}\n---\n',
    );
    expect(parsed.metadata.requires).toEqual({ bins: [], env: ['FOO'] });
    expect(parseSkillFile('---\nmetadata: {"nanobot":{"requires":null}}\n---\n').metadata.requires).toEqual({
      bins: [],
      env: [],
    });
    expect(parseSkillFile('---\ndescription:\nmetadata:\n---\nx').description).toBeUndefined();
  });

  it('accepts CRLF line endings', () => {
    const parsed = parseSkillFile('---\r\nname: crlf\r\ndescription: Windows file\r\n---\r\nBody\r\n');
    expect(parsed).toMatchObject({ name: 'crlf', description: 'Windows file', body: 'Body' });
  });

  it('treats a file without frontmatter as body only', () => {
    expect(parseSkillFile('# Just text\n')).toEqual({
      frontmatter: {},
      metadata: { requires: { bins: [], env: [] }, always: false },
      body: '# Just text',
    });
  });

  it('throws SKILL_INVALID for broken YAML, a non-mapping, or bad JSON metadata', () => {
    for (const text of [
      '---\nname: [unclosed\n---\n',
      '---\n- a\n- b\n---\n',
      '---\nmetadata: "{nope"\n---\n',
    ]) {
      const result = safeParseSkillFile(text);
      expect(result.success).toBe(false);
      if (!result.success) {
        expect(result.error.code).toBe('SKILL_INVALID');
        expect(result.error.message).toMatch(/SKILL\.md/);
      }
    }
    expect(() => parseSkillFile('---\n- a\n---\n')).toThrow(ContextError);
  });

  it('strips only a well-formed leading frontmatter', () => {
    expect(stripFrontmatter('---\na: 1\n---\n\nBody\n')).toBe('Body');
    expect(stripFrontmatter('Body\n---\na: 1\n---\n')).toBe('Body\n---\na: 1\n---');
  });
});
