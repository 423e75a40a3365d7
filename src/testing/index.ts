/**
 * @module ctxloom/testing
 */
export {
  describeSessionStoreContract,
  type SessionStoreContractOptions,
} from './contracts/session-store-contract.js';
