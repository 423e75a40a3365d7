import type { SessionInspector } from './session-inspector.js';

/** A change {@link watchSession} reports. */
export type SessionChange = {
  readonly event: 'sessions-changed' | 'session-changed';
  readonly session?: string;
};

/**
 * Watches the inspector's stores until `signal` aborts or `isClosed()`: appends made through the
 * store in this process arrive at once (its `subscribe`), changes by other processes within
 * `intervalMs` (the session list's summaries and the request log's version are compared).
 */
export async function watchSession(options: {
  readonly inspector: SessionInspector;
  readonly sessionKey?: string;
  readonly intervalMs: number;
  readonly signal: AbortSignal;
  readonly isClosed: () => boolean;
  readonly onChange: (change: SessionChange) => Promise<void>;
  /** Called once the watch is in place (changes from then on are reported). */
  readonly onReady?: () => Promise<void>;
}): Promise<void> {
  const { inspector, sessionKey } = options;
  let wake: (() => void) | undefined;
  let pushed = false;
  const unsubscribe = inspector.store.subscribe((event) => {
    if (sessionKey === undefined || event.sessionKey === sessionKey) {
      pushed = true;
      wake?.();
    }
  });
  const onAbort = () => wake?.();
  options.signal.addEventListener('abort', onAbort);
  try {
    let previous = await snapshot(inspector, sessionKey);
    await options.onReady?.();
    while (!options.signal.aborted && !options.isClosed()) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, options.intervalMs);
      });
      if (options.signal.aborted || options.isClosed()) break;
      const current = await snapshot(inspector, sessionKey);
      if (!pushed && current.sessions === previous.sessions && current.session === previous.session) continue;
      pushed = false;
      if (current.sessions !== previous.sessions) await options.onChange({ event: 'sessions-changed' });
      if (
        sessionKey !== undefined &&
        (current.session !== previous.session || current.sessions !== previous.sessions)
      ) {
        await options.onChange({ event: 'session-changed', session: sessionKey });
      }
      previous = current;
    }
  } finally {
    unsubscribe();
    options.signal.removeEventListener('abort', onAbort);
  }
}

async function snapshot(
  inspector: SessionInspector,
  sessionKey: string | undefined,
): Promise<{ readonly sessions: string; readonly session: string }> {
  const sessions = JSON.stringify(await inspector.listSessions());
  if (sessionKey === undefined) return { sessions, session: '' };
  const store = inspector.requests;
  const session =
    store === undefined
      ? ''
      : store.version === undefined
        ? String((await store.read(sessionKey)).length)
        : await store.version(sessionKey);
  return { sessions, session };
}
