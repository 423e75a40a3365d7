import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { textOf } from '../core/content.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { BuildCheck, BuildCheckRequest } from '../pipeline/build-check.js';
import type { TraceWarning } from '../pipeline/build-trace.js';
import {
  type ContextBuildSample,
  findVolatileContent,
  stableSystem,
  type VolatileContent,
} from './find-volatile-content.js';

/** Options for {@link VolatileContentCheck}. */
export type VolatileContentCheckOptions = {
  /** Sessions whose previous prefix is remembered; the least recently built is forgotten first. @default 64 */
  readonly maxSessions?: number;
  /** The clock: a timestamp to the second is flagged on its own only near the build time (see `FindVolatileContentOptions.now`). @default () => new Date() */
  readonly clock?: () => Date;
  /**
   * What a build whose prefix did not change repeats from the build where it last changed: only the
   * single-build findings (`looks-volatile`: the trace's view, this build hits the cache) or all of
   * them, the changes too (`all`: a viewer's, so what last changed stays visible across refreshes).
   * @default 'looks-volatile'
   */
  readonly repeat?: 'looks-volatile' | 'all';
};

/** The keys of {@link VolatileContentCheckOptions}, for `checkOptions`. @internal */
export const VOLATILE_CONTENT_CHECK_OPTION_KEYS = {
  maxSessions: true,
  clock: true,
  repeat: true,
} as const satisfies OptionKeys<VolatileContentCheckOptions>;

/** Defaults of {@link VolatileContentCheckOptions}. */
export const DEFAULT_VOLATILE_CONTENT_CHECK = Object.freeze({ maxSessions: 64, repeat: 'looks-volatile' });

/** The stable prefix of one build of a session, as the check remembers it. */
type Remembered = {
  readonly sample: ContextBuildSample;
  readonly tools: readonly ToolDefinition[] | undefined;
  readonly toolsText: string;
  readonly systemText: string;
  /** What an unchanged prefix reports again (the single-build findings, or all, per `repeat`). */
  readonly repeated: readonly TraceWarning[];
};

/**
 * A pipeline check (`checks: [new VolatileContentCheck()]`) that puts {@link findVolatileContent}'s
 * findings into the trace's `warnings` (type `volatile-content`): per session key, it remembers the
 * stable prefix (the tools and the leading system messages) of the previous build and compares the
 * next build with it only when those bytes changed, so a build whose prefix stayed put costs one
 * string comparison. The first build of a session reports the shapes that are volatile on their own
 * (UUIDs, timestamps to the second near the clock's time, temp paths, epochs, random ids); a stable
 * entry date or last-activity time is never flagged.
 * @example
 * const builder = new ContextBuilder({ ...agentPresetOptions({ workspace }), checks: [new VolatileContentCheck()] });
 * (await builder.build(input)).trace.warnings; // [{ type: 'volatile-content', message: 'system message 0 …' }]
 */
export class VolatileContentCheck implements BuildCheck {
  readonly specificationVersion = 'v1';
  readonly id = 'volatile-content';
  readonly #maxSessions: number;
  readonly #clock: () => Date;
  readonly #isRepeatingAll: boolean;
  readonly #previous = new Map<string, Remembered>();

  constructor(options: VolatileContentCheckOptions = {}) {
    checkOptions(options, {
      where: 'new VolatileContentCheck options',
      known: VOLATILE_CONTENT_CHECK_OPTION_KEYS,
    });
    this.#maxSessions = Math.max(1, options.maxSessions ?? DEFAULT_VOLATILE_CONTENT_CHECK.maxSessions);
    this.#clock = options.clock ?? (() => new Date());
    this.#isRepeatingAll = (options.repeat ?? DEFAULT_VOLATILE_CONTENT_CHECK.repeat) === 'all';
  }

  check(request: BuildCheckRequest): readonly TraceWarning[] {
    const key = request.sessionKey ?? '';
    const known = this.#previous.get(key);
    const next = this.#prefix(request, known);
    if (known !== undefined && known.systemText === next.systemText && known.toolsText === next.toolsText) {
      this.#store(key, known);
      return known.repeated;
    }
    const suspects = findVolatileContent(request.messages, { tools: request.tools, now: this.#clock() });
    const varies =
      known === undefined
        ? []
        : findVolatileContent(request.messages, { tools: request.tools, compareWith: [known.sample] });
    const alone = suspects.filter((suspect) => !varies.some((found) => overlaps(found, suspect)));
    const warnings = [...varies, ...alone].map(toWarning);
    this.#store(key, { ...next, repeated: this.#isRepeatingAll ? warnings : suspects.map(toWarning) });
    return warnings;
  }

  /**
   * Takes `sample` as the previous build of `sessionKey` (e.g. the last request the agent sent, from
   * the request recorder), so the next build of that session is compared with it.
   */
  remember(sessionKey: string, sample: ContextBuildSample): void {
    const tools = sample.tools ?? [];
    const prefix = this.#prefix({ messages: sample.messages, tools }, undefined);
    const repeated = findVolatileContent(sample.messages, { tools, now: this.#clock() }).map(toWarning);
    this.#store(sessionKey, { ...prefix, repeated });
  }

  #prefix(
    request: Pick<BuildCheckRequest, 'messages' | 'tools'>,
    known: Remembered | undefined,
  ): Omit<Remembered, 'repeated'> {
    const system = stableSystem(request.messages);
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
