import { describeSessionStoreContract } from '../testing/contracts/session-store-contract.js';
import { MemorySessionStore } from './memory-session-store.js';

describeSessionStoreContract({ name: 'memory', create: () => new MemorySessionStore(), repetitions: 2 });
