import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { TraceWarning } from './build-trace.js';

/** The request a {@link BuildCheck} looks at: what the build is about to return. */
export type BuildCheckRequest = {
  /** The final messages. */
  readonly messages: readonly Message[];
  /** The tool definitions sent with them. */
  readonly tools: readonly ToolDefinition[];
  /** `BuildInput.sessionKey`, when given. */
  readonly sessionKey?: string;
};

/**
 * Looks at every request a pipeline builds, changes nothing, and reports what the caller should know
 * as the trace's `warnings` (e.g. `VolatileContentCheck` from `ctxloom/cache`). Synchronous and run
 * on every build, so keep it cheap when nothing changed. Pass checks as the pipeline's `checks`.
 */
export interface BuildCheck {
  readonly specificationVersion: 'v1';
  /** A stable kebab-case id; it is each warning's `check`. */
  readonly id: string;
  /** The warnings for this request (empty when all is well). */
  check(request: BuildCheckRequest): readonly TraceWarning[];
}
