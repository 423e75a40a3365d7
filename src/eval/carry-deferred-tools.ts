import { carryLoadedTools, visibleLoadedTools } from '../context-tools/carry-loaded-tools.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import type { EvalCallInput, EvalStrategySetup } from './eval-strategy.js';

/**
 * A ctxloom strategy's request with the session's loaded deferred tools kept loaded
 * (`carryLoadedTools`), when the run has deferred tools; the request itself otherwise. The loaded
 * tools are those the raw session loaded (its history and the turn so far), what `saveLoadedTools`
 * would have stored.
 */
export function carryDeferredTools(
  messages: readonly Message[],
  run: {
    readonly setup: EvalStrategySetup;
    readonly call: EvalCallInput;
    readonly records?: readonly CompactionRecord[];
  },
): readonly Message[] {
  const deferred = run.setup.deferredTools;
  if (deferred === undefined) return messages;
  const loaded = [...visibleLoadedTools([...run.call.history, ...run.call.inflight])];
  return carryLoadedTools(messages, {
    registry: deferred.registry,
    mechanism: deferred.mechanism,
    loaded,
    ...(run.records === undefined ? {} : { records: run.records }),
  });
}
