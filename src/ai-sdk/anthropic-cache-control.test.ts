import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { ContextGovernor } from '../filters/context-governor.js';
import { createPrepareStep } from './create-prepare-step.js';
import { ctxloomMiddleware } from './ctxloom-middleware.js';

type Body = {
  readonly system?: readonly { readonly cache_control?: unknown }[];
  readonly tools?: readonly { readonly cache_control?: unknown }[];
  readonly messages: readonly {
    readonly role: string;
    readonly content: readonly { readonly type: string; readonly cache_control?: unknown }[];
  }[];
};

/** The real Anthropic provider over a fake fetch: records each request body and answers with a tool call, then text. */
function recordingAnthropic(toolSteps: number) {
  const bodies: Body[] = [];
  const fetch = async (_url: unknown, init?: { readonly body?: unknown }): Promise<Response> => {
    bodies.push(JSON.parse(String(init?.body)) as Body);
    const step = bodies.length;
    const content =
      step <= toolSteps
        ? [{ type: 'tool_use', id: `call_${step}`, name: 'read_file', input: { path: `file-${step}.ts` } }]
        : [{ type: 'text', text: 'done' }];
    return new Response(
      JSON.stringify({
        id: `msg_${step}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content,
        stop_reason: step <= toolSteps ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: {
          input_tokens: 10,
          output_tokens: 5,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
      }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    );
  };
  return { bodies, model: createAnthropic({ apiKey: 'test', fetch })('claude-sonnet-4-5') };
}

const tools = {
  read_file: tool({
    description: 'Reads a file.',
    inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
    execute: async ({ path }) => `contents of ${path}: ${'const x = 1;\n'.repeat(300)}`,
  }),
};
const system = `You are a careful coding agent. ${'Follow the repository rules. '.repeat(400)}`;

/** Where the request carries cache_control: `system`, `tools`, or `message <i> part <j>`. */
function markers(body: Body): string[] {
  const found: string[] = [];
  for (const [index, entry] of (body.tools ?? []).entries())
    if (entry.cache_control !== undefined) found.push(`tool ${index}`);
  for (const [index, entry] of (body.system ?? []).entries())
    if (entry.cache_control !== undefined) found.push(`system ${index}`);
  for (const [index, message] of body.messages.entries())
    for (const [partIndex, part] of message.content.entries())
      if (part.cache_control !== undefined) found.push(`message ${index} part ${partIndex}`);
  return found;
}

describe('Anthropic cacheControl from the AI SDK integration', () => {
  it('createPrepareStep marks the previous request end and the tail on every step of a tool loop', async () => {
    const { bodies, model } = recordingAnthropic(3);
    await generateText({
      model,
      tools,
      system,
      prompt: 'Read the three files and summarise them.',
      stopWhen: stepCountIs(6),
      prepareStep: createPrepareStep(
        { governor: new ContextGovernor({ contextWindowTokens: 200_000 }) },
        { tools, system, cache: 'auto' },
      ),
    });
    expect(bodies).toHaveLength(4);
    for (const body of bodies) expect(markers(body).length).toBeLessThanOrEqual(4);
    const last = (body: Body) =>
      `message ${body.messages.length - 1} part ${(body.messages.at(-1)?.content.length ?? 1) - 1}`;
    expect(markers(bodies[0] as Body)).toEqual([last(bodies[0] as Body)]);
    // Each request marks its own tail and keeps the previous request's tail (its read anchor).
    for (let index = 1; index < bodies.length; index += 1) {
      const body = bodies[index] as Body;
      expect(markers(body)).toContain(last(body));
      expect(markers(body)).toContain(last(bodies[index - 1] as Body));
    }
  });

  it('the middleware also marks the system prompt and the last tool', async () => {
    const { bodies, model } = recordingAnthropic(1);
    await generateText({
      model: wrapLanguageModel({
        model,
        middleware: ctxloomMiddleware({ governor: new ContextGovernor() }, { cache: 'auto' }),
      }),
      tools,
      system,
      prompt: 'Read one file.',
      stopWhen: stepCountIs(3),
    });
    expect(bodies).toHaveLength(2);
    const second = markers(bodies[1] as Body);
    expect(second).toContain('system 0');
    expect(second).toHaveLength(3);
    expect(markers(bodies[0] as Body)).toContain('system 0');
  });

  it('adds no marker by default', async () => {
    const { bodies, model } = recordingAnthropic(1);
    await generateText({
      model,
      tools,
      system,
      prompt: 'Read one file.',
      stopWhen: stepCountIs(3),
      prepareStep: createPrepareStep({ governor: new ContextGovernor() }, { tools, system }),
    });
    expect(bodies.flatMap(markers)).toEqual([]);
  });
});
