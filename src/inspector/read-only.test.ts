import { appendFile, cp, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimpleTokenCounter } from '../index.js';
import { createInspectorApp } from './inspector-app.js';
import { openWorkspaceInspector } from './open-workspace-inspector.js';

const example = path.resolve(import.meta.dirname, '../../examples/workspace');
let workspace = '';

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-inspector-ro-'));
  await cp(example, workspace, { recursive: true });
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** Every file under the workspace with its bytes and mode. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const info = await stat(file);
    out[path.relative(dir, file)] = `${info.mode.toString(8)} ${(await readFile(file)).toString('base64')}`;
  }
  return out;
}

describe('the inspector is read-only', () => {
  it('a GET on a session with a torn last line reports it and leaves every file as it was', async () => {
    const sessions = path.join(workspace, 'sessions');
    const file = path.join(
      sessions,
      (await readdir(sessions)).find((name) => name.endsWith('.jsonl')) as string,
    );
    await appendFile(file, '{"role":"user","content":"torn\xff');
    const before = await snapshot(workspace);
    const inspector = await openWorkspaceInspector({ workspace, tokenCounter: new SimpleTokenCounter() });
    const app = createInspectorApp({ inspector });
    const headers = { host: '127.0.0.1:4319' };
    const list = await app.request('/api/sessions', { headers });
    expect(list.status).toBe(200);
    const { sessions: listed } = (await list.json()) as { sessions: readonly { key: string }[] };
    const keys = listed.map((entry) => entry.key);
    expect(keys.length).toBeGreaterThan(0);
    const warnings: string[] = [];
    for (const key of keys) {
      const response = await app.request(`/api/sessions/${encodeURIComponent(key)}/context`, { headers });
      const body = await response.text();
      expect(response.status, body).toBe(200);
      warnings.push(...((JSON.parse(body) as { storeWarnings?: readonly string[] }).storeWarnings ?? []));
    }
    expect(warnings.length).toBeGreaterThan(0);
    expect(await snapshot(workspace)).toEqual(before);
    expect(
      (await readdir(sessions)).filter((name) => name.includes('.corrupt') || name.endsWith('.tmp')),
    ).toEqual([]);
  });
});
