import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ContextError } from '../index.js';
import { alignHistoryRows, type HistoryRow } from './align-history-rows.js';
import { INSPECTOR_FAVICON_SVG } from './inspector-favicon.js';
import { INSPECTOR_PAGE_HTML, INSPECTOR_PAGE_SCRIPT, INSPECTOR_PAGE_STYLE } from './inspector-page.js';
import { type ContextView, pageRows, searchRows, statusCounts } from './inspector-views.js';
import { requestTimeline } from './request-timeline.js';
import type { SessionInspection, SessionInspector } from './session-inspector.js';
import { watchSession } from './watch-session.js';

/** Options for {@link createInspectorApp}. */
export type InspectorAppOptions = {
  /** Lists and inspects the sessions. */
  readonly inspector: SessionInspector;
  /**
   * Accept only requests whose `Host` is a loopback name (`127.0.0.1`, `localhost`, `[::1]`), which
   * stops DNS-rebinding pages from reading sessions through the browser. Turn off only when serving
   * on another interface on purpose. @default true
   */
  readonly isLoopbackOnly?: boolean;
  /** How often `/api/events` checks the store for changes made by other processes, in ms. @default 1500 */
  readonly pollIntervalMs?: number;
};

const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?$/i;
const SCRIPT_HASH = createHash('sha256').update(INSPECTOR_PAGE_SCRIPT).digest('base64');
const STYLE_HASH = createHash('sha256').update(INSPECTOR_PAGE_STYLE).digest('base64');
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': `default-src 'none'; script-src 'sha256-${SCRIPT_HASH}'; style-src 'sha256-${STYLE_HASH}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};
/** Inspections kept for paging and search (key + message + store signature). */
const CACHED_INSPECTIONS = 4;

/** Inspects a session (or reuses the cached inspection while it is unchanged). */
type Inspect = (request: {
  readonly key: string;
  readonly message: string | undefined;
  readonly signal: AbortSignal;
  readonly isFresh?: boolean;
}) => Promise<Cached>;

type Cached = {
  readonly id: string;
  readonly inspection: SessionInspection;
  readonly rows: readonly HistoryRow[];
};

/**
 * The read-only web inspector as a Hono app: `GET /` serves one self-contained page (inline CSS and
 * script, no external resource); `GET /api/sessions` lists the sessions;
 * `GET /api/sessions/:key/context[?message=…&offset=…&limit=…&rebuild=1]` returns the built context of
 * one (sections, categories, trace, one page of the stored-versus-sent rows, the last page by default;
 * an unchanged session's context is reused unless `rebuild=1`, e.g. after editing SOUL.md);
 * `…/search?q=…` finds messages; `…/compactions` lists the session's compaction records, each with
 * what it replaced (the raw messages with their ids, and parent records) and pinned, and the tokens
 * saved; `…/requests` is the timeline of recorded requests (turns and steps, usage, changes since the
 * previous request) and `…/requests/:id` one recorded request whole;
 * `GET /api/events?session=…` is a server-sent event stream that says `session-changed` when the
 * session or its request log changes. Session keys are URL-encoded path segments. Any other method is
 * `405`, an unknown session or path `404`, always with a JSON `{ error: { code, message } }`.
 *
 * @example
 * serve({ fetch: createInspectorApp({ inspector }).fetch, hostname: '127.0.0.1', port: 4319 });
 */
export function createInspectorApp(options: InspectorAppOptions): Hono {
  const app = new Hono();
  const { inspector } = options;
  const isLoopbackOnly = options.isLoopbackOnly ?? true;
  const inspect = cachedInspections(inspector);
  app.use('*', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      return c.json(
        errorBody('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed: the inspector is read-only.`),
        405,
        { Allow: 'GET, HEAD' },
      );
    }
    if (isLoopbackOnly && !LOOPBACK_HOST.test(c.req.header('host') ?? '')) {
      return c.json(
        errorBody('FORBIDDEN_HOST', 'The inspector answers only on 127.0.0.1 or localhost.'),
        403,
      );
    }
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
    return undefined;
  });
  app.get('/', (c) => c.html(INSPECTOR_PAGE_HTML));
  for (const icon of ['/favicon.svg', '/favicon.ico']) {
    app.get(icon, (c) => c.body(INSPECTOR_FAVICON_SVG, 200, { 'Content-Type': 'image/svg+xml' }));
  }
  app.get('/api/sessions', async (c) => {
    const sessions = await inspector.listSessions({ signal: c.req.raw.signal });
    return c.json({ sessions });
  });
  addSessionRoutes(app, { inspector, inspect });
  addTimelineRoutes(app, options);
  app.notFound((c) => c.json(errorBody('NOT_FOUND', `Nothing at ${c.req.path}.`), 404));
  app.onError((error, c) => {
    if (ContextError.isInstance(error)) {
      const status = error.code === 'NOT_FOUND' ? 404 : error.category === 'user' ? 400 : 500;
      return c.json(errorBody(error.code, error.message), status);
    }
    return c.json(errorBody('UNEXPECTED', error.message), 500);
  });
  return app;
}

/** Inspects sessions, keeping the last few inspections while their sessions are unchanged. */
function cachedInspections(inspector: SessionInspector): Inspect {
  const cache: Cached[] = [];
  // isFresh: build again even when the session is unchanged (a workspace file may have changed).
  return async (request) => {
    const { key, message, signal } = request;
    const id = JSON.stringify([key, message ?? '', await sessionSignature({ inspector, key, signal })]);
    const index = cache.findIndex((entry) => entry.id === id);
    const known = cache[index];
    if (known !== undefined && request.isFresh !== true) return known;
    if (known !== undefined) cache.splice(index, 1);
    const inspection = await inspector.inspectSession(key, {
      signal,
      ...(message === undefined || message === '' ? {} : { message }),
    });
    const entry = { id, inspection, rows: alignHistoryRows(inspection.diff) };
    cache.push(entry);
    if (cache.length > CACHED_INSPECTIONS) cache.shift();
    return entry;
  };
}

/** A session's built context, its compaction records and the search over its stored-versus-sent rows. */
function addSessionRoutes(
  app: Hono,
  { inspector, inspect }: { readonly inspector: SessionInspector; readonly inspect: Inspect },
): void {
  app.get('/api/sessions/:key/context', async (c) => {
    const { inspection, rows } = await inspect({
      key: c.req.param('key'),
      message: c.req.query('message'),
      signal: c.req.raw.signal,
      isFresh: c.req.query('rebuild') === '1',
    });
    const { messages: _messages, diff: _diff, ...rest } = inspection;
    const view: ContextView = {
      ...rest,
      ...pageRows(rows, {
        offset: numberQuery(c.req.query('offset')),
        limit: numberQuery(c.req.query('limit')),
      }),
      statusCounts: statusCounts(rows),
    };
    return c.json(view);
  });
  app.get('/api/sessions/:key/compactions', async (c) => {
    const compactions = await inspector.compactions(c.req.param('key'), { signal: c.req.raw.signal });
    return c.json({ compactions });
  });
  app.get('/api/sessions/:key/search', async (c) => {
    const { rows } = await inspect({
      key: c.req.param('key'),
      message: c.req.query('message'),
      signal: c.req.raw.signal,
    });
    return c.json(searchRows(rows, { query: c.req.query('q') ?? '' }));
  });
}

/** The recorded-request timeline and the live event stream. */
function addTimelineRoutes(app: Hono, options: InspectorAppOptions): void {
  const { inspector } = options;
  app.get('/api/sessions/:key/requests', async (c) => {
    const requests = await inspector.recordedRequests(c.req.param('key'), { signal: c.req.raw.signal });
    const turns = requestTimeline(requests);
    const limit = Math.min(Math.max(1, numberQuery(c.req.query('limit')) ?? 30), 500);
    const last = Math.max(0, turns.length - limit);
    const offset = Math.min(Math.max(0, numberQuery(c.req.query('offset')) ?? last), last);
    return c.json({
      hasRecorder: inspector.requests !== undefined,
      totalTurns: turns.length,
      totalRequests: requests.length,
      offset,
      limit,
      turns: turns.slice(offset, offset + limit),
    });
  });
  app.get('/api/sessions/:key/requests/:id', async (c) => {
    const requests = await inspector.recordedRequests(c.req.param('key'), { signal: c.req.raw.signal });
    const found = requests.find((request) => request.id === c.req.param('id'));
    if (found === undefined) {
      throw new ContextError({
        code: 'NOT_FOUND',
        message: `No recorded request ${JSON.stringify(c.req.param('id'))} in this session; it may have been rotated out.`,
      });
    }
    return c.json(found);
  });
  app.get('/api/events', (c) => {
    const key = c.req.query('session');
    return streamSSE(
      c,
      async (stream) => {
        await watchSession({
          onReady: () => stream.writeSSE({ event: 'ready', data: JSON.stringify({ session: key ?? null }) }),
          inspector,
          ...(key === undefined || key === '' ? {} : { sessionKey: key }),
          intervalMs: options.pollIntervalMs ?? 1_500,
          signal: c.req.raw.signal,
          isClosed: () => stream.aborted || stream.closed,
          onChange: (change) => stream.writeSSE({ event: change.event, data: JSON.stringify(change) }),
        });
      },
      reportStreamError,
    );
  });
}

/** A failure while watching goes to the page as an `error` event (written by Hono after this). */
async function reportStreamError(): Promise<void> {}

/** What the store says about a session without loading it (its summary), so a cached inspection is reused only while the session is unchanged. */
async function sessionSignature(request: {
  readonly inspector: SessionInspector;
  readonly key: string;
  readonly signal: AbortSignal;
}): Promise<string> {
  const { inspector, key, signal } = request;
  const summary = (await inspector.listSessions({ signal })).find((entry) => entry.key === key);
  return JSON.stringify(summary ?? null);
}

function numberQuery(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (Number.isInteger(parsed) && parsed >= 0) return parsed;
  throw new ContextError({
    code: 'INVALID_INPUT',
    message: `Expected a whole number ≥ 0 in the query, got ${JSON.stringify(value)}.`,
  });
}

function errorBody(
  code: string,
  message: string,
): { readonly error: { readonly code: string; readonly message: string } } {
  return { error: { code, message } };
}
