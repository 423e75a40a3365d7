import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlSessionStore } from '../index.js';
import { openWorkspaceInspector } from './open-workspace-inspector.js';
import { type InspectorServer, startInspectorServer } from './start-inspector-server.js';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.resolve(import.meta.dirname, '../..');
const SCREENSHOT = path.join(ROOT, 'test-results/inspector.png');
const HOSTILE_KEY = 'web:<img src=x onerror="window.__pwned=1">';
const isAvailable = existsSync(CHROMIUM);
const { CI = '' } = process.env;
const isCi = CI !== '' && CI !== 'false';

if (!isAvailable && isCi) {
  describe('inspector page in Chromium', () => {
    it('needs Chromium', () => {
      throw new Error(
        `Chromium is missing at ${CHROMIUM}: install it with 'apt-get install -y chromium' (.ci/run does).`,
      );
    });
  });
}

describe.skipIf(!isAvailable)('inspector page in Chromium', () => {
  let temp = '';
  let server: InspectorServer | undefined;
  let context: BrowserContext | undefined;
  const external: string[] = [];

  beforeAll(async () => {
    temp = await mkdtemp(path.join(tmpdir(), 'ctxloom-browser-'));
    const workspace = path.join(temp, 'workspace');
    await cp(path.join(ROOT, 'examples/workspace'), workspace, { recursive: true });
    await new JsonlSessionStore({ dir: path.join(workspace, 'sessions') }).append(HOSTILE_KEY, [
      { id: 'x1', role: 'user', content: '<script>window.__pwned=2</script><b>bold?</b>' },
    ]);
    server = await startInspectorServer({ inspector: await openWorkspaceInspector({ workspace }), port: 0 });
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
      viewport: { width: 1280, height: 900 },
    });
    await context.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1') return route.continue();
      external.push(url.href);
      return route.abort();
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    await rm(temp, { recursive: true, force: true });
  });

  it('shows a session section by section with the budget chart, trace and diff', async () => {
    if (context === undefined || server === undefined) throw new Error('setup failed');
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(server.url);
    const sessions = page.locator('#sessions a');
    await expect
      .poll(() => sessions.allTextContents())
      .toEqual(['cli:direct', 'telegram:8281248569', HOSTILE_KEY]);

    // the inline style and script run under the strict CSP (hash-allowed), so the page is styled
    expect(await page.locator('header').evaluate((node) => getComputedStyle(node).backgroundColor)).toBe(
      'rgb(29, 36, 51)',
    );
    await page.getByRole('link', { name: 'cli:direct' }).click();
    await page.locator('#session-title').getByText('cli:direct').waitFor();
    expect(await page.locator('#usage').textContent()).toMatch(
      /^gpt-4o · [\d,]+\/128,000 tokens \(\d+\.\d%\)/,
    );
    expect(await page.locator('#chart svg rect').count()).toBeGreaterThanOrEqual(5);
    expect(await page.locator('#chart .legend tr').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^ AGENTS\.md[\d,]+\d+\.\d%$/)]),
    );
    const summaries = await page.locator('details.section > summary').allTextContents();
    expect(summaries.map((text) => text.replace(/ [\d,]+ tokens$/, '').trim())).toEqual(
      expect.arrayContaining(['Identity', 'AGENTS.md', 'SOUL.md', 'USER.md', 'History']),
    );

    const agents = page.locator('details.section[data-section="file:AGENTS.md"]');
    expect(await agents.evaluate((node) => node.hasAttribute('open'))).toBe(false);
    await agents.locator('summary').click();
    expect(await agents.evaluate((node) => node.hasAttribute('open'))).toBe(true);
    await expect.poll(() => agents.locator('pre').first().isVisible()).toBe(true);
    expect(await agents.locator('pre').first().textContent()).toMatch(/^## AGENTS\.md\n\n/);

    expect(await page.locator('#trace tr').count()).toBeGreaterThan(3);
    expect(await page.locator('#trace li.decision[data-type="message-drop"]').count()).toBeGreaterThan(0);
    expect(await page.locator('#trace li.decision[data-type="tool-result-offload"]').count()).toBe(1);
    const status = (id: string) => page.locator(`#stored li[data-id="${id}"]`).getAttribute('data-status');
    expect(await status('m01')).toBe('not-replayed');
    expect(await status('m18')).toBe('rewritten');
    expect(await status('m22')).toBe('dropped');
    expect(await page.locator('#stored li[data-id="m22"] .reasons').textContent()).toMatch(
      /^message-drop by /,
    );
    expect(await page.locator('#sent li[data-status="added"]').count()).toBeGreaterThan(0);

    await page.locator('#message').fill('What should I work on next?');
    await page.locator('#rebuild').click();
    await page.locator('details.section[data-section="current-message"]').waitFor();
    await agents.locator('summary').waitFor();
    await page.locator('details.section[data-section="file:AGENTS.md"] > summary').click();

    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-top.png') });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
  }, 120_000);

  it('shows hostile session content as text and never runs it', async () => {
    if (context === undefined || server === undefined) throw new Error('setup failed');
    const page = await context.newPage();
    await page.goto(`${server.url}#/session/${encodeURIComponent(HOSTILE_KEY)}`);
    await page.locator('#session-title').getByText(HOSTILE_KEY).waitFor();
    expect(await page.locator('#stored pre').first().textContent()).toBe(
      '<script>window.__pwned=2</script><b>bold?</b>',
    );
    expect(await page.evaluate(() => Reflect.get(window, '__pwned'))).toBeUndefined();
    expect(await page.locator('#stored b').count()).toBe(0);
  }, 60_000);
});
