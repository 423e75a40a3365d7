/**
 * The inspector page's Tools panel in headless Chromium (playwright-core; /usr/bin/chromium or
 * CTXLOOM_CHROMIUM_PATH): per-tool tokens from the session's last recorded request, deferred tools
 * marked, the ones the model loaded named.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleWorkspace } from '../../test/helpers/example-workspace.js';
import { recordDeferredRequest } from '../../test/helpers/record-deferred-request.js';
import { openWorkspaceInspector } from './open-workspace-inspector.js';
import { type InspectorServer, startInspectorServer } from './start-inspector-server.js';

const CHROMIUM = process.env['CTXLOOM_CHROMIUM_PATH'] ?? '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))('inspector page: tools', () => {
  let workspace = '';
  let server: InspectorServer | undefined;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    workspace = await copyExampleWorkspace('ctxloom-inspector-tools-');
    await recordDeferredRequest(workspace);
    server = await startInspectorServer({ inspector: await openWorkspaceInspector({ workspace }), port: 0 });
    context = await chromium.launchPersistentContext('', {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    await context.route('**/*', (route) =>
      new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort(),
    );
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  it('lists each tool with its tokens, deferred and loaded ones marked', async () => {
    if (context === undefined || server === undefined) throw new Error('setup failed');
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(server.url);
    await page.getByRole('link', { name: 'cli:direct' }).click();
    await page.locator('#tools').waitFor();
    expect(await page.locator('#tools-summary').textContent()).toMatch(
      /^Sent: 7 tools, [\d,]+ tokens · deferred \(not sent\): 60 tools, [\d,]+ tokens$/,
    );
    expect(await page.locator('#loaded-tools').textContent()).toBe('Loaded by the model: jira__create_issue');
    expect(await page.locator('#tools tr[data-tool]').count()).toBe(67);
    expect(await page.locator('#tools tr[data-state="deferred, loaded"]').getAttribute('data-tool')).toBe(
      'jira__create_issue',
    );
    expect(await page.locator('#tools tr[data-tool="tool_search"] td').nth(2).textContent()).toBe('sent');
    expect(errors).toEqual([]);
  });
});
