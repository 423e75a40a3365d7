import type { ToolDefinition } from '../core/tool-definition.js';
import type { ContextToolName } from './context-tool-result.js';

const NOTE_FIELDS = {
  goal: { type: 'string', description: 'What the whole task is for (required).' },
  state: { type: 'string', description: 'Where the work stands now.' },
  decisions: { type: 'array', items: { type: 'string' }, description: 'Decisions made, with reasons.' },
  open_tasks: { type: 'array', items: { type: 'string' }, description: 'What is still to do.' },
  next_step: { type: 'string', description: 'The very next step.' },
} as const;

/**
 * The JSON-Schema definitions of the context tools, byte-stable (no dates, counts or paths in them),
 * so they never move the cached prefix.
 */
export const CONTEXT_TOOL_DEFINITIONS: Readonly<Record<ContextToolName, ToolDefinition>> = Object.freeze({
  recall: {
    name: 'recall',
    description:
      'Search what you can no longer see: messages replaced by summaries or cleared by new_context, offloaded tool results and archived history. `query` is words (all must appear) or /regex/flags. Hits come newest first with their source ids; pass `id` (or use expand) to read a source in full.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words, or a regular expression written /pattern/flags.' },
        limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Hits per page (default 10).' },
        cursor: { type: 'string', description: 'The cursor a previous page gave, for the next page.' },
        scope: {
          type: 'string',
          enum: ['session', 'workspace'],
          description: "'session' (default) or 'workspace' to search other sessions too.",
        },
        id: { type: 'string', description: 'Expand this source id instead of searching (as expand does).' },
      },
      additionalProperties: false,
    },
  },
  expand: {
    name: 'expand',
    description:
      'Read a source in full by the id recall gave: a summary or context-reset record (its original messages), a message, an offloaded tool result or a history entry. Long sources come in pages: pass the cursor given.',
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'A record, message, offload: or history: id from recall.' },
        cursor: { type: 'string', description: 'The cursor a previous page gave.' },
      },
      required: ['id'],
      additionalProperties: false,
    },
  },
  compact_now: {
    name: 'compact_now',
    description:
      'Summarise the older part of the conversation now, in place (nothing is deleted: recall and expand still reach it). Refused while the context is small. `instructions` says what the summary must keep.',
    parameters: {
      type: 'object',
      properties: {
        instructions: { type: 'string', description: 'What the summary must focus on or keep.' },
      },
      additionalProperties: false,
    },
  },
  context_remaining: {
    name: 'context_remaining',
    description: 'How many tokens of the context are used and left, and when automatic compaction starts.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
  new_context: {
    name: 'new_context',
    description:
      'Start a fresh context: hand over your notes (goal, state, decisions, open tasks, next step). They are saved durably and shown to you from then on; the earlier conversation is cleared from view (recall and expand still reach it) and the next request starts from the pinned messages, your notes and the current task. Refused, with nothing changed, if the notes cannot be saved.',
    parameters: {
      type: 'object',
      properties: NOTE_FIELDS,
      required: ['goal'],
      additionalProperties: false,
    },
  },
  notes: {
    name: 'notes',
    description:
      "Your persistent notes for this session (shown to you in every request). command 'view' shows them; 'write' replaces them with the fields given.",
    parameters: {
      type: 'object',
      properties: { command: { type: 'string', enum: ['view', 'write'] }, ...NOTE_FIELDS },
      required: ['command'],
      additionalProperties: false,
    },
  },
  memory: {
    name: 'memory',
    description:
      'Your memory folder, /memories (view, create, str_replace, insert, delete, rename), as Anthropic memory tool commands. Paths start with /memories.',
    parameters: {
      type: 'object',
      properties: {
        command: {
          type: 'string',
          enum: ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'],
        },
        path: { type: 'string', description: 'A path under /memories.' },
        view_range: {
          type: 'array',
          items: { type: 'integer' },
          description: 'view: [first line, last line] (1-based; -1 means the end).',
        },
        file_text: { type: 'string', description: 'create: the file content.' },
        old_str: { type: 'string', description: 'str_replace: the text to replace (must occur once).' },
        new_str: { type: 'string', description: 'str_replace: the replacement.' },
        insert_line: { type: 'integer', description: 'insert: the line after which to insert (0 = top).' },
        insert_text: { type: 'string', description: 'insert: the text to insert.' },
        old_path: { type: 'string', description: 'rename: the current path.' },
        new_path: { type: 'string', description: 'rename: the new path.' },
      },
      required: ['command'],
      additionalProperties: false,
    },
  },
});
