import { describeSessionStoreContract } from '../testing/contracts/session-store-contract.js';
import { MemorySessionStore } from './memory-session-store.js';

describeSessionStoreContract({
  name: 'memory',
  create: ({ now }) => new MemorySessionStore({ now }),
  repetitions: 2,
});
