import { renderSessionNotes } from '../core/session-notes.js';
import { sessionView } from '../core/session-view.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { sessionCompactions } from '../sessions/session-compactions.js';
import { sessionNotesOf } from '../sessions/session-notes-of.js';
import type { ResolvedContextTools } from './resolved-context-tools.js';

/** How full the context is. */
export type ContextUsage = {
  /** Tokens the context takes now. */
  readonly usedTokens: number;
  /** The model's context window. */
  readonly contextWindowTokens: number;
  /** Tokens reserved for the answer. */
  readonly maxOutputTokens: number;
  /** Tokens left for the prompt: window − reserve − used (never below 0). */
  readonly leftTokens: number;
  /** Where automatic compaction starts, when configured. */
  readonly autoCompactTokens?: number;
  /** Whether `usedTokens` was reported by the caller (`usedTokens` option) or counted from the session. */
  readonly source: 'reported' | 'counted';
};

/** The usage now: reported by the caller, or the session's view plus notes and tools, counted. @internal */
export async function measureContextUsage(
  resolved: ResolvedContextTools,
  definitions: readonly ToolDefinition[],
): Promise<ContextUsage> {
  const { options, tokenCounter } = resolved;
  let used: number;
  let source: ContextUsage['source'];
  if (options.usedTokens === undefined) {
    const session = await options.store.load(options.sessionKey);
    const view = sessionView(session.messages, sessionCompactions(session));
    const notes = sessionNotesOf(session);
    used =
      tokenCounter.countMessages(view) +
      (notes === undefined ? 0 : tokenCounter.countText(renderSessionNotes(notes))) +
      tokenCounter.countText(JSON.stringify(definitions));
    source = 'counted';
  } else {
    used = await options.usedTokens();
    source = 'reported';
  }
  const usable = resolved.contextWindowTokens - resolved.maxOutputTokens;
  return {
    usedTokens: used,
    contextWindowTokens: resolved.contextWindowTokens,
    maxOutputTokens: resolved.maxOutputTokens,
    leftTokens: Math.max(0, usable - used),
    ...(options.autoCompactTokens === undefined ? {} : { autoCompactTokens: options.autoCompactTokens }),
    source,
  };
}

/** The usage as the text `context_remaining` answers. @internal */
export function renderContextUsage(usage: ContextUsage): string {
  const usable = usage.contextWindowTokens - usage.maxOutputTokens;
  const share = usable > 0 ? Math.round((usage.usedTokens / usable) * 100) : 100;
  const lines = [
    `Context: ${usage.usedTokens} tokens used of ${usable} usable (${share}%; window ${usage.contextWindowTokens}, ${usage.maxOutputTokens} reserved for the answer), ${usage.leftTokens} left.`,
  ];
  if (usage.autoCompactTokens !== undefined) {
    const until = usage.autoCompactTokens - usage.usedTokens;
    lines.push(
      until > 0
        ? `Automatic compaction starts at ${usage.autoCompactTokens} tokens (${until} from now).`
        : `Automatic compaction starts at ${usage.autoCompactTokens} tokens: it is due now.`,
    );
  } else lines.push('No automatic compaction is configured.');
  return lines.join('\n');
}
