/**
 * The inspector page in headless Chromium (playwright-core; /usr/bin/chromium or CTXLOOM_CHROMIUM_PATH) at 1400 px and 400 px:
 * the context view with stored and sent aligned, the timeline of recorded requests, a 50,000-message
 * session, live refresh, hostile content; each view passes a layout check (nothing wider than the
 * viewport, nothing cut off) and is saved as a screenshot under test-results/.
 */
import { existsSync } from 'node:fs';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../core/index.js';
import {
  appendCompaction,
  ContextBuilder,
  EstimatingTokenCounter,
  JsonlSessionStore,
  type Message,
} from '../index.js';
import { JsonlRequestStore, RequestRecorder } from '../recorder/index.js';
import { replaySession } from '../sessions/index.js';
import { openWorkspaceInspector } from './open-workspace-inspector.js';
import { type InspectorServer, startInspectorServer } from './start-inspector-server.js';

/** The browser the test drives: `CTXLOOM_CHROMIUM_PATH`, else the Debian/Ubuntu package's binary. */
const CHROMIUM = process.env['CTXLOOM_CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const ROOT = path.resolve(import.meta.dirname, '../..');
const RESULTS = path.join(ROOT, 'test-results');
const HOSTILE_KEY = 'web:<img src=x onerror="window.__pwned=1">';
const BIG_KEY = 'big:50k';
const BIG_COUNT = 50_000;
const isAvailable = existsSync(CHROMIUM);
const { CI = '' } = process.env;
const isCi = CI !== '' && CI !== 'false';

/** Why the browser tests cannot run here, and how to make them run. */
const MISSING = `Chromium is missing at ${CHROMIUM}: install it with 'apt-get install -y chromium' (.ci/run does), or set CTXLOOM_CHROMIUM_PATH to a Chromium or Chrome binary`;

if (!isAvailable && isCi) {
  describe('inspector page in Chromium', () => {
    it('needs Chromium', () => {
      throw new Error(MISSING);
    });
  });
}
// Said once on stderr (and in the skipped suite's name), so a local `npm test` never skips silently.
if (!isAvailable && !isCi) process.stderr.write(`skipping the inspector browser tests: ${MISSING}\n`);

/** Problems with the layout: anything wider than the viewport or cut off by its box. */
async function layoutProblems(page: Page): Promise<string[]> {
  const found = [
    ...(await page.evaluate(overflowProblems)),
    ...(await page.evaluate(wrappedCounts)),
    ...(await page.evaluate(brokenWords)),
  ];
  return found.slice(0, 20);
}

/** In the page: the page scrolls sideways, or a box spans past the viewport or cuts off its content. */
function overflowProblems(): string[] {
  const width = document.documentElement.clientWidth;
  const problems: string[] = [];
  if (document.documentElement.scrollWidth > width + 1) {
    problems.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  }
  const describe = (node: Element) =>
    `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}${node.className && typeof node.className === 'string' ? `.${node.className.split(' ').join('.')}` : ''}`;
  const inScroller = (node: Element) => {
    for (
      let parent = node.parentElement;
      parent !== null && parent !== document.body;
      parent = parent.parentElement
    ) {
      if (['auto', 'scroll'].includes(getComputedStyle(parent).overflowX)) return true;
    }
    return false;
  };
  for (const node of Array.from(document.querySelectorAll('body *'))) {
    const box = node.getBoundingClientRect();
    if ((box.width === 0 && box.height === 0) || inScroller(node)) continue;
    if (box.right > width + 1 || box.left < -1)
      problems.push(`${describe(node)} spans ${box.left}–${box.right} of ${width}`);
    const style = getComputedStyle(node);
    if (['hidden', 'clip'].includes(style.overflowX) && node.scrollWidth > node.clientWidth + 1) {
      problems.push(`${describe(node)} cuts off ${node.scrollWidth - node.clientWidth}px`);
    }
  }
  return problems;
}

/** In the page: counts such as "2 messages" never wrap inside a word. */
function wrappedCounts(): string[] {
  return Array.from(document.querySelectorAll('nav .count'))
    .filter((count) => count.getClientRects().length > 1)
    .map((count) => `nav count wraps: ${count.textContent}`);
}

/**
 * In the page: no table cell breaks a short word ("identity", "provider") across lines: each piece
 * between spaces, hyphens and slashes up to 24 characters must sit on one line box.
 */
function brokenWords(): string[] {
  const problems: string[] = [];
  const describe = (node: Element) =>
    `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}${node.className && typeof node.className === 'string' ? `.${node.className.split(' ').join('.')}` : ''}`;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text !== null; text = walker.nextNode()) {
    if (text.parentElement?.closest('td, th') === null) continue;
    for (const match of (text.textContent ?? '').matchAll(/[^\s\-/]{2,24}/g)) {
      const range = document.createRange();
      range.setStart(text, match.index);
      range.setEnd(text, match.index + match[0].length);
      const lines = new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top)));
      if (lines.size > 1)
        problems.push(`${describe(text.parentElement as Element)} breaks "${match[0]}" inside the word`);
    }
  }
  return problems;
}

async function recordRequests(workspace: string): Promise<void> {
  const sessions = path.join(workspace, 'sessions');
  const recorder = new RequestRecorder({ store: JsonlRequestStore.besideSessions(sessions) });
  const record = await new JsonlSessionStore({ dir: sessions }).load('cli:direct');
  const builder = ContextBuilder.forAgent({ workspace, channel: 'cli', observer: recorder });
  // The agent sends the archived summary in its system prompt, as the inspector builds it.
  const { summary } = replaySession(record, {
    tokenCounter: new EstimatingTokenCounter(),
    contextWindowTokens: 128_000,
    maxOutputTokens: 8_192,
  });
  const built = await builder.build({
    history: record.messages.slice(8),
    ...(summary === undefined ? {} : { summary }),
    current: 'Run the tests.',
    sessionKey: 'cli:direct',
  });
  await recorder.observeUsage({
    inputTokens: 3_120,
    cachedInputTokens: 2_048,
    outputTokens: 41,
    latencyMs: 812,
    model: 'gpt-4o',
  });
  let messages: readonly Message[] = built.messages;
  for (const stepNumber of [0, 1, 2]) {
    const step = await ContextBuilder.forChat({}).transform(messages, {});
    await recorder.observeRequest({
      source: 'prepare-step',
      runId: 'run-1',
      stepNumber,
      sessionKey: 'cli:direct',
      messages,
      tools: [{ name: 'exec' }],
      trace: step.trace,
      model: 'gpt-4o',
    });
    await recorder.observeUsage({
      runId: 'run-1',
      stepNumber,
      inputTokens: 3_200 + stepNumber * 90,
      cachedInputTokens: 3_072,
      outputTokens: 25,
      latencyMs: 640,
    });
    messages = [
      ...messages,
      assistant('', {
        id: `call-${stepNumber}`,
        toolCalls: [
          // The second call is a context tool's, which the timeline lists under its step.
          stepNumber === 1
            ? { id: `c${stepNumber}`, name: 'recall', arguments: { query: 'failing test' } }
            : { id: `c${stepNumber}`, name: 'exec', arguments: { cmd: `npm test -- part ${stepNumber}` } },
        ],
      }),
      tool(`PASS part ${stepNumber}\n${'ok '.repeat(400)}`, {
        id: `result-${stepNumber}`,
        toolCallId: `c${stepNumber}`,
        name: 'exec',
      }),
    ];
  }
}

async function writeBigSession(sessions: string): Promise<void> {
  const lines = [
    JSON.stringify({
      _type: 'metadata',
      key: BIG_KEY,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      metadata: {},
      last_consolidated: 0,
    }),
  ];
  for (let index = 0; index < BIG_COUNT; index += 1) {
    lines.push(
      JSON.stringify({
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `message ${index}: ${'lorem ipsum dolor '.repeat(4)}`,
        timestamp: '2026-01-01T00:00:00.000Z',
        id: `b${index}`,
      }),
    );
  }
  await appendFile(
    path.join(sessions, `${Buffer.from(BIG_KEY).toString('base64url')}.jsonl`),
    `${lines.join('\n')}\n`,
  );
}

describe.skipIf(!isAvailable)(
  `inspector page in Chromium${isAvailable ? '' : ` (skipped: ${MISSING})`}`,
  () => {
    let temp = '';
    let workspace = '';
    let server: InspectorServer | undefined;
    let context: BrowserContext | undefined;
    const external: string[] = [];
    const pages: Page[] = [];

    beforeAll(async () => {
      temp = await mkdtemp(path.join(tmpdir(), 'ctxloom-browser-'));
      workspace = path.join(temp, 'workspace');
      await cp(path.join(ROOT, 'examples/workspace'), workspace, { recursive: true });
      const sessions = path.join(workspace, 'sessions');
      await new JsonlSessionStore({ dir: sessions }).append(HOSTILE_KEY, [
        { id: 'x1', role: 'user', content: '<script>window.__pwned=2</script><b>bold?</b>' },
      ]);
      await writeBigSession(sessions);
      await recordRequests(workspace);
      server = await startInspectorServer({
        inspector: await openWorkspaceInspector({ workspace }),
        port: 0,
      });
      context = await chromium.launchPersistentContext(path.join(temp, 'profile'), {
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
          '--disable-sync',
        ],
        viewport: { width: 1400, height: 900 },
      });
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await context.route('**/*', async (route) => {
        const url = new URL(route.request().url());
        if (url.hostname === '127.0.0.1') return route.continue();
        external.push(url.href);
        return route.abort();
      });
      await mkdir(RESULTS, { recursive: true });
    }, 180_000);

    afterAll(async () => {
      await context?.close();
      await server?.close();
      await rm(temp, { recursive: true, force: true });
    });

    async function open(width: number, hash = ''): Promise<{ page: Page; errors: string[] }> {
      if (context === undefined || server === undefined) throw new Error('setup failed');
      // Each open page holds a live-refresh connection and Chromium allows six per host: close the last ones.
      await Promise.all(pages.splice(0).map((old) => old.close()));
      const page = await context.newPage();
      pages.push(page);
      await page.setViewportSize({ width, height: 900 });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      await page.goto(`${server.url}${hash}`);
      return { page, errors };
    }

    it('shows a session at 1400 px with stored and sent aligned, structured tool calls and no layout defect', async () => {
      const { page, errors } = await open(1400);
      await expect
        .poll(() => page.locator('#sessions a').allTextContents())
        .toEqual([BIG_KEY, 'cli:direct', 'telegram:8281248569', HOSTILE_KEY]);
      // nothing picked yet: the header keeps its height on a short page
      expect(
        await page.locator('header').evaluate((node) => node.getBoundingClientRect().height),
      ).toBeLessThan(80);
      expect(await page.locator('header').evaluate((node) => getComputedStyle(node).backgroundColor)).toBe(
        'rgb(29, 36, 51)',
      );
      await page.getByRole('link', { name: 'cli:direct' }).click();
      await page.locator('#session-title').getByText('cli:direct').waitFor();
      expect(await page.locator('#usage').textContent()).toMatch(
        /^gpt-4o · [\d,]+\/128,000 tokens \(\d+\.\d%\)/,
      );
      expect(await page.locator('#chart svg rect').count()).toBeGreaterThanOrEqual(5);
      const status = (id: string) =>
        page.locator(`#rows [data-side="stored"] .msg[data-id="${id}"]`).getAttribute('data-status');
      expect(await status('m01')).toBe('archived');
      expect(await status('m18')).toBe('rewritten');
      expect(await status('m22')).toBe('dropped');
      // a stored message and its sent copy share a row
      const row = page.locator('#rows .row', {
        has: page.locator('[data-side="stored"] .msg[data-id="m18"]'),
      });
      expect(await row.locator('[data-side="sent"] .msg').getAttribute('data-id')).toBe('m18');
      const tops = await row
        .locator('.cell')
        .evaluateAll((cells) => cells.map((cell) => Math.round(cell.getBoundingClientRect().top)));
      expect(new Set(tops).size).toBe(1);
      expect(await page.locator('#rows .tool-call .tool-label').count()).toBeGreaterThan(0);
      expect(await page.locator('#rows .tool-result .tool-label').first().textContent()).toMatch(
        /^tool result/,
      );
      // a long block (the sent system prompt) is clipped with a button that shows it all
      const systemBlock = page.locator('#rows [data-side="sent"] .msg[data-role="system"] .block').first();
      await systemBlock.locator('button.expand').click();
      expect(await systemBlock.locator('pre').evaluate((node) => node.classList.contains('clipped'))).toBe(
        false,
      );
      expect(await page.locator('#status-counts [data-status="archived"]').textContent()).toMatch(
        /^archived \d+$/,
      );
      // the example workspace's prompt is the same as the request the agent last sent: nothing volatile
      expect(await page.locator('#warnings .warning-volatile-content').count()).toBe(0);
      await page.locator('#search').fill('footnote');
      await page.locator('#search-button').click();
      await expect.poll(() => page.locator('#search-results a').count()).toBeGreaterThan(0);
      expect(await layoutProblems(page)).toEqual([]);
      await page.screenshot({ path: path.join(RESULTS, 'inspector-1400.png'), fullPage: true });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(RESULTS, 'inspector-1400-top.png') });
      expect(errors).toEqual([]);
      expect(external).toEqual([]);
    }, 120_000);

    it('shows the timeline of recorded turns and steps with usage, changes and a copy of the request', async () => {
      const { page, errors } = await open(1400, `#/session/${encodeURIComponent('cli:direct')}`);
      await page.locator('#tab-timeline').click();
      await page.locator('#timeline details.turn').first().waitFor();
      expect(await page.locator('#timeline details.turn').count()).toBe(2);
      const run = page.locator('#timeline details.turn').nth(1);
      expect(await run.locator('summary').textContent()).toMatch(/^Turn 2 · 3 steps · .* · run run-1$/);
      const steps = run.locator('.step');
      expect(await steps.count()).toBe(3);
      expect(await steps.nth(1).locator('.chip.usage').textContent()).toBe(
        'provider: in 3,290 · cached 3,072 · out 25 · 640 ms',
      );
      expect(await steps.nth(1).locator('.chip.change').first().textContent()).toBe(
        '+2 −0 ~0 since previous',
      );
      expect(await steps.nth(2).locator('.context-tool-call').textContent()).toMatch(
        /^recall \{"query":"failing test"\} → PASS part 1/,
      );
      expect(await steps.nth(1).locator('.context-tool-call').count()).toBe(0);
      await steps.nth(2).locator('button.show-request').click();
      await steps.nth(2).locator('.step-body .tool-call').first().waitFor();
      expect(await steps.nth(2).locator('.step-body .msg[data-status="added"]').count()).toBe(2);
      await steps.nth(2).locator('button.copy').click();
      await expect
        .poll(() => steps.nth(2).locator('.copied').textContent())
        .toMatch(/^Copied [\d,]+ characters$/);
      const copied = await page.evaluate(() => String(Reflect.get(window, '__ctxloomCopied')));
      const sent = JSON.parse(copied) as { id: string }[];
      expect(sent.map((message) => message.id).slice(-2)).toEqual(['call-1', 'result-1']);
      expect(await layoutProblems(page)).toEqual([]);
      await page.screenshot({ path: path.join(RESULTS, 'inspector-timeline.png'), fullPage: true });
      expect(errors).toEqual([]);
    }, 120_000);

    it('stays usable at 400 px: Rebuild visible, content full width, nothing overflows', async () => {
      const { page, errors } = await open(400, `#/session/${encodeURIComponent('cli:direct')}`);
      await page.locator('#rows .row').first().waitFor();
      const rebuild = await page.locator('#rebuild').boundingBox();
      expect(rebuild).not.toBeNull();
      expect((rebuild?.x ?? 0) + (rebuild?.width ?? 0)).toBeLessThanOrEqual(400);
      expect(await page.locator('#rebuild').isVisible()).toBe(true);
      expect(
        await page.locator('main').evaluate((node) => node.getBoundingClientRect().width),
      ).toBeGreaterThanOrEqual(380);
      expect(await layoutProblems(page)).toEqual([]);
      await page.screenshot({ path: path.join(RESULTS, 'inspector-400.png') });
      await page.locator('#trace').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(RESULTS, 'inspector-400-trace.png') });
      await page.screenshot({ path: path.join(RESULTS, 'inspector-400-full.png'), fullPage: true });
      await page.locator('#tab-timeline').click();
      await page.locator('#timeline details.turn').first().waitFor();
      expect(await layoutProblems(page)).toEqual([]);
      await page.screenshot({ path: path.join(RESULTS, 'inspector-400-timeline.png'), fullPage: true });
      expect(errors).toEqual([]);
    }, 120_000);

    it('breaks no word of the trace table at 1280 px', async () => {
      const { page, errors } = await open(1280, `#/session/${encodeURIComponent('cli:direct')}`);
      await page.waitForSelector('#trace');
      expect(errors).toEqual([]);
      expect(await layoutProblems(page)).toEqual([]);
      await page.locator('#trace').screenshot({ path: path.join(RESULTS, 'inspector-1280-trace.png') });
      await page.close();
    });

    it('opens a 50,000-message session one page at a time', async () => {
      const { page, errors } = await open(1400, `#/session/${encodeURIComponent(BIG_KEY)}`);
      await page.locator('#rows .row').first().waitFor({ timeout: 60_000 });
      const pager = page.locator('#rows-pager span.muted');
      expect(await pager.textContent()).toMatch(/^rows [\d,]+–([\d,]+) of \1$/);
      const total = Number((await pager.textContent())?.replace(/^.* of /, '').replaceAll(',', ''));
      expect(total).toBeGreaterThan(BIG_COUNT);
      expect(await page.locator('#rows .row').count()).toBe(200);
      await page.locator('#rows-pager button[data-page="first"]').click();
      await expect.poll(() => pager.textContent()).toMatch(/^rows 1–200 of /);
      expect(await page.locator('#rows [data-side="stored"] .msg').first().getAttribute('data-status')).toBe(
        'boundary-skipped',
      );
      expect(await layoutProblems(page)).toEqual([]);
      await page.screenshot({ path: path.join(RESULTS, 'inspector-50k.png') });
      expect(errors).toEqual([]);
    }, 120_000);

    it('refreshes by itself when the session changes on disk', async () => {
      const { page } = await open(1400, `#/session/${encodeURIComponent('telegram:8281248569')}`);
      await page.locator('#rows .row').first().waitFor();
      await expect.poll(() => page.locator('#live').textContent()).toBe('● live');
      const before = await page.locator('#rows [data-side="stored"] .msg').count();
      await new JsonlSessionStore({ dir: path.join(workspace, 'sessions') }).append('telegram:8281248569', [
        user('And the release date?', { id: 'live-1' }),
      ]);
      await expect
        .poll(() => page.locator('#live').textContent(), { timeout: 15_000 })
        .toMatch(/^● updated /);
      await expect
        .poll(() => page.locator('#rows [data-side="stored"] .msg').count(), { timeout: 15_000 })
        .toBe(before + 1);
    }, 60_000);

    it('warns about a timestamp in SOUL.md that changed since the last build, also at 400 px', async () => {
      const soul = path.join(workspace, 'SOUL.md');
      const original = await readFile(soul, 'utf8');
      const key = encodeURIComponent('telegram:8281248569');
      // A new turn makes the server build again (it reuses an inspection while the session is unchanged).
      const turn = (id: string) =>
        new JsonlSessionStore({ dir: path.join(workspace, 'sessions') }).append('telegram:8281248569', [
          user('Anything new?', { id }),
        ]);
      try {
        // Build the session once with SOUL.md as it is, so the change below has a build to differ from
        // whichever tests ran before this one.
        await turn('volatile-0');
        const baseline = await fetch(new URL(`api/sessions/${key}/context`, server?.url));
        expect(baseline.status).toBe(200);
        await writeFile(soul, `${original}\nLast synced 2026-12-01 12:00 by the sync job.\n`);
        await turn('volatile-1');
        const first = await open(1400, `#/session/${key}`);
        await first.page.locator('#rows .row').first().waitFor();
        // the line itself is new since the session was last built
        expect(await first.page.locator('#warnings .warning-volatile-content').textContent()).toContain(
          '"" → "Last" (changed)',
        );
        await writeFile(soul, `${original}\nLast synced 2026-12-01 12:05 by the sync job.\n`);
        await turn('volatile-2');
        const { page, errors } = await open(400, `#/session/${key}`);
        const warning = page.locator('#warnings .warning-volatile-content');
        await warning.first().waitFor();
        expect(await warning.count()).toBe(1);
        expect(await warning.textContent()).toMatch(
          /^Prompt cache: system message 0 \(system-prompt\) changes between builds at character \d+: "12:00" → "12:05" \(clock-time\)/,
        );
        expect(await layoutProblems(page)).toEqual([]);
        await page.screenshot({ path: path.join(RESULTS, 'inspector-400-volatile.png') });
        expect(errors).toEqual([]);
      } finally {
        await writeFile(soul, original);
      }
    }, 60_000);

    it('warns in red when the context loses the whole history to one large read_file result', async () => {
      const key = 'lossy:1';
      const words = Array.from({ length: 70_000 }, (_, index) => `w${(index * 7919) % 10_007} `).join('');
      await new JsonlSessionStore({ dir: path.join(workspace, 'sessions') }).append(key, [
        user('What is in the repo?', { id: 'l1' }),
        assistant('A small example.', { id: 'l2' }),
        user('Read the whole log.', { id: 'l3' }),
        assistant('', {
          id: 'l4',
          toolCalls: [{ id: 'c_log', name: 'read_file', arguments: { path: 'log' } }],
        }),
        tool(words, { id: 'l5', toolCallId: 'c_log', name: 'read_file' }),
      ]);
      const { page, errors } = await open(1400, `#/session/${encodeURIComponent(key)}`);
      await page.locator('#session-title').getByText(key).waitFor();
      await page.locator('#message').fill('What now?');
      await page.locator('#rebuild').click();
      const warning = page.locator('#warnings .warning-context-loss');
      await warning.first().waitFor({ timeout: 30_000 });
      expect(await warning.first().textContent()).toMatch(/^None of the \d+ history messages is sent/);
      expect(await warning.first().evaluate((node) => getComputedStyle(node).fontWeight)).toBe('600');
      expect(await layoutProblems(page)).toEqual([]);
      expect(errors).toEqual([]);
    }, 120_000);

    it('lists the compaction records; each opens to the raw messages it replaced, its pins and its parents', async () => {
      const key = 'compacted:1';
      const store = new JsonlSessionStore({ dir: path.join(workspace, 'sessions') });
      await store.append(key, [
        user('Always answer in French.', { id: 'c0', metadata: { pinned: true } }),
        assistant('Compris.', { id: 'c1' }),
        user('Read <b>the</b> log.', { id: 'c2' }),
        assistant('', { id: 'c3', toolCalls: [{ id: 'k1', name: 'read_file', arguments: { path: 'log' } }] }),
        tool('line 1', { id: 'c4', toolCallId: 'k1', name: 'read_file' }),
        assistant('One line.', { id: 'c5' }),
        user('Thanks.', { id: 'c6' }),
      ]);
      const base = {
        kind: 'summary',
        producer: { strategy: 'summarize', model: 'cheap' },
        trigger: 'manual',
        createdAt: '2026-12-07T10:00:00.000Z',
      } as const;
      await appendCompaction(store, {
        sessionKey: key,
        record: {
          ...base,
          id: 'r1',
          replaces: ['c1', 'c2', 'c3', 'c4'],
          pinned: ['c0'],
          summary: { id: 's1', role: 'user', content: 'The user asked to read the log.' },
          depth: 1,
          parents: [],
          tokensBefore: 1_200,
          tokensAfter: 150,
        },
      });
      await appendCompaction(store, {
        sessionKey: key,
        record: {
          ...base,
          id: 'r2',
          replaces: ['r1', 'c5'],
          pinned: ['c0'],
          summary: { id: 's2', role: 'user', content: 'The log was read.' },
          depth: 2,
          parents: ['r1'],
          tokensBefore: 300,
          tokensAfter: 40,
          trigger: 'auto',
        },
      });
      const { page, errors } = await open(1400, `#/session/${encodeURIComponent(key)}`);
      const records = page.locator('#compactions details.compaction');
      await records.first().waitFor();
      expect(await page.locator('#compactions h3').textContent()).toBe('Compaction records (2)');
      expect(await records.nth(0).locator('summary').textContent()).toBe(
        'r1 · summary · manual · summarize, cheap · depth 1 · 2026-12-07 10:00:00.000Z · 1,200 → 150 tokens (saved 1,050)',
      );
      expect(await records.nth(1).locator('summary').textContent()).toContain('r2 · summary · auto');
      // closed until asked: nothing of what was replaced is drawn yet
      expect(await page.locator('#compactions .compaction-item').count()).toBe(0);
      await records.nth(1).locator('summary').click();
      const second = records.nth(1).locator('.compaction-item');
      expect(await second.evaluateAll((items) => items.map((item) => item.getAttribute('data-id')))).toEqual([
        'r1',
        'c5',
        'c0',
      ]);
      await records.nth(1).locator('button.parent-record').click();
      expect(await records.nth(0).evaluate((node) => (node as HTMLDetailsElement).open)).toBe(true);
      const first = records.nth(0).locator('.compaction-item');
      expect(
        await first.evaluateAll((items) =>
          items.map((item) => [item.getAttribute('data-item'), item.getAttribute('data-id')]),
        ),
      ).toEqual([
        ['replaced', 'c1'],
        ['replaced', 'c2'],
        ['replaced', 'c3'],
        ['replaced', 'c4'],
        ['pinned', 'c0'],
      ]);
      // the raw messages, as text, with their tool calls and results
      expect(await first.nth(1).locator('pre').textContent()).toBe('Read <b>the</b> log.');
      expect(await page.locator('#compactions b').count()).toBe(0);
      expect(await first.nth(2).locator('.tool-label').textContent()).toBe('tool call · read_file · k1');
      expect(await first.nth(3).locator('.tool-label').textContent()).toBe(
        'tool result · read_file · for k1',
      );
      expect(await records.nth(0).locator('.compaction-summary pre').textContent()).toBe(
        'The user asked to read the log.',
      );
      expect(await layoutProblems(page)).toEqual([]);
      await page.screenshot({ path: path.join(RESULTS, 'inspector-compactions.png'), fullPage: true });
      const narrow = await open(400, `#/session/${encodeURIComponent(key)}`);
      await narrow.page.locator('#compactions details.compaction').first().waitFor();
      await narrow.page.locator('#compactions details.compaction summary').first().click();
      expect(await layoutProblems(narrow.page)).toEqual([]);
      expect([...errors, ...narrow.errors]).toEqual([]);
    }, 120_000);

    it('shows hostile session content as text and never runs it', async () => {
      const { page } = await open(1400, `#/session/${encodeURIComponent(HOSTILE_KEY)}`);
      await page.locator('#session-title').getByText(HOSTILE_KEY).waitFor();
      expect(await page.locator('#rows [data-side="stored"] pre').first().textContent()).toBe(
        '<script>window.__pwned=2</script><b>bold?</b>',
      );
      expect(await page.evaluate(() => Reflect.get(window, '__pwned'))).toBeUndefined();
      expect(await page.locator('#rows b').count()).toBe(0);
    }, 60_000);
  },
);
