import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import { testSkill } from '../skills/test-skill.js';
import { CurrentMessageProvider, type CurrentMessageProviderOptions } from './current-message-provider.js';
import { stripRuntimeContext } from './strip-runtime-context.js';
import { testBuildContext } from './test-context.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctxloom-current-'));
  dirs.push(dir);
  return dir;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
const GIF = Buffer.from('GIF89a\x01\x00', 'latin1');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

async function current(input: BuildInput, options: CurrentMessageProviderOptions = {}): Promise<Message> {
  const [message] = await new CurrentMessageProvider(options).getMessages(input, testBuildContext());
  if (message === undefined) throw new Error('no message');
  return message;
}

describe('CurrentMessageProvider', () => {
  it('leaves a plain message exactly as typed, with no runtime context by default', async () => {
    const message = await current({ current: 'hello' });
    expect(message).toEqual({ id: 'p-1', role: 'user', content: 'hello' });
  });

  it('builds an assistant-role current message without runtime context or skills, as nanobot does', async () => {
    const catalog = { list: () => [testSkill('review')] };
    const message = await current(
      {
        current: 'I will $review it',
        currentRole: 'assistant',
        runtimeContext: [{ source: 'goal', content: 'G' }],
      },
      { catalog, runtimeMetadata: { channel: 'cli' } },
    );
    expect(message).toEqual({ id: 'p-1', role: 'assistant', content: 'I will $review it' });
  });

  it('puts images first (detected by magic bytes) and the text last', async () => {
    const dir = tempDir();
    const files = { 'a.bin': PNG, 'b.dat': JPEG, c: GIF, 'd.img': WEBP };
    for (const [name, bytes] of Object.entries(files)) writeFileSync(path.join(dir, name), bytes);
    const message = await current({ current: 'look', media: Object.keys(files) }, { cwd: dir });
    expect(Array.isArray(message.content)).toBe(true);
    const parts = message.content as readonly {
      type: string;
      mediaType?: string;
      url?: string;
      path?: string;
    }[]; // narrowed above
    expect(parts.map((part) => part.mediaType ?? part.type)).toEqual([
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/webp',
      'text',
    ]);
    expect(parts[0]).toEqual({
      type: 'image',
      url: `data:image/png;base64,${PNG.toString('base64')}`,
      mediaType: 'image/png',
      path: path.join(dir, 'a.bin'),
    });
    expect(parts.at(-1)).toEqual({ type: 'text', text: 'look' });
  });

  it('falls back to the extension for images and turns other files into attachment lines', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'photo.JPG'), 'not really a jpeg');
    writeFileSync(path.join(dir, 'report.pdf'), '%PDF-1.7');
    writeFileSync(path.join(dir, 'notes.txt'), 'hi');
    const message = await current(
      { current: 'read these', media: ['report.pdf', 'notes.txt'] },
      { cwd: dir },
    );
    expect(message.content).toBe(
      `read these\n\n[Attachment: ${path.join(dir, 'report.pdf')}]\n[Attachment: ${path.join(dir, 'notes.txt')}]`,
    );
    const withImage = await current({ current: 'x', media: ['photo.JPG'] }, { cwd: dir });
    expect((withImage.content as readonly { mediaType?: string }[])[0]?.mediaType).toBe('image/jpeg'); // list content: an image was found
  });

  it('skips missing, non-file, out-of-root and NUL paths with a reason', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'outside.png'), PNG);
    const inside = path.join(dir, 'inside');
    mkdirSync(path.join(inside, 'folder'), { recursive: true });
    symlinkSync(path.join(dir, 'outside.png'), path.join(inside, 'link.png'));
    const message = await current(
      { current: 'hi', media: ['nope.png', 'folder', '../outside.png', 'a\0b', 'link.png'] },
      { cwd: inside, mediaRoots: [inside] },
    );
    expect(message.content).toBe('hi');
    expect(message.metadata?.['skippedMedia']).toEqual([
      { path: path.join(inside, 'nope.png'), reason: 'missing' },
      { path: path.join(inside, 'folder'), reason: 'not-a-file' },
      { path: path.join(dir, 'outside.png'), reason: 'outside-media-roots' },
      { path: 'a\0b', reason: 'unsafe-path' },
      { path: path.join(inside, 'link.png'), reason: 'outside-media-roots' },
    ]);
  });

  it('appends runtime-context blocks after the text and records the exact suffix', async () => {
    const message = await current({
      current: 'deploy it',
      runtimeContext: [
        { source: 'goal', content: '  Ship v2  ' },
        { source: '', content: 'dropped: no source' },
        { source: 'blank', content: '   ' },
        { source: 'session_message', content: 'From Bo' },
      ],
    });
    expect(message.content).toBe('deploy it\n\nShip v2\n\nFrom Bo');
    expect(message.metadata?.['runtimeContext']).toEqual({
      version: 1,
      sources: ['goal', 'session_message'],
      suffix: 'Ship v2\n\nFrom Bo',
    });
    expect(stripRuntimeContext(message)).toEqual({ id: 'p-1', role: 'user', content: 'deploy it' });
  });

  it('appends blocks as text parts after images and the text', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'a.png'), PNG);
    const message = await current(
      { current: 'see', media: ['a.png'], runtimeContext: [{ source: 'goal', content: 'G' }] },
      { cwd: dir },
    );
    const parts = message.content as readonly { type: string; text?: string }[]; // list content: an image was attached
    expect(parts.map((part) => part.text ?? part.type)).toEqual(['image', 'see', 'G']);
    expect(message.metadata?.['runtimeContext']).toEqual({
      version: 1,
      sources: ['goal'],
      blocks: [{ type: 'text', text: 'G' }],
    });
    expect((stripRuntimeContext(message).content as readonly unknown[]).length).toBe(2);
  });

  it('adds the optional time and channel block in the standard wrapper', async () => {
    const message = await current(
      { current: '' },
      {
        runtimeMetadata: { clock: () => new Date('2026-11-30T14:05:00Z'), channel: 'telegram', chatId: '42' },
      },
    );
    expect(message.content).toBe(
      '[Runtime Context — metadata only, not instructions]\nCurrent Time: 2026-11-30 14:05 (Monday) (UTC)\nChannel: telegram\nChat ID: 42\n[/Runtime Context]',
    );
    expect(stripRuntimeContext(message).content).toBe('');
  });

  it('inlines explicitly invoked skills for this turn only, after other blocks', async () => {
    const catalog = { list: () => [testSkill('review'), testSkill('deploy')] };
    const message = await current(
      { current: 'please $review then $review', runtimeContext: [{ source: 'goal', content: 'G' }] },
      { catalog },
    );
    expect(message.content).toBe(
      'please $review then $review\n\nG\n\n[Active Skills — instructions for this user turn]\n### Skill: review\n\n# review\n\nDo the review thing.\n[/Active Skills]',
    );
    expect(message.metadata?.['runtimeContext']).toMatchObject({ sources: ['goal', 'explicit_skills'] });
  });
});

describe('stripRuntimeContext', () => {
  const marker = { version: 1, sources: ['goal'], suffix: 'G' };

  it('strips the separator and the suffix when the content still ends with them', () => {
    const message: Message = {
      id: 'm',
      role: 'user',
      content: 'hello\n\nG',
      metadata: { runtimeContext: marker, keep: true },
    };
    expect(stripRuntimeContext(message)).toEqual({
      id: 'm',
      role: 'user',
      content: 'hello',
      metadata: { keep: true },
    });
  });

  it('empties content that is only the suffix', () => {
    const message: Message = { id: 'm', role: 'user', content: 'G', metadata: { runtimeContext: marker } };
    expect(stripRuntimeContext(message)).toEqual({ id: 'm', role: 'user', content: '' });
  });

  it("keeps edited content but drops the stale marker, as nanobot's public view does", () => {
    const edited: Message = {
      id: 'm',
      role: 'user',
      content: 'helloG',
      metadata: { runtimeContext: marker },
    };
    expect(stripRuntimeContext(edited)).toEqual({ id: 'm', role: 'user', content: 'helloG' });
  });

  it('strips trailing text parts equal to the recorded blocks, and nothing else', () => {
    const blocks = { version: 1, sources: ['goal'], blocks: [{ type: 'text', text: 'G' }] };
    const parts = [
      { type: 'text', text: 'see' },
      { type: 'text', text: 'G' },
    ] as const;
    const message: Message = { id: 'm', role: 'user', content: parts, metadata: { runtimeContext: blocks } };
    expect(stripRuntimeContext(message).content).toEqual([{ type: 'text', text: 'see' }]);
    const strings = { ...message, metadata: { runtimeContext: { ...blocks, blocks: ['G'] } } };
    expect(stripRuntimeContext(strings).content).toEqual(parts);
    const extraKey = { ...blocks, blocks: [{ type: 'text', text: 'G', cache_control: {} }] };
    expect(stripRuntimeContext({ ...message, metadata: { runtimeContext: extraKey } }).content).toEqual(
      parts,
    );
  });

  it('ignores markers of another version', () => {
    const message: Message = {
      id: 'm',
      role: 'user',
      content: 'hello\n\nG',
      metadata: { runtimeContext: { ...marker, version: 2 } },
    };
    expect(stripRuntimeContext(message).content).toBe('hello\n\nG');
  });

  it('leaves messages without a marker unchanged', () => {
    const plain: Message = { id: 'm', role: 'user', content: 'x' };
    expect(stripRuntimeContext(plain)).toBe(plain);
  });
});
