import { textOf } from '../core/content.js';
import type { Content, ContentPart, Message } from '../core/message.js';
import type { BuildInput, RuntimeContextBlock } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider } from '../pipeline/contracts.js';
import { explicitSkillsBlock, findExplicitSkills } from '../skills/explicit-skills.js';
import type { SkillsCatalog } from '../skills/skills-catalog.js';
import { skillsOfBuild } from '../skills/skills-of-build.js';
import { appendRuntimeContext, RUNTIME_CONTEXT_KEY, wrapRuntimeMetadata } from './runtime-context.js';
import {
  imagesThenText,
  type LoadUserMediaOptions,
  loadUserMedia,
  withAttachmentLines,
} from './user-media.js';

/** The optional time/channel runtime block (off by default: nanobot no longer sends it). */
export type RuntimeMetadataOptions = {
  /** The clock for `Current Time`. Leave out to print no time. */
  readonly clock?: () => Date;
  /** An IANA time zone for the time. @default 'UTC' */
  readonly timeZone?: string;
  /** The channel name, e.g. `cli`, `telegram`. */
  readonly channel?: string;
  /** The chat id within the channel. */
  readonly chatId?: string;
};

/** Options for {@link CurrentMessageProvider}. */
export type CurrentMessageProviderOptions = Pick<
  LoadUserMediaOptions,
  'cwd' | 'mediaRoots' | 'maxImageBytes'
> & {
  /** The provider id. @default 'current-message' */
  readonly id?: string;
  /** Skills that `$name` in the user's text can invoke. @default undefined (no explicit invocation) */
  readonly catalog?: Pick<SkillsCatalog, 'list'>;
  /** Adds a `runtime_metadata` block with time, channel and chat id. @default undefined (no block) */
  readonly runtimeMetadata?: RuntimeMetadataOptions;
};

/**
 * The current message from `input.current` and `input.media`: images first
 * (data URLs that keep their `path`), then the text, with `[Attachment: path]` lines for other files;
 * for a user message (the default `input.currentRole`) then the runtime-context blocks AFTER the
 * user's content — `input.runtimeContext` in order, the optional time/channel block, and the
 * explicit-skills block for `$name` mentions. The exact appended bytes are recorded in
 * `metadata.runtimeContext` (see `stripRuntimeContext`). An assistant-role current message gets no
 * runtime context, like nanobot's. Skipped files are listed in `metadata.skippedMedia`. Nothing when
 * there is no current message.
 */
export class CurrentMessageProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly #options: CurrentMessageProviderOptions;

  constructor(options: CurrentMessageProviderOptions = {}) {
    this.id = options.id ?? 'current-message';
    this.#options = options;
  }

  async getMessages(input: BuildInput, context: BuildContext): Promise<readonly Message[]> {
    if (input.current === undefined && (input.media ?? []).length === 0) return [];
    const current = input.current ?? '';
    const role = input.currentRole ?? 'user';
    const media = await loadUserMedia(input.media ?? [], {
      ...this.#mediaOptions(),
      ...(context.signal === undefined ? {} : { signal: context.signal }),
    });
    const base: Content =
      typeof current === 'string'
        ? imagesThenText(media.images, withAttachmentLines(current, media.attachments))
        : [...media.images, ...current, ...attachmentParts(media.attachments)];
    const blocks = role === 'user' ? this.#blocks(input, { text: textOf(current), context }) : [];
    const { content, marker } = appendRuntimeContext(base, blocks);
    const metadata = {
      ...(marker === undefined ? {} : { [RUNTIME_CONTEXT_KEY]: marker }),
      ...(media.skipped.length === 0 ? {} : { skippedMedia: media.skipped }),
    };
    return [
      {
        id: context.generateId(),
        role,
        content,
        ...(Object.keys(metadata).length === 0 ? {} : { metadata }),
      },
    ];
  }

  #mediaOptions(): LoadUserMediaOptions {
    const { cwd, mediaRoots, maxImageBytes } = this.#options;
    return {
      ...(cwd === undefined ? {} : { cwd }),
      ...(mediaRoots === undefined ? {} : { mediaRoots }),
      ...(maxImageBytes === undefined ? {} : { maxImageBytes }),
    };
  }

  #blocks(
    input: BuildInput,
    { text, context }: { readonly text: string; readonly context: BuildContext },
  ): readonly RuntimeContextBlock[] {
    const blocks: RuntimeContextBlock[] = [...(input.runtimeContext ?? [])];
    const metadata = this.#options.runtimeMetadata;
    if (metadata !== undefined) {
      const lines = runtimeMetadataLines(metadata);
      if (lines.length > 0) blocks.push({ source: 'runtime_metadata', content: wrapRuntimeMetadata(lines) });
    }
    const catalog = this.#options.catalog;
    if (catalog !== undefined) {
      const available = skillsOfBuild(catalog, context).filter((skill) => skill.available);
      const skills = explicitSkillsBlock(findExplicitSkills(text, available));
      const isPresent = blocks.some(
        (block) => block.source === skills?.source && block.content.trim() === skills.content,
      );
      if (skills !== undefined && !isPresent) blocks.push(skills);
    }
    return blocks;
  }
}

/** `Current Time: 2026-11-30 14:20 (Monday) (UTC)`, `Channel: cli`, `Chat ID: 42` — whichever are set. */
export function runtimeMetadataLines(options: RuntimeMetadataOptions): readonly string[] {
  const lines: string[] = [];
  if (options.clock !== undefined)
    lines.push(`Current Time: ${formatTime(options.clock(), options.timeZone ?? 'UTC')}`);
  if (options.channel !== undefined) lines.push(`Channel: ${options.channel}`);
  if (options.chatId !== undefined) lines.push(`Chat ID: ${options.chatId}`);
  return lines;
}

function formatTime(date: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    weekday: 'long',
    hourCycle: 'h23',
  }).formatToParts(date);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((part) => part.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} (${get('weekday')}) (${timeZone})`;
}

function attachmentParts(attachments: readonly string[]): readonly ContentPart[] {
  return attachments.length === 0 ? [] : [{ type: 'text', text: withAttachmentLines('', attachments) }];
}
