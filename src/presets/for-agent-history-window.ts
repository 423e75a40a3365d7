import type { Message } from '../core/message.js';
import { GovernedFloor } from '../filters/governed-floor.js';
import { DEFAULT_OFFLOAD_EXEMPT_TOOLS } from '../filters/governor-constants.js';
import { GOVERNOR_STATE_KEY } from '../filters/governor-run-state.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider, ProviderResult } from '../pipeline/contracts.js';
import { HistoryWindow } from './history-window.js';

/** Options for {@link AgentHistoryWindow}. */
export type AgentHistoryWindowOptions = {
  /** The governor's input budget in tokens; 0 turns the window off (the whole history is emitted). */
  readonly budgetTokens: number;
  /** Assistant texts the governor strips as placeholders (they cost nothing in the window walk). */
  readonly placeholderTexts: readonly string[];
  /** Characters a tool result may have before the governor offloads or truncates it. */
  readonly maxToolResultChars: number;
  /** Tools whose results the governor never offloads or truncates (sent as they are). @default ['read_file'] */
  readonly exemptTools?: readonly string[];
  /**
   * What the governor sends for an oversized tool result it rewrote in an earlier build (its offload
   * reference), if it did: such a result costs at least that, not 0. @default none (they cost 0)
   */
  readonly rewrittenBefore?: (message: Message, input: BuildInput) => Message | undefined;
};

/**
 * The agent preset's history provider: a {@link HistoryWindow} whose floors are what the context
 * governor sends at least (`GovernedFloor`): exact tokens for user messages, assistant answers whose
 * tool calls are all sendable, and tool results that answer their assistant and are not over the
 * size limit (or belong to an exempt tool such as `read_file`); for an oversized result the governor
 * offloaded in an earlier build, the exact tokens of its reference (what is sent, never its text); 0
 * for what the governor may shrink or drop. It leaves out the oldest messages the governor is certain
 * to snip, and gives the whole history to a build with tool-loop state in its input (in-flight
 * compaction works by position).
 *
 * What it leaves out may depend on what the builder learnt, never the messages sent: a warm builder
 * prices a result it saw offloaded at its reference where a fresh one prices it at 0, so it may
 * leave out more messages (its trace's left-out count and stage sizes differ; the governor would
 * have snipped those messages anyway).
 */
export class AgentHistoryWindow implements MessageProvider {
  readonly specificationVersion = 'v1' as const;
  readonly id = 'history';
  readonly #window: HistoryWindow;

  constructor(options: AgentHistoryWindowOptions) {
    const governed = new GovernedFloor({
      placeholderTexts: options.placeholderTexts,
      maxToolResultChars: options.maxToolResultChars,
      exemptTools: options.exemptTools ?? DEFAULT_OFFLOAD_EXEMPT_TOOLS,
    });
    const { rewrittenBefore } = options;
    this.#window = new HistoryWindow({
      budget: options.budgetTokens,
      droppedBy: 'the governor would snip them',
      floor: (history, at) =>
        governed.tokens(history, {
          index: at.index,
          counter: at.counter,
          rewrittenBefore: (message) => rewrittenBefore?.(at.tag(message), at.input),
        }),
      isOff: (input) => input.state?.[GOVERNOR_STATE_KEY] !== undefined,
    });
  }

  getMessages(input: BuildInput, context: BuildContext): ProviderResult {
    return this.#window.getMessages(input, context);
  }
}
