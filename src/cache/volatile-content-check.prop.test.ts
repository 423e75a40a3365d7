import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { system, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { VolatileContentCheck } from './volatile-content-check.js';

const PIECES = [
  'You are an agent.',
  'Synced 2026-12-01 12:00.',
  'Synced 2026-12-01 12:05.',
  'Run 3f0c8a52-9d1e-4b7a-8c3f-2e6d1a9b7c40.',
  'Turn 4.',
  'Turn 5.',
  'Entry [2026-11-27 09:40] fixed the build.',
] as const;
const TOOLS: readonly ToolDefinition[] = [
  { name: 'read_file', description: 'Reads a file.' },
  { name: 'write_file', description: 'Writes a file.' },
  { name: 'search', description: 'Searches (tmp /tmp/x1).' },
];

const buildArb = fc.record({
  session: fc.constantFrom('a', 'b', 'c'),
  system: fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 3 }),
  tools: fc.shuffledSubarray([...TOOLS]),
});
type Build = {
  readonly session: string;
  readonly system: readonly string[];
  readonly tools: readonly ToolDefinition[];
};

const messagesOf = (build: Build): readonly Message[] => [system(build.system.join('\n')), user('hi')];

describe('VolatileContentCheck', () => {
  test.prop([fc.array(buildArb, { minLength: 1, maxLength: 12 })])(
    'reports for each build what a fresh check told only about the previous build of the session reports, and never a change when the prefix is the same',
    (builds) => {
      const check = new VolatileContentCheck();
      const last = new Map<string, Build>();
      for (const build of builds) {
        const request = { messages: messagesOf(build), tools: build.tools, sessionKey: build.session };
        const frozen = JSON.stringify(request);
        const warnings = check.check(request);
        expect(JSON.stringify(request)).toBe(frozen);
        const fresh = new VolatileContentCheck();
        const previous = last.get(build.session);
        if (previous !== undefined)
          fresh.remember(build.session, { messages: messagesOf(previous), tools: previous.tools });
        expect(warnings).toEqual(fresh.check(request));
        const same =
          previous !== undefined &&
          previous.system.join('\n') === build.system.join('\n') &&
          JSON.stringify(previous.tools) === JSON.stringify(build.tools);
        if (same || previous === undefined)
          expect(warnings.every((warning) => warning.details?.['evidence'] === 'looks-volatile')).toBe(true);
        last.set(build.session, build);
      }
    },
  );
});
