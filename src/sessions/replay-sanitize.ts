import { isRecord } from '../core/is-record.js';
import type { Content, Message } from '../core/message.js';
import { pythonSplitLines } from '../core/python-split-lines.js';
import { PYTHON_WHITESPACE, pythonStrip } from '../core/python-strip.js';
import { RUNTIME_CONTEXT_KEY, stripRuntimeContextExactly } from '../core/runtime-context-marker.js';
import { hasNanobotFlag, nanobotField } from './nanobot-fields.js';

// memory/raw-archive reads the marker through this module
export { stripRuntimeContextExactly } from '../core/runtime-context-marker.js';

// nanobot's three replay patterns (session manager), with Python's `\s` (see PYTHON_WHITESPACE).
const MESSAGE_TIME_PREFIX = /^\[Message Time: [^\]]+\]\n?/;
const LOCAL_IMAGE_BREADCRUMB = new RegExp(`^\\[image: [/~][^\\]]+\\][${PYTHON_WHITESPACE}]*$`);
const TOOL_CALL_ECHO = new RegExp(
  `^[${PYTHON_WHITESPACE}]*(?:generate_image|message)\\([^)]*\\)[${PYTHON_WHITESPACE}]*$`,
);
/** nanobot replays at most this many `cli_apps` breadcrumbs per message. */
const MAX_CLI_APP_BREADCRUMBS = 8;

/**
 * One stored message as nanobot's `get_history` shows it, or `undefined` when replay
 * skips it. In order: `_command` turns are skipped; with `includeRuntimeContext: false` the recorded
 * runtime context is stripped exactly (the public view, which never carries the marker); assistant
 * text loses a leading `[Message Time: …]` line and the lines that are a local `[image: /…]`
 * breadcrumb or a `generate_image(…)`/`message(…)` echo (lines as Python's `splitlines()` cuts them,
 * joined with `\n`, then trimmed); user text gets an `[image: path]` line per non-empty `media` path;
 * a user row without a recorded marker gets up to 8 legacy `cli_apps` breadcrumbs (not in the public
 * view); blank assistant text is dropped unless the message has tool calls, reasoning or thinking
 * blocks. Every message field survives (message format 2 fields included) except metadata, cut to
 * `thinkingBlocks` and, when kept, the runtime-context marker (nanobot drops the rest, timestamps too).
 */
export function replayMessage(message: Message, includeRuntimeContext: boolean): Message | undefined {
  if (hasNanobotFlag(message, '_command')) return undefined;
  const marker = message.metadata?.[RUNTIME_CONTEXT_KEY];
  const content = visibleContent(message, { marker, includeRuntimeContext });
  const thinking = nanobotField(message, 'thinking_blocks');
  const keepsWhenBlank =
    message.toolCalls !== undefined || message.reasoning !== undefined || thinking !== undefined;
  if (
    message.role === 'assistant' &&
    typeof content === 'string' &&
    pythonStrip(content) === '' &&
    !keepsWhenBlank
  ) {
    return undefined;
  }
  const kept = includeRuntimeContext && marker !== undefined;
  const metadata = {
    ...(kept ? { [RUNTIME_CONTEXT_KEY]: marker } : {}),
    ...(thinking === undefined ? {} : { thinkingBlocks: thinking }),
  };
  // Every message field stays (message format 2's output, providerOptions, native and what comes
  // after); only metadata is cut to what nanobot's replay keeps.
  const { metadata: _stored, ...fields } = message;
  return { ...fields, content, ...(Object.keys(metadata).length > 0 ? { metadata } : {}) };
}

function visibleContent(
  message: Message,
  view: { readonly marker: unknown; readonly includeRuntimeContext: boolean },
): Content {
  let content = message.content;
  if (!view.includeRuntimeContext) content = stripRuntimeContextExactly(content, view.marker) ?? content;
  if (typeof content !== 'string') return content;
  if (message.role === 'assistant') return sanitizeAssistantText(content);
  if (message.role !== 'user') return content;
  const media = nanobotField(message, 'media');
  const withMedia = appendLines(content, Array.isArray(media) ? mediaBreadcrumbs(media) : []);
  const cliApps = nanobotField(message, 'cli_apps');
  const isLegacyRow = view.includeRuntimeContext && !isRecord(view.marker);
  return isLegacyRow && Array.isArray(cliApps)
    ? appendLines(withMedia, cliAppBreadcrumbs(cliApps))
    : withMedia;
}

/** Cleans replayed assistant text so the model does not learn to imitate bookkeeping lines. */
function sanitizeAssistantText(text: string): string {
  const lines = pythonSplitLines(text.replace(MESSAGE_TIME_PREFIX, ''));
  const kept = lines.filter((line) => !LOCAL_IMAGE_BREADCRUMB.test(line) && !TOOL_CALL_ECHO.test(line));
  return pythonStrip(kept.join('\n'));
}

/** `[image: path]` for each non-empty string path (nanobot's `content_with_media_breadcrumbs`). */
function mediaBreadcrumbs(media: readonly unknown[]): readonly string[] {
  return media.filter((entry) => typeof entry === 'string' && entry !== '').map((path) => `[image: ${path}]`);
}

/** nanobot's legacy breadcrumb for a CLI app attached to a user turn before markers were persisted. */
function cliAppBreadcrumbs(apps: readonly unknown[]): readonly string[] {
  const lines: string[] = [];
  for (const app of apps.slice(0, MAX_CLI_APP_BREADCRUMBS)) {
    if (!isRecord(app)) continue;
    const name = pythonStrip(pythonStr(app['name'], '')).toLowerCase();
    if (name === '') continue;
    const entryPoint = pythonStrip(pythonStr(app['entry_point'], 'unknown')) || 'unknown';
    lines.push(
      `[CLI App Attachment: @${name}; tool=run_cli_app; entry_point=${entryPoint}; skill=skills/cli-app-${name}/SKILL.md]`,
    );
  }
  return lines;
}

/** The lines after the text on lines of their own (the lines alone when the text is empty). */
function appendLines(text: string, lines: readonly string[]): string {
  if (lines.length === 0) return text;
  const joined = lines.join('\n');
  return text === '' ? joined : `${text}\n${joined}`;
}

/**
 * Python's `str(value or fallback)` for a JSON value: falsy values (`null`, `false`, `0`, `''`, `[]`,
 * `{}`) give the fallback, booleans print as `True`; other non-strings fall back to their JSON text.
 */
function pythonStr(value: unknown, fallback: string): string {
  if (isPythonFalsy(value)) return fallback;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return 'True';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

function isPythonFalsy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}
