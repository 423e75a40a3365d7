import type { AdapterWarning } from '../adapters/adapter-warning.js';
import { isToolError } from '../adapters/tool-error.js';
import type { Message } from '../core/message.js';
import type { AiSdkDialect, AiSdkPartLike } from './ai-sdk-message-like.js';
import type { AiSdkOrigin } from './ai-sdk-origins.js';
import { writeToolOutputItem } from './write-ai-sdk-parts.js';

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
 * Writes a ctxloom tool message as a `tool-result` part. Read from the AI SDK and unchanged: the
 * original part. Changed: the original part with only the call id, the tool name and (when the
 * content changed) the output replaced, keeping the output type where the new content fits it.
 * The tool name is always the call's (`''` never goes out when the call's name is known).
 */
export function writeToolResult(message: Message, run: WriteToolResultRun): AiSdkPartLike {
  const source = run.origin?.part;
  const toolCallId = message.toolCallId ?? '';
  const known = run.callNames.get(toolCallId);
  const sourceName = typeof source?.['toolName'] === 'string' ? source['toolName'] : undefined;
  const toolName = known ?? message.name ?? sourceName ?? '';
  const isSame = run.origin?.message === message;
  if (source !== undefined && isSame && toolName === sourceName) return source;
  if (source !== undefined && isSame && sourceName !== toolName) {
    run.warnings.push({
      type: 'repaired',
      index: run.index,
      message: `tool result ${toolCallId} sent with the call's tool name ${JSON.stringify(toolName)} (was ${JSON.stringify(sourceName)})`,
    });
  }
  const sameContent = run.origin !== undefined && run.origin.message.content === message.content;
  const output =
    source !== undefined && sameContent
      ? source['output']
      : writeOutput(message, { ...run, source: source?.['output'] });
  return { ...(source ?? { type: 'tool-result' }), toolCallId, toolName, output };
}

function writeOutput(
  message: Message,
  run: WriteToolResultRun & { readonly source: unknown },
): Readonly<Record<string, unknown>> {
  const source = typeof run.source === 'object' && run.source !== null ? run.source : undefined;
  const sourceType = source === undefined ? undefined : Reflect.get(source, 'type');
  if (typeof message.content !== 'string') {
    const items = message.content.map(
      (part) => run.parts?.get(part) ?? writeToolOutputItem(part, run.dialect),
    );
    return { type: 'content', value: items };
  }
  if (sourceType === 'text' || sourceType === 'error-text') return { ...source, value: message.content };
  const type = isToolError(message) ? 'error-text' : 'text';
  if (sourceType !== undefined) {
    run.warnings.push({
      type: 'converted',
      index: run.index,
      message: `${String(sourceType)} tool output of ${message.toolCallId ?? ''} sent as ${type}: ctxloom changed its content`,
    });
  }
  return { type, value: message.content };
}
