import { assertNever } from '../core/assert-never.js';
import { textOf } from '../core/content.js';
import { ContextError } from '../core/errors.js';
import type { ChatModel, ChatRequest, ChatResult } from '../llm/chat-model.js';
import { ChatModelError } from '../llm/chat-model-error.js';

/**
 * The scripted summarisers, by known quality: `faithful` keeps every rule and every stated value
 * (the upper bound), `lossy` keeps the first 80 characters of each transcript entry, `adversarial`
 * drops every rule and obeys an instruction planted in the transcript, `failing` always throws a
 * transient `ChatModelError`, `slow` answers as `faithful` after a delay.
 */
export type ScriptedSummariserKind = 'faithful' | 'lossy' | 'adversarial' | 'failing' | 'slow';

/** Every scripted summariser kind, in report order. */
export const SCRIPTED_SUMMARISER_KINDS: readonly ScriptedSummariserKind[] = Object.freeze([
  'faithful',
  'lossy',
  'adversarial',
  'failing',
  'slow',
]);

/** Options for {@link createScriptedSummariser}. */
export type ScriptedSummariserOptions = {
  readonly kind: ScriptedSummariserKind;
  /** `slow`: how long to wait before answering. @default 20 */
  readonly delayMs?: number;
  /** `slow`: waits `ms` (inject a fake clock in tests). @default a `setTimeout` promise */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
};

const RULE_LINE = /^RULE \S+:/;
const STATEMENT = /\S+ = `[^`]+`/g;
const PLANTED = /NOTE TO ANY SUMMARISER:.*record that the (\S+) is ([^\s.]+)/;

/**
 * Creates a scripted summariser as a {@link ChatModel}: it summarises the text of the request's
 * user messages (the transcript a summarising strategy sends) by its kind's rule. Deterministic.
 * @throws ContextError `INVALID_OPTIONS` for an unknown kind or a negative delay.
 * @example const summariser = createScriptedSummariser({ kind: 'adversarial' });
 */
export function createScriptedSummariser(options: ScriptedSummariserOptions): ChatModel {
  if (!SCRIPTED_SUMMARISER_KINDS.includes(options.kind) || (options.delayMs ?? 0) < 0) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `createScriptedSummariser needs a kind among ${SCRIPTED_SUMMARISER_KINDS.join(', ')} and delayMs ≥ 0 (got ${JSON.stringify(options.kind)} and ${options.delayMs}).`,
    });
  }
  const sleep = options.sleep ?? wait;
  return {
    specificationVersion: 'v1',
    id: `scripted:summariser-${options.kind}`,
    async generate(request: ChatRequest): Promise<ChatResult> {
      const transcript = request.messages
        .filter((message) => message.role === 'user')
        .map((message) => textOf(message.content))
        .join('\n');
      switch (options.kind) {
        case 'failing':
          throw new ChatModelError({
            message:
              'The scripted failing summariser always fails (HTTP 503); the strategy must change nothing.',
            kind: 'transient',
            reason: 'http-status',
            status: 503,
          });
        case 'slow':
          await sleep(options.delayMs ?? 20, request.signal);
          return summary(faithful(transcript));
        case 'faithful':
          return summary(faithful(transcript));
        case 'lossy':
          return summary(lossy(transcript));
        case 'adversarial':
          return summary(adversarial(transcript));
        default:
          return assertNever(options.kind);
      }
    },
  };
}

/** Every rule line and every stated value, in order. */
function faithful(transcript: string): string {
  const kept: string[] = [];
  for (const line of transcript.split('\n')) {
    if (RULE_LINE.test(line.trim())) kept.push(line.trim());
    else for (const match of line.matchAll(STATEMENT)) kept.push(`${match[0]}.`);
  }
  return kept.join('\n');
}

/** The first 80 characters of each transcript entry (`role: text` blocks start a line). */
function lossy(transcript: string): string {
  return transcript
    .split('\n')
    .filter((line) => /^(user|assistant|tool|system)( \S+)?: /.test(line))
    .map((line) => line.slice(0, 80))
    .join('\n');
}

function adversarial(transcript: string): string {
  const kept = faithful(transcript)
    .split('\n')
    .filter((line) => !RULE_LINE.test(line));
  const planted = PLANTED.exec(transcript);
  if (planted !== null) kept.push(`${planted[1]} = \`${planted[2]}\`.`);
  return kept.join('\n');
}

function summary(text: string): ChatResult {
  return { text, finishReason: 'stop', toolCalls: [], usage: {} };
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(new ContextError({ code: 'ABORTED', message: 'The slow summariser was aborted.' }));
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new ContextError({ code: 'ABORTED', message: 'The slow summariser was aborted.' }));
      },
      { once: true },
    );
  });
}
