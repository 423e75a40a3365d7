import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { ContextError } from '../index.js';
import { INSPECTOR_PAGE_HTML, INSPECTOR_PAGE_SCRIPT, INSPECTOR_PAGE_STYLE } from './inspector-page.js';
import type { SessionInspector } from './session-inspector.js';

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

/**
 * The read-only web inspector as a Hono app: `GET /` serves one self-contained page (inline CSS and
 * script, no external resource), `GET /api/sessions` lists the sessions and
 * `GET /api/sessions/:key/context[?message=…]` returns the built context of one (sections,
 * categories, trace, stored-versus-sent diff). Session keys are URL-encoded path segments. Any other
 * method is `405`, an unknown session or path `404`, always with a JSON `{ error: { code, message } }`.
 *
 * @example
 * serve({ fetch: createInspectorApp({ inspector }).fetch, hostname: '127.0.0.1', port: 4319 });
 */
export function createInspectorApp(options: InspectorAppOptions): Hono {
  const app = new Hono();
  const isLoopbackOnly = options.isLoopbackOnly ?? true;
  app.use('*', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      return c.json(
        errorBody('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed: the inspector is read-only.`),
        405,
        {
          Allow: 'GET, HEAD',
        },
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
  app.get('/api/sessions', async (c) => {
    const sessions = await options.inspector.listSessions({ signal: c.req.raw.signal });
    return c.json({ sessions });
  });
  app.get('/api/sessions/:key/context', async (c) => {
    const key = c.req.param('key');
    const message = c.req.query('message');
    const result = await options.inspector.inspectSession(key, {
      signal: c.req.raw.signal,
      ...(message === undefined || message === '' ? {} : { message }),
    });
    return c.json(result);
  });
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

function errorBody(
  code: string,
  message: string,
): { readonly error: { readonly code: string; readonly message: string } } {
  return { error: { code, message } };
}
