import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeSessionStoreContract } from '../testing/contracts/session-store-contract.js';
import { JsonlSessionStore } from './jsonl-session-store.js';

const dirs = new Map<object, string>();

describeSessionStoreContract({
  name: 'jsonl',
  repetitions: 2,
  create: async ({ now }) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-jsonl-'));
    const store = new JsonlSessionStore({ dir: path.join(dir, 'sessions'), now });
    dirs.set(store, dir);
    return store;
  },
  cleanup: async (store) => {
    const dir = dirs.get(store);
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  },
});
