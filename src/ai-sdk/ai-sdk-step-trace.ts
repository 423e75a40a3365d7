import type { AdapterWarning } from '../adapters/adapter-warning.js';
import type { Message } from '../core/message.js';
import type { BuildTrace } from '../pipeline/build-trace.js';

/**
 * One governed AI SDK call, as reported to `onStep` by `createPrepareStep` and `ctxloomMiddleware`
 * (what a request recorder or a tracing exporter needs).
 */
export type AiSdkStepTrace<TSent> = {
  /** Which integration governed the call. */
  readonly via: 'prepare-step' | 'middleware';
  /** Groups the steps of one run (one `generateText`/`streamText` call or agent run). */
  readonly runId: string;
  /** The step within the run, from 0. */
  readonly stepNumber: number;
  /** What is sent to the model: `ModelMessage`s (prepareStep) or the provider prompt (middleware). */
  readonly sent: readonly TSent[];
  /** The governed messages in ctxloom form (the counted system prompt left out). */
  readonly messages: readonly Message[];
  readonly trace: BuildTrace;
  /** Conversion warnings in both directions: what was repaired, converted or left out. */
  readonly warnings: readonly AdapterWarning[];
  /** False when nothing changed and the caller's own messages were sent. */
  readonly changed: boolean;
};
