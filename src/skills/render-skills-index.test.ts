import { describe, expect, it } from 'vitest';
import { renderSkillsIndex, unavailableSuffix } from './render-skills-index.js';
import { testSkill } from './test-skill.js';

const skills = [
  testSkill('alpha', { description: 'First skill.' }),
  testSkill('gh', { available: false, missing: { bins: ['gh'], env: ['FOO'] } }),
  testSkill('pinned', { always: true }),
  testSkill('extra-one', { source: 'extra', root: '/opt/extra' }),
  testSkill('weather', { source: 'builtin', root: '/pkg/skills', available: false }),
];

describe('renderSkillsIndex', () => {
  it('writes Markdown groups with relative roots, em dashes and flagged unavailable skills', () => {
    expect(renderSkillsIndex(skills)).toBe(
      [
        '# Skills',
        '',
        'The following skills extend your capabilities. Each group names one root folder and lists SKILL.md paths relative to it; join the two to read a skill with your file tool.',
        '',
        '### Workspace skills (`skills`)',
        '- **alpha** — First skill.  `alpha/SKILL.md`',
        '- **gh** — gh description (unavailable: CLI: gh, ENV: FOO)  `gh/SKILL.md`',
        '',
        '### Extra skills (`/opt/extra`)',
        '- **extra-one** — extra-one description  `extra-one/SKILL.md`',
        '',
        '### Built-in skills (`skills`)',
        '- **weather** — weather description (unavailable)  `weather/SKILL.md`',
      ].join('\n'),
    );
  });

  it('prints absolute roots when asked', () => {
    expect(renderSkillsIndex(skills, { paths: 'absolute' })).toContain(
      '### Workspace skills (`/agent/skills`)',
    );
  });

  it('writes the XML index with name, description and location, escaping markup', () => {
    const xml = renderSkillsIndex(
      [
        testSkill('a', { description: 'Use <b> & "q"' }),
        testSkill('gh', { available: false, missing: { bins: ['gh'], env: [] } }),
      ],
      { format: 'xml' },
    );
    expect(xml).toContain(
      [
        '<skills>',
        '  <skill available="true">',
        '    <name>a</name>',
        '    <description>Use &lt;b&gt; &amp; &quot;q&quot;</description>',
        '    <location>skills/a/SKILL.md</location>',
        '  </skill>',
        '  <skill available="false">',
        '    <name>gh</name>',
        '    <description>gh description</description>',
        '    <location>skills/gh/SKILL.md</location>',
        '    <requires>CLI: gh</requires>',
        '  </skill>',
        '</skills>',
      ].join('\n'),
    );
  });

  it('leaves out available always-on skills and returns nothing when none is left', () => {
    expect(renderSkillsIndex([testSkill('pinned', { always: true })])).toBe('');
    expect(renderSkillsIndex([testSkill('pinned', { always: true, available: false })])).toContain('pinned');
  });

  it('formats the unavailable suffix', () => {
    expect(unavailableSuffix(testSkill('x'))).toBe('');
    expect(unavailableSuffix(testSkill('x', { available: false }))).toBe(' (unavailable)');
  });
});
