import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { loadConfig } from './load-config.js';
import { parseConfig } from './parse-config.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-config-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<ContextError> {
  try {
    await promise;
  } catch (error) {
    if (ContextError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the promise to reject');
}

describe('loadConfig', () => {
  it('returns the defaults (an empty config) when the folder has no ctxloom.yaml', async () => {
    expect(await loadConfig({ dir })).toEqual({
      config: {},
      path: path.join(dir, 'ctxloom.yaml'),
      found: false,
    });
  });

  it('reports NOT_FOUND for a missing explicit path unless optional', async () => {
    const file = path.join(dir, 'other.yaml');
    const error = await failure(loadConfig({ path: file }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('other.yaml');
    expect((await loadConfig({ path: file, optional: true })).found).toBe(false);
  });

  it('reads and validates a full config', async () => {
    await writeFile(
      path.join(dir, 'ctxloom.yaml'),
      [
        'preset: react',
        'maxMessages: 40',
        'maxInputTokens: 8000',
        'tokenCounter:',
        '  type: tiktoken',
        '  encoding: o200k_base',
        'historyFile: history.jsonl',
        'includeBootstrapFiles: true',
        'prompt:',
        '  personaDefaultPrompt: You are Loom, a coding assistant.',
        '  bootstrapFiles: [AGENTS.md, USER.md]',
      ].join('\n'),
    );
    const loaded = await loadConfig({ dir });
    expect(loaded.found).toBe(true);
    expect(loaded.config).toEqual({
      preset: 'react',
      maxMessages: 40,
      maxInputTokens: 8000,
      tokenCounter: { type: 'tiktoken', encoding: 'o200k_base' },
      historyFile: 'history.jsonl',
      includeBootstrapFiles: true,
      prompt: {
        personaDefaultPrompt: 'You are Loom, a coding assistant.',
        bootstrapFiles: ['AGENTS.md', 'USER.md'],
      },
    });
  });

  it('names the file and the key path for a wrong type', async () => {
    const file = path.join(dir, 'ctxloom.yaml');
    await writeFile(file, 'prompt:\n  personaDefaultPrompt: 42\n');
    const error = await failure(loadConfig({ dir }));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toBe(`${file}: prompt.personaDefaultPrompt: expected string, got integer`);
  });

  it('names an unknown key and lists the allowed keys', () => {
    const error = (() => {
      try {
        parseConfig('prompt:\n  personaPrompt: hi\n');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(ContextError.isInstance(error) && error.code).toBe('INVALID_CONFIG');
    expect(String(error)).toContain(
      'ctxloom.yaml: prompt: unknown key "personaPrompt"; allowed keys: personaDefaultPrompt, reactProtocolPrompt,',
    );
  });

  it('names an unknown top-level key', () => {
    expect(() => parseConfig('maxToken: 10\n')).toThrow(
      /ctxloom\.yaml: \(root\): unknown key "maxToken"; allowed keys: preset, maxMessages, maxInputTokens,/,
    );
  });

  it('reports every problem, each on its own line', () => {
    expect(() => parseConfig('preset: swarm\nmaxInputTokens: -5\ntokenCounter: {type: gpt}\n')).toThrow(
      [
        'ctxloom.yaml: preset: expected one of "chat", "react", "skill", "agent", got "swarm"',
        'ctxloom.yaml: maxInputTokens: must be > 0, got -5',
        'ctxloom.yaml: tokenCounter.type: expected one of "simple", "byte", "tiktoken", "hf", got "gpt"',
      ].join('\n'),
    );
  });

  it('refuses a history file outside the workspace and a template without its placeholder', () => {
    expect(() => parseConfig('historyFile: ../elsewhere.jsonl')).toThrow(
      /historyFile: must be a path inside the workspace/,
    );
    expect(() => parseConfig('prompt: {toolsTemplate: "Tools:"}')).toThrow(
      /prompt\.toolsTemplate: must contain/,
    );
  });

  it('reports a YAML syntax error with the line and column', async () => {
    const file = path.join(dir, 'ctxloom.yaml');
    await writeFile(file, 'maxInputTokens: 10\nprompt: [oops\nmaxMessages: 3\n');
    const error = await failure(loadConfig({ dir }));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toMatch(
      new RegExp(`^${file.replaceAll(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:1: YAML syntax error: `),
    );
    expect(error.details).toMatchObject({ line: 3, column: 1 });
  });

  it('treats an empty file as the defaults and a non-mapping as an error', () => {
    expect(parseConfig('')).toEqual({});
    expect(parseConfig('# only a comment\n')).toEqual({});
    expect(() => parseConfig('- a\n- b\n')).toThrow(/ctxloom\.yaml: \(root\): expected object, got array/);
  });
});
