import {
  appendCompaction,
  type CompactionPlan,
  ContextError,
  compactHistory,
  planCompaction,
  type SessionStore,
  sessionCompactions,
  sessionView,
} from '../../index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { EXIT_CODES, exitCodeFor } from '../exit-codes.js';
import {
  MODEL_FLAGS,
  MODEL_USAGE,
  numberFlag,
  openModel,
  openStore,
  parseFlags,
  STORE_FLAGS,
  STORE_USAGE,
  stringFlag,
} from './session-store-flags.js';

const FLAGS = {
  ...STORE_FLAGS,
  ...MODEL_FLAGS,
  session: { type: 'string' },
  'keep-recent': { type: 'string' },
  instructions: { type: 'string' },
  'pin-tool': { type: 'string', multiple: true },
  'max-output': { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const USAGE = `Usage:
  ctxloom compact --session KEY [--keep-recent N] [--instructions TEXT] [--pin-tool NAME]... [--max-output N]
                  [--dry-run] [--json]

Replaces the old part of a session by a summary written by the model endpoint, in place: the messages
after the leading system messages and before the newest --keep-recent tokens (default 8000; whole tool
transactions). The user's own messages (up to a cap; the latest request always), messages marked
metadata.pinned and the latest result of each --pin-tool stay verbatim after the summary. The session's messages are never changed: a compaction
record is stored beside them, and every later build shows the summary instead of the messages it replaces.
--dry-run prints what would be replaced and calls no model. A summary that fails, is cut, empty or
slow changes nothing.

Exit codes: 0 done (or nothing to compact), 2 invalid options, 4 the store refused the record (the session
changed meanwhile), 6 the model endpoint is misconfigured or unreachable, 7 the reply was not usable,
8 the model failed transiently; nothing changed in each failure.

${STORE_USAGE}

${MODEL_USAGE}`;

type Values = ReturnType<typeof parseFlags>['values'];

/** `ctxloom compact`: summarises the old part of a session with a model and stores the record. */
export const compactCommand: CliCommand = {
  name: 'compact',
  summary: 'Replace the old part of a session by a summary (a compaction record beside its messages)',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags('compact', args, FLAGS);
    if (positionals.length > 0)
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `compact takes no arguments (got ${positionals.map((word) => `'${word}'`).join(' ')}); name the session with --session KEY.`,
      });
    const sessionKey = stringFlag(values, 'session');
    if (sessionKey === undefined || sessionKey === '')
      throw new ContextError({ code: 'INVALID_OPTIONS', message: 'compact needs --session KEY.' });
    const dryRun = values['dry-run'] === true;
    const store = await openStore(values, io, dryRun ? 'read' : 'write');
    try {
      return await compactSession({ store, sessionKey, values, io, dryRun });
    } finally {
      await store.close();
    }
  },
};

async function compactSession(run: {
  readonly store: SessionStore;
  readonly sessionKey: string;
  readonly values: Values;
  readonly io: CliIo;
  readonly dryRun: boolean;
}): Promise<number> {
  const { store, sessionKey, values, io } = run;
  const session = await store.load(sessionKey);
  if (!session.exists)
    throw new ContextError({
      code: 'NOT_FOUND',
      message: `No session ${JSON.stringify(sessionKey)} in this store.`,
    });
  const view = sessionView(session.messages, sessionCompactions(session));
  const keepRecent = numberFlag(values, 'keep-recent');
  const tools = values['pin-tool'];
  const shared = {
    ...(keepRecent === undefined ? {} : { keepRecent }),
    pinned: { tools: Array.isArray(tools) ? tools : [] },
  };
  if (run.dryRun) return report(io, { values, plan: planCompaction(view, shared), viewLength: view.length });
  const maxOutput = numberFlag(values, 'max-output');
  const instructions = stringFlag(values, 'instructions');
  const result = await compactHistory(view, {
    ...shared,
    summarizer: openModel(values, io),
    ...(maxOutput === undefined ? {} : { maxOutputTokens: maxOutput }),
    ...(instructions === undefined ? {} : { instructions }),
    trigger: 'manual',
  });
  if (result.record === undefined) {
    io.stderr.write(`Nothing compacted (${result.reason}): ${result.detail}\n`);
    return result.error === undefined ? EXIT_CODES.ok : exitCodeFor(result.error);
  }
  await appendCompaction(store, { sessionKey, record: result.record });
  const { record } = result;
  const line = `Compacted ${record.replaces.length} messages of ${sessionKey} into record ${record.id}: ${record.tokensBefore} → ${record.tokensAfter} tokens (${record.tokensBefore - record.tokensAfter} saved), ${result.pins.ids.length} pinned kept verbatim.\n`;
  io.stdout.write(values['json'] === true ? `${JSON.stringify({ record, pins: result.pins })}\n` : line);
  return EXIT_CODES.ok;
}

function report(
  io: CliIo,
  dry: { readonly values: Values; readonly plan: CompactionPlan | undefined; readonly viewLength: number },
): number {
  const { plan } = dry;
  if (dry.values['json'] === true) {
    io.stdout.write(
      `${JSON.stringify(
        plan === undefined
          ? { wouldCompact: false }
          : {
              wouldCompact: true,
              replaces: plan.summarised.map((message) => message.id),
              pinned: plan.pins.flatMap((pin) => pin.unit.messages.map((message) => message.id)),
              pinnedTokens: plan.pinnedTokens,
            },
      )}\n`,
    );
    return EXIT_CODES.ok;
  }
  if (plan === undefined) {
    io.stdout.write(
      'Nothing to compact: everything older than the kept recent messages is pinned, or there is nothing older.\n',
    );
    return EXIT_CODES.ok;
  }
  const lines = [
    `Would replace ${plan.summarised.length} of ${dry.viewLength} messages (positions ${plan.start}–${plan.end - 1}) by one summary:`,
    ...plan.summarised.map((message) => `  - ${message.id} (${message.role})`),
    `Would keep ${plan.pins.length} pinned unit(s) verbatim after it (${plan.pinnedTokens} tokens):`,
    ...plan.pins.map(
      (pin) => `  - ${pin.unit.messages.map((message) => message.id).join(', ')} (${pin.reason})`,
    ),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT_CODES.ok;
}
