import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './parse-config.js';
import { resolveAgentSettings } from './resolve-agent-settings.js';

const workspace = path.resolve('/srv/agent');

describe('resolveAgentSettings', () => {
  it('reads the agent section and resolves its paths against the workspace', () => {
    const config = parseConfig(
      [
        'sessionsDir: data/sessions',
        'agent:',
        '  model: gpt-4.1',
        '  contextWindowTokens: 1000000',
        '  maxOutputTokens: 0',
        '  projectWorkspace: ../project',
        '  skills: { dirs: [extra], disabled: [weather], indexFormat: xml }',
      ].join('\n'),
      'ctxloom.yaml',
    );
    expect(resolveAgentSettings(config, workspace)).toEqual({
      sessionsDir: path.join(workspace, 'data/sessions'),
      model: 'gpt-4.1',
      contextWindowTokens: 1_000_000,
      maxOutputTokens: 0,
      projectWorkspace: path.resolve(workspace, '../project'),
      skillDirs: [path.join(workspace, 'extra')],
      disabledSkills: ['weather'],
      skillsIndexFormat: 'xml',
    });
  });

  it('defaults the sessions folder and leaves the rest unset', () => {
    expect(resolveAgentSettings(parseConfig('', 'ctxloom.yaml'), workspace)).toEqual({
      sessionsDir: path.join(workspace, 'sessions'),
    });
  });

  it('names an unknown or mistyped agent key', () => {
    expect(() => parseConfig('agent:\n  contextWindow: 5', 'ctxloom.yaml')).toThrow(/agent.*contextWindow/);
    expect(() => parseConfig('agent:\n  contextWindowTokens: lots', 'ctxloom.yaml')).toThrow(
      /agent\.contextWindowTokens/,
    );
  });
});
