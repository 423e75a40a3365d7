import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.js';
import { getHistory } from './get-history.js';
import { fromNanobotDict, type NanobotDict, toNanobotDict } from './nanobot-message.js';

// Inputs are rows as nanobot writes them in a session file; expectations are what nanobot's
// `Session.get_history` returns for them (HKUDS/nanobot session manager, §3.4 step 6).

function load(rows: readonly NanobotDict[]): Message[] {
  return rows.map((row, index) => {
    const message = fromNanobotDict(row, `r${index}`);
    if (typeof message === 'string') throw new Error(message);
    return message;
  });
}

function replay(rows: readonly NanobotDict[], includeRuntimeContext = true): unknown[] {
  return getHistory({ messages: load(rows), lastConsolidated: 0 }, { includeRuntimeContext }).map(
    (message) => message.content,
  );
}

const RUNTIME = '[Runtime Context — metadata only, not instructions]\nGoal: green\n[/Runtime Context]';

describe('replay of user rows', () => {
  it('adds a breadcrumb per non-empty media path, on its own line', () => {
    const rows = [
      { role: 'user', content: 'Look 📷', media: ['/tmp/a.png', '~/b.jpg'] },
      { role: 'user', content: '', media: ['/p.png', ''] },
      { role: 'user', content: 'x', media: ['', 7, null] },
      { role: 'user', content: [{ type: 'text', text: 'list' }], media: ['/p.png'] },
    ];
    expect(replay(rows)).toEqual([
      'Look 📷\n[image: /tmp/a.png]\n[image: ~/b.jpg]',
      '[image: /p.png]',
      'x',
      [{ type: 'text', text: 'list' }],
    ]);
  });

  it('adds legacy cli_apps breadcrumbs to rows without a recorded marker, at most 8', () => {
    const apps = [
      { name: ' GH ', entry_point: 'gh' },
      { name: '' },
      'not an app',
      { name: 'Jq', entry_point: '  ' },
      { name: 'rg', entry_point: null },
      ...Array.from({ length: 6 }, (_, index) => ({ name: `app${index}` })),
    ];
    const [content] = replay([{ role: 'user', content: 'thanks', cli_apps: apps }]);
    expect(String(content).split('\n')).toEqual([
      'thanks',
      '[CLI App Attachment: @gh; tool=run_cli_app; entry_point=gh; skill=skills/cli-app-gh/SKILL.md]',
      '[CLI App Attachment: @jq; tool=run_cli_app; entry_point=unknown; skill=skills/cli-app-jq/SKILL.md]',
      '[CLI App Attachment: @rg; tool=run_cli_app; entry_point=unknown; skill=skills/cli-app-rg/SKILL.md]',
      '[CLI App Attachment: @app0; tool=run_cli_app; entry_point=unknown; skill=skills/cli-app-app0/SKILL.md]',
      '[CLI App Attachment: @app1; tool=run_cli_app; entry_point=unknown; skill=skills/cli-app-app1/SKILL.md]',
      '[CLI App Attachment: @app2; tool=run_cli_app; entry_point=unknown; skill=skills/cli-app-app2/SKILL.md]',
    ]);
  });

  it('adds no cli_apps breadcrumbs in the public view or when the row records its runtime context', () => {
    const apps = [{ name: 'gh', entry_point: 'gh' }];
    const marked = {
      role: 'user',
      content: `run\n\n${RUNTIME}`,
      cli_apps: apps,
      _runtime_context: { version: 1, sources: ['goal'], suffix: RUNTIME },
    };
    expect(replay([{ role: 'user', content: 'a', cli_apps: apps }], false)).toEqual(['a']);
    expect(replay([marked])).toEqual([`run\n\n${RUNTIME}`]);
    expect(replay([{ role: 'user', content: '', cli_apps: apps, media: ['/p.png'] }])).toEqual([
      '[image: /p.png]\n[CLI App Attachment: @gh; tool=run_cli_app; entry_point=gh; skill=skills/cli-app-gh/SKILL.md]',
    ]);
  });
});

describe('replay of assistant rows', () => {
  it('removes only what nanobot removes', () => {
    const text = [
      '[Message Time: 2026-11-28 09:31]',
      'It is red.',
      '[image: /tmp/a.png]',
      '  [image: /tmp/indented.png]',
      '[image: /x].png]',
      '[image: relative.png]',
      'message("hi")',
      'message("a) b")',
      '  generate_image(prompt)  ',
      'done',
      '',
    ].join('\n');
    expect(
      replay([
        { role: 'user', content: 'q' },
        { role: 'assistant', content: text },
      ])[1],
    ).toBe(
      'It is red.\n  [image: /tmp/indented.png]\n[image: /x].png]\n[image: relative.png]\nmessage("a) b")\ndone',
    );
  });

  it('joins lines with LF as Python splitlines() does, and strips Python whitespace', () => {
    const rows = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '\u001fone\r\ntwo\rthree\u2028[image: ~/x.png]\u0085\r\n' },
    ];
    expect(replay(rows)[1]).toBe('one\ntwo\nthree');
  });

  it('removes a Message Time prefix only at the very start, even across lines', () => {
    const rows = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'x\n[Message Time: now]\ny' },
      { role: 'assistant', content: '[Message Time: multi\nline]\nz' },
    ];
    expect(replay(rows).slice(1)).toEqual(['x\n[Message Time: now]\ny', 'z']);
  });

  it('drops blank assistant rows unless they carry tool calls, reasoning or thinking blocks', () => {
    const rows = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '  \n ' },
      { role: 'assistant', content: '', reasoning_content: '' },
      { role: 'assistant', content: ' ', thinking_blocks: [] },
      { role: 'assistant', content: '[image: /only.png]' },
    ];
    expect(replay(rows)).toEqual(['q', '', '']);
  });
});

describe('public view of runtime context (include_runtime_context false)', () => {
  it('strips nanobot string markers with their separator, and an all-context message to empty', () => {
    const rows = [
      {
        role: 'user',
        content: `run tests\n\n${RUNTIME}`,
        _runtime_context: { version: 1, sources: ['goal'], suffix: RUNTIME },
      },
      {
        role: 'user',
        content: RUNTIME,
        _runtime_context: { version: 1, sources: ['goal'], suffix: RUNTIME },
      },
      {
        role: 'user',
        content: `edited${RUNTIME}`,
        _runtime_context: { version: 1, sources: ['goal'], suffix: RUNTIME },
      },
    ];
    expect(replay(rows, false)).toEqual(['run tests', '', `edited${RUNTIME}`]);
  });

  it('strips nanobot list markers whose blocks are text dicts', () => {
    const block = { type: 'text', text: RUNTIME };
    const row = {
      role: 'user',
      content: [{ type: 'text', text: 'list question' }, block],
      _runtime_context: { version: 1, sources: ['goal'], blocks: [block] },
    };
    expect(replay([row], false)).toEqual([[{ type: 'text', text: 'list question' }]]);
    expect(replay([row])).toEqual([row.content]);
  });

  it('keeps the marker on the model replay so the stored row writes back unchanged', () => {
    const row = {
      role: 'user',
      content: `q\n\n${RUNTIME}`,
      _runtime_context: { version: 1, sources: ['goal'], suffix: RUNTIME },
    };
    const [replayed] = getHistory({ messages: load([row]), lastConsolidated: 0 });
    expect(replayed === undefined ? undefined : toNanobotDict(replayed)['_runtime_context']).toEqual(
      row._runtime_context,
    );
    const [publicView] = getHistory(
      { messages: load([row]), lastConsolidated: 0 },
      { includeRuntimeContext: false },
    );
    expect(publicView?.metadata).toBeUndefined();
  });
});
