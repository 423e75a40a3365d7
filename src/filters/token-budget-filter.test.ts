import { describe, expect, it } from 'vitest';
import { BudgetUnsatisfiableError, ContextError } from '../core/errors.js';
import { assistant, system, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { ContextPipeline } from '../pipeline/context-pipeline.js';
import { catchError } from '../testing/catch-error.js';
import { createTestBuildContext } from '../testing/test-build-context.js';
import { CachedTokenCounter } from '../tokens/cached-token-counter.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { TiktokenTokenCounter } from '../tokens/tiktoken-token-counter.js';
import { MaxMessagesFilter } from './max-messages-filter.js';
import { SanitizeToolCallsFilter } from './sanitize-tool-calls-filter.js';
import { TokenBudgetFilter } from './token-budget-filter.js';

/** One token per character, no overhead: costs are easy to read off the texts. */
const counter = new SimpleTokenCounter({ charsPerToken: 1, messageOverheadTokens: 0 });
const context = createTestBuildContext({ tokenCounter: counter });
const ids = (messages: readonly Message[]): readonly string[] => messages.map((message) => message.id);
const text = (length: number): string => 'x'.repeat(length);

const history = [
  system(text(10), { id: 's' }),
  user(text(10), { id: 'u1' }),
  assistant(text(10), { id: 'a1' }),
  user(text(10), { id: 'u2' }),
  assistant(text(10), { id: 'a2' }),
  user(text(10), { id: 'u3' }),
];

describe('TokenBudgetFilter', () => {
  it('returns the same array when everything fits', () => {
    const result = new TokenBudgetFilter({ maxTokens: 60 }).apply(history, {}, context);
    expect(result.messages).toBe(history);
    expect(result.decisions).toEqual([]);
  });

  it("keeps a provider's compaction block after the system prefix: it stands for everything before it", () => {
    const block: Message = {
      id: 'pc-summary',
      role: 'assistant',
      content: [
        {
          type: 'provider',
          format: 'anthropic',
          kind: 'compaction',
          value: { type: 'compaction', content: text(10), encrypted_content: 'e', signature: 's' },
        },
      ],
      metadata: { compactionId: 'pc' },
    };
    const [first, ...rest] = history;
    const withBlock = [first as Message, block, ...rest];
    const { messages } = new TokenBudgetFilter({ maxTokens: 45 }).apply(withBlock, {}, context);
    expect(ids(messages).slice(0, 2)).toEqual(['s', 'pc-summary']);
    expect(ids(messages).at(-1)).toBe('u3');
  });

  it('removes the oldest messages first and keeps the pinned prefix and the current message', () => {
    const { messages, decisions } = new TokenBudgetFilter({ maxTokens: 45 }).apply(history, {}, context);
    expect(ids(messages)).toEqual(['s', 'u2', 'a2', 'u3']);
    expect(decisions).toEqual([
      expect.objectContaining({
        type: 'message-drop',
        stage: 'token-budget',
        messageIds: [],
        messageRange: { firstId: 'u1', lastId: 'a1', count: 2 },
        tokensAfter: 40,
      }),
    ]);
  });

  it('removes the newest messages first with trimFromStart false, still keeping the current message', () => {
    const filter = new TokenBudgetFilter({ maxTokens: 45, trimFromStart: false });
    const { messages, decisions } = filter.apply(history, {}, context);
    expect(ids(messages)).toEqual(['s', 'u1', 'a1', 'u3']);
    expect(decisions[0]?.messageRange).toEqual({ firstId: 'u2', lastId: 'a2', count: 2 });
  });

  it('counts the tool schemas against the budget', () => {
    const tools: readonly ToolDefinition[] = [{ name: 'exec', description: 'Run a shell command.' }];
    const toolTokens = counter.countTools(tools);
    const { messages } = new TokenBudgetFilter({ maxTokens: 40 + toolTokens }).apply(
      history,
      { tools },
      context,
    );
    expect(ids(messages)).toEqual(['s', 'u2', 'a2', 'u3']);
    const without = new TokenBudgetFilter({ maxTokens: 40 + toolTokens }).apply(history, {}, context);
    expect(toolTokens).toBeGreaterThan(20);
    expect(without.messages).toBe(history);
    expect(counter.countMessages(messages)).toBeLessThanOrEqual(40);
    expect(counter.countMessages(history)).toBeGreaterThan(40);
  });

  it('counts the per-message overhead', () => {
    const withOverhead = new SimpleTokenCounter({ charsPerToken: 1, messageOverheadTokens: 4 });
    const filter = new TokenBudgetFilter({ maxTokens: 55, tokenCounter: withOverhead });
    const { messages } = filter.apply(history, {}, context);
    expect(ids(messages)).toEqual(['s', 'a2', 'u3']);
    expect(withOverhead.countMessages(messages)).toBe(42);
  });

  it('drops a transaction whole: a call is never kept without its results', () => {
    const input = [
      system(text(5), { id: 's' }),
      assistant('', {
        id: 'call',
        toolCalls: [
          { id: 'c1', name: 'exec', arguments: '{}' },
          { id: 'c2', name: 'exec', arguments: '{}' },
        ],
      }),
      tool(text(20), { id: 'r1', toolCallId: 'c1', name: 'exec' }),
      tool(text(20), { id: 'r2', toolCallId: 'c2', name: 'exec' }),
      user(text(5), { id: 'u' }),
    ];
    const transactionTokens = counter.countMessages(input.slice(1, 4));
    const tight = new TokenBudgetFilter({ maxTokens: 10 + transactionTokens - 1 }).apply(input, {}, context);
    expect(ids(tight.messages)).toEqual(['s', 'u']);
    expect(tight.decisions[0]?.messageRange).toEqual({ firstId: 'call', lastId: 'r2', count: 3 });
    const roomy = new TokenBudgetFilter({ maxTokens: 10 + transactionTokens }).apply(input, {}, context);
    expect(roomy.messages).toBe(input);
  });

  it('stops at the first unit that does not fit instead of skipping over it', () => {
    const input = [
      user(text(2), { id: 'small-old' }),
      assistant(text(50), { id: 'big' }),
      user(text(2), { id: 'now' }),
    ];
    const { messages } = new TokenBudgetFilter({ maxTokens: 10 }).apply(input, {}, context);
    expect(ids(messages)).toEqual(['now']);
  });

  it('throws BUDGET_UNSATISFIABLE naming the pinned size, tool tokens and budget', () => {
    const tools: readonly ToolDefinition[] = [{ name: 'exec' }];
    const toolTokens = counter.countTools(tools);
    const error = catchError(() =>
      new TokenBudgetFilter({ maxTokens: 12 }).apply(history, { tools }, context),
    );
    expect(error).toBeInstanceOf(BudgetUnsatisfiableError);
    expect(ContextError.isInstance(error) && error.code).toBe('BUDGET_UNSATISFIABLE');
    expect(error).toMatchObject({ budget: 12, pinnedTokens: 10, required: 10 + toolTokens });
    expect(String((error as Error).message)).toContain(
      `pinned messages need 10 tokens, the tool schemas ${toolTokens}`,
    );
    expect(String((error as Error).message)).toContain('maxTokens is 12; raise maxTokens');
  });

  it('throws when the current user message alone does not fit (it is never dropped)', () => {
    const input = [
      system(text(10), { id: 's' }),
      user(text(5), { id: 'old' }),
      user(text(40), { id: 'now' }),
    ];
    const error = catchError(() => new TokenBudgetFilter({ maxTokens: 30 }).apply(input, {}, context));
    expect(error).toMatchObject({ code: 'BUDGET_UNSATISFIABLE', budget: 30, required: 50, pinnedTokens: 10 });
    expect(String((error as Error).message)).toContain('the current user message 40');
  });

  it('uses the builder counter when none is given', async () => {
    const pipeline = new ContextPipeline({
      filters: [new TokenBudgetFilter({ maxTokens: 45 })],
      tokenCounter: counter,
    });
    const { messages } = await pipeline.transform(history);
    expect(ids(messages)).toEqual(['s', 'u2', 'a2', 'u3']);
  });

  it('counts only the kept messages plus one: O(kept), not the whole history', () => {
    const long: Message[] = [system('s', { id: 's' })];
    for (let index = 0; index < 1000; index += 1) long.push(user(text(10), { id: `m${index}` }));
    const counting = new CountingCounter();
    const { messages } = new TokenBudgetFilter({ maxTokens: 101, tokenCounter: counting }).apply(
      long,
      {},
      context,
    );
    expect(messages).toHaveLength(11);
    expect(counting.calls).toBeLessThanOrEqual(messages.length + 2);
  });

  it('gives the same result with a cached counter, and a warm second run counts nothing new', () => {
    const cached = new CachedTokenCounter({ counter });
    const filter = new TokenBudgetFilter({ maxTokens: 45, tokenCounter: cached });
    const first = filter.apply(history, {}, context);
    const misses = cached.stats.misses;
    const second = filter.apply(history, {}, context);
    expect(ids(second.messages)).toEqual(ids(first.messages));
    expect(cached.stats.misses).toBe(misses);
  });

  it('fits a whole build, tool schemas included, with the exact counter in a pipeline', async () => {
    const tokenCounter = await TiktokenTokenCounter.create({ model: 'gpt-4o' });
    const tools: readonly ToolDefinition[] = [
      { name: 'read_file', description: 'Read a workspace file.', parameters: { type: 'object' } },
    ];
    const long: Message[] = [system('You are a careful assistant.', { id: 'persona' })];
    for (let turn = 0; turn < 40; turn += 1) {
      long.push(user(`Question ${turn}: what does file ${turn} say?`, { id: `u${turn}` }));
      long.push(
        assistant('', {
          id: `c${turn}`,
          toolCalls: [{ id: `call${turn}`, name: 'read_file', arguments: { path: `f${turn}` } }],
        }),
      );
      long.push(
        tool(`File ${turn} says: ${'lorem ipsum '.repeat(20)}`, {
          id: `r${turn}`,
          toolCallId: `call${turn}`,
          name: 'read_file',
        }),
      );
      long.push(assistant(`It says lorem ipsum, ${turn}.`, { id: `a${turn}` }));
    }
    long.push(user('And the last one?', { id: 'now' }));
    const pipeline = new ContextPipeline({
      tokenCounter,
      filters: [
        new SanitizeToolCallsFilter(),
        new MaxMessagesFilter({ maxMessages: 60 }),
        new TokenBudgetFilter({ maxTokens: 1500 }),
      ],
      debug: true,
    });
    const { messages, trace } = await pipeline.transform(long, { tools });
    expect(trace.totalTokens).toBeLessThanOrEqual(1500);
    expect(trace.totalTokens).toBe(tokenCounter.countMessages(messages) + tokenCounter.countTools(tools));
    expect(trace.stages.map((stage) => stage.id)).toEqual([
      'sanitize-tool-calls',
      'max-messages',
      'token-budget',
    ]);
    expect(trace.stages.every((stage) => stage.violations === undefined)).toBe(true);
    expect(messages[0]?.id).toBe('persona');
    expect(messages.at(-1)?.id).toBe('now');
  });

  it('rejects a negative or non-finite maxTokens', () => {
    for (const maxTokens of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new TokenBudgetFilter({ maxTokens })).toThrow(/maxTokens must be a finite number/);
    }
  });
});

class CountingCounter extends SimpleTokenCounter {
  calls = 0;
  constructor() {
    super({ charsPerToken: 1, messageOverheadTokens: 0 });
  }
  override countMessage(message: Message): number {
    this.calls += 1;
    return super.countMessage(message);
  }
}
