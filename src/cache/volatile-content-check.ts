import { textOf } from '../core/content.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { BuildCheck, BuildCheckRequest } from '../pipeline/build-check.js';
import type { TraceWarning } from '../pipeline/build-trace.js';
import {
  type ContextBuildSample,
  findVolatileContent,
  type VolatileContent,
} from './find-volatile-content.js';

/** Options for {@link VolatileContentCheck}. */
export type VolatileContentCheckOptions = {
  /** Sessions whose previous prefix is remembered; the least recently built is forgotten first. @default 64 */
  readonly maxSessions?: number;
};

/** Defaults of {@link VolatileContentCheckOptions}. */
export const DEFAULT_VOLATILE_CONTENT_CHECK = Object.freeze({ maxSessions: 64 });

/** The stable prefix of one build of a session, as the check remembers it. */
type Remembered = {
  readonly sample: ContextBuildSample;
  readonly tools: readonly ToolDefinition[] | undefined;
  readonly toolsText: string;
  readonly systemText: string;
  /** The single-build findings of this prefix (they hold for as long as it stays the same). */
  readonly suspects: readonly TraceWarning[];
};

/**
 * A pipeline check (`checks: [new VolatileContentCheck()]`) that puts {@link findVolatileContent}'s
 * findings into the trace's `warnings` (type `volatile-content`): per session key, it remembers the
 * stable prefix (the tools and the leading system messages) of the previous build and compares the
 * next build with it only when those bytes changed, so a build whose prefix stayed put costs one
 * string comparison. The first build of a session reports the shapes that are volatile on their own
 * (UUIDs, timestamps to the second, temp paths, epochs, random ids); a stable entry date is never
 * flagged.
 * @example
 * const builder = new ContextBuilder({ ...agentPresetOptions({ workspace }), checks: [new VolatileContentCheck()] });
 * (await builder.build(input)).trace.warnings; // [{ type: 'volatile-content', message: 'system message 0 …' }]
 */
export class VolatileContentCheck implements BuildCheck {
  readonly specificationVersion = 'v1';
  readonly id = 'volatile-content';
  readonly #maxSessions: number;
  readonly #previous = new Map<string, Remembered>();

  constructor(options: VolatileContentCheckOptions = {}) {
    this.#maxSessions = Math.max(1, options.maxSessions ?? DEFAULT_VOLATILE_CONTENT_CHECK.maxSessions);
  }

  check(request: BuildCheckRequest): readonly TraceWarning[] {
    const key = request.sessionKey ?? '';
    const known = this.#previous.get(key);
    const next = this.#prefix(request, known);
    if (known !== undefined && known.systemText === next.systemText && known.toolsText === next.toolsText) {
      this.#store(key, known);
      return known.suspects;
    }
    const suspects = findVolatileContent(request.messages, { tools: request.tools });
    this.#store(key, { ...next, suspects: suspects.map(toWarning) });
    if (known === undefined) return suspects.map(toWarning);
    const varies = findVolatileContent(request.messages, {
      tools: request.tools,
      compareWith: [known.sample],
    });
    const alone = suspects.filter((suspect) => !varies.some((found) => overlaps(found, suspect)));
    return [...varies, ...alone].map(toWarning);
  }

  /**
   * Takes `sample` as the previous build of `sessionKey` (e.g. the last request the agent sent, from
   * the request recorder), so the next build of that session is compared with it.
   */
  remember(sessionKey: string, sample: ContextBuildSample): void {
    const tools = sample.tools ?? [];
    const prefix = this.#prefix({ messages: sample.messages, tools }, undefined);
    const suspects = findVolatileContent(sample.messages, { tools }).map(toWarning);
    this.#store(sessionKey, { ...prefix, suspects });
  }

  #prefix(
    request: Pick<BuildCheckRequest, 'messages' | 'tools'>,
    known: Remembered | undefined,
  ): Omit<Remembered, 'suspects'> {
    const system = leadingSystem(request.messages);
    return {
      sample: { messages: system, tools: request.tools },
      tools: request.tools,
      // The same tools array as last time (a builder's fixed tool list) needs no serialising.
      toolsText:
        known !== undefined && known.tools === request.tools
          ? known.toolsText
          : JSON.stringify(request.tools),
      systemText: system.map((message) => textOf(message.content)).join('\u0000'),
    };
  }

  #store(key: string, remembered: Remembered): void {
    this.#previous.delete(key);
    this.#previous.set(key, remembered);
    for (const oldest of this.#previous.keys()) {
      if (this.#previous.size <= this.#maxSessions) break;
      this.#previous.delete(oldest);
    }
  }
}

function leadingSystem(messages: readonly Message[]): readonly Message[] {
  const end = messages.findIndex((message) => message.role !== 'system');
  return end === -1 ? messages : messages.slice(0, end);
}

function toWarning(finding: VolatileContent): TraceWarning {
  const { message, ...details } = finding;
  return { type: 'volatile-content', check: 'volatile-content', message, details };
}

function overlaps(varies: VolatileContent, suspect: VolatileContent): boolean {
  return (
    varies.area === suspect.area &&
    varies.index === suspect.index &&
    suspect.offset >= varies.offset &&
    suspect.offset <= varies.offset + varies.text.length
  );
}
