import type { AdapterWarning } from '../adapters/adapter-warning.js';
import { isToolError } from '../adapters/tool-error.js';
import type { JsonObject } from '../core/json.js';
import type { Message, ToolOutputType } from '../core/message.js';
import type { AiSdkDialect, AiSdkPartLike } from './ai-sdk-message-like.js';
import { type AiSdkNative, aiSdkNativeOf, providerOptionsEntry } from './ai-sdk-native.js';
import type { AiSdkOrigin } from './ai-sdk-origins.js';
import { providerValue } from './write-ai-sdk-parts.js';
import { writeToolOutputItem } from './write-tool-output-item.js';

/** What {@link writeToolResult} needs besides the message. */
export type WriteToolResultRun = {
  readonly index: number;
  readonly warnings: AdapterWarning[];
  readonly dialect: AiSdkDialect;
  /** The name of each call declared so far, by call id. */
  readonly callNames: ReadonlyMap<string, string>;
  /** ctxloom parts → the AI SDK items they were read from. */
  readonly parts: ReadonlyMap<object, AiSdkPartLike> | undefined;
  /** Where the message came from, when it was read from the AI SDK. */
  readonly origin: AiSdkOrigin | undefined;
};

/**
 * Writes a ctxloom tool message as a part of an AI SDK tool message, from its data: a `tool-result`
 * whose output has the message's `output` type (`json`/`error-json` parse its content back, and are
 * sent as `text`/`error-text`, with a warning, when a stage changed it into something that no longer
 * parses), its provider options and native fields; a message that holds another part of a tool
 * message (an approval response) as that part. The original part when the message is the one read.
 * The tool name is always the call's (`''` never goes out when the call's name is known).
 */
export function writeToolResult(message: Message, run: WriteToolResultRun): AiSdkPartLike | undefined {
  const native = aiSdkNativeOf(message);
  const first = typeof message.content === 'string' ? undefined : message.content[0];
  if (native.toolPart === true && first?.type === 'provider') return providerValue(first, run);
  const source = run.origin?.part;
  const toolCallId = message.toolCallId ?? '';
  const known = run.callNames.get(toolCallId);
  const sourceName = typeof source?.['toolName'] === 'string' ? source['toolName'] : undefined;
  const toolName = known ?? message.name ?? sourceName ?? '';
  const isSame = source !== undefined && run.origin?.message === message;
  if (isSame && toolName === sourceName) return source;
  if (isSame && sourceName !== toolName) {
    run.warnings.push({
      type: 'repaired',
      index: run.index,
      message: `tool result ${toolCallId} sent with the call's tool name ${JSON.stringify(toolName)} (was ${JSON.stringify(sourceName)})`,
    });
  }
  return {
    ...native.fields,
    type: 'tool-result',
    toolCallId,
    toolName,
    output: writeOutput(message, { ...run, native }),
    ...providerOptionsEntry(message.providerOptions),
  };
}

function writeOutput(
  message: Message,
  run: WriteToolResultRun & { readonly native: AiSdkNative },
): Readonly<Record<string, unknown>> {
  const { native } = run;
  const fields: JsonObject = native.outputFields ?? {};
  const declared: ToolOutputType = message.output ?? (isToolError(message) ? 'error-text' : 'text');
  if (native.rawOutput !== undefined && message.output === undefined && message.content === '')
    return native.rawOutput;
  if (typeof message.content !== 'string') {
    const items = message.content.flatMap((part) => {
      const known = run.parts?.get(part);
      const item = known ?? writeToolOutputItem(part, run);
      return item === undefined ? [] : [item];
    });
    return { ...fields, type: 'content', value: items };
  }
  const content = message.content;
  switch (declared) {
    case 'text':
    case 'error-text':
      return { ...fields, type: declared, value: content };
    case 'json':
    case 'error-json':
      return jsonOutput(content, { ...run, type: declared, fields, toolCallId: message.toolCallId ?? '' });
    case 'execution-denied':
      return {
        ...fields,
        type: declared,
        ...(native.deniedWithoutReason === true && content === '' ? {} : { reason: content }),
      };
    case 'content':
      return { ...fields, type: 'content', value: content === '' ? [] : [{ type: 'text', text: content }] };
  }
}

function jsonOutput(
  content: string,
  run: WriteToolResultRun & {
    readonly type: 'json' | 'error-json';
    readonly fields: JsonObject;
    readonly toolCallId: string;
  },
): Readonly<Record<string, unknown>> {
  try {
    return { ...run.fields, type: run.type, value: JSON.parse(content) };
  } catch {
    const type = run.type === 'json' ? 'text' : 'error-text';
    run.warnings.push({
      type: 'converted',
      index: run.index,
      message: `${run.type} tool output of ${run.toolCallId} sent as ${type}: its content (changed by a stage) is no longer JSON`,
    });
    return { ...run.fields, type, value: content };
  }
}
