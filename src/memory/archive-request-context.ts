import { ContextError } from '../core/errors.js';
import { user } from '../core/factories.js';
import type { SessionRecord } from '../sessions/session-store.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { DEFAULT_ARCHIVE_INSTRUCTION } from './archive-instruction.js';
import { consolidatorSystemMessage } from './consolidator-system-message.js';
import { consolidationBudget, type MemoryConsolidatorOptions } from './memory-consolidator-options.js';
import type { ArchiveRequestContext } from './plan-archive-request.js';

/**
 * What the archive requests of a session share; throws when even an empty chunk cannot fit.
 * @throws ContextError `INVALID_OPTIONS` when the system prompt, tools and instruction alone exceed the budget
 */
export async function archiveRequestContext(
  record: SessionRecord,
  consolidator: { readonly options: MemoryConsolidatorOptions; readonly counter: TokenCounter },
): Promise<ArchiveRequestContext> {
  const context: ArchiveRequestContext = {
    messages: record.messages,
    start: record.lastConsolidated,
    system: await consolidatorSystemMessage(record, consolidator.options),
    tools: consolidator.options.tools ?? [],
    instruction: consolidator.options.archiveInstruction ?? DEFAULT_ARCHIVE_INSTRUCTION,
    budget: consolidationBudget(consolidator.options),
    counter: consolidator.counter,
  };
  const systemTokens = consolidator.counter.countMessage(context.system);
  const toolTokens = consolidator.counter.countTools(context.tools);
  const instructionTokens = consolidator.counter.countMessage(user(context.instruction));
  const fixed = systemTokens + toolTokens + instructionTokens;
  if (fixed >= context.budget) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `An archive request for ${record.key} needs ${fixed} tokens before any message (system prompt ${systemTokens}, tools ${toolTokens}, instruction ${instructionTokens}), but the budget is ${context.budget} (contextWindowTokens ${consolidator.options.contextWindowTokens} − maxOutputTokens ${consolidator.options.maxOutputTokens} − 1024). Raise contextWindowTokens (CLI --context-window) or shorten the system prompt. Nothing was archived.`,
    });
  }
  return context;
}
