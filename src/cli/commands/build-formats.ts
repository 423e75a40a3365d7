import { toAiSdkMessages } from '../../ai-sdk/index.js';
import { textOf } from '../../core/index.js';
import { AdapterError, type Message, toAnthropicMessages, toOpenAIChatMessages } from '../../index.js';

/** What a format row returns: the value (`--json`), its text and what the format could not express. */
export type Rendered = {
  readonly value: unknown;
  readonly text: string;
  readonly warnings: readonly string[];
};

function asJson(value: unknown, warnings: readonly unknown[] = []): Rendered {
  return {
    value,
    text: `${JSON.stringify(value, null, 2)}\n`,
    warnings: warnings.map((warning) => JSON.stringify(warning)),
  };
}

/** `--format` values: one row per output format; each renders the built messages. */
export const BUILD_FORMATS: Readonly<Record<string, (messages: readonly Message[]) => Rendered>> = {
  json: (messages) => asJson(messages),
  openai: (messages) => {
    const result = toOpenAIChatMessages(messages);
    return asJson(result.messages, result.warnings);
  },
  anthropic: (messages) => {
    const result = toAnthropicMessages(messages);
    const request = {
      ...(result.system === undefined ? {} : { system: result.system }),
      messages: result.messages,
    };
    return asJson(request, result.warnings);
  },
  'ai-sdk': (messages) => {
    const result = toAiSdkMessages(messages, { carryMetadata: false });
    return asJson(result.messages, result.warnings);
  },
  text: (messages) => {
    const text = renderText(messages);
    return { value: text, text, warnings: [] };
  },
};

/**
 * The messages in the format; with `strict`, a format that cannot carry everything is an error.
 * @throws AdapterError `ADAPTER_UNSUPPORTED` (exit 5) with `strict` and any warning.
 */
export function renderBuildFormat(
  formatName: string,
  messages: readonly Message[],
  strict: boolean,
): Rendered {
  const rendered = BUILD_FORMATS[formatName]?.(messages) ?? { value: [], text: '', warnings: [] };
  if (!strict || rendered.warnings.length === 0) return rendered;
  throw new AdapterError({
    format: formatName,
    feature: 'lossless',
    message: `--format ${formatName} cannot carry everything in this context (${rendered.warnings.join('; ')}); drop --strict-format to print it anyway with these warnings on stderr, or pick another --format.`,
  });
}

function renderText(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      const section = message.metadata?.['section'];
      const calls = (message.toolCalls ?? []).map(
        (call) => `\n  -> ${call.name}(${call.arguments}) [${call.id}]`,
      );
      const reply = message.toolCallId === undefined ? '' : ` (result of ${message.toolCallId})`;
      return `--- ${message.role} [${String(section ?? 'unknown')}]${reply}\n${textOf(message.content)}${calls.join('')}\n`;
    })
    .join('\n');
}
