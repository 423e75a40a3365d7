import { EstimatingTokenCounter, TiktokenTokenCounter } from '../src/tokens/index.js';
const est = new EstimatingTokenCounter();
const exact = await TiktokenTokenCounter.create({ encoding: 'o200k_base' });
const samples: Record<string,string> = {
  words: 'the context builder keeps the system prompt stable while the history grows '.repeat(300),
  digits: Array.from({length: 3000}, (_, i) => String(i * 7919 % 100000)).join(' '),
  code: 'const value = await fetchThing(options.id, { retries: 3 });\n'.repeat(300),
  json: JSON.stringify(Array.from({length:300},(_, i)=>({id:i,name:`item-${i}`,ok:true}))),
  dashes: '- [x] done item\n'.repeat(800),
  spaces: 'a    b    c    d\n'.repeat(800),
  hex: Array.from({length: 800}, (_, i) => (i*2654435761>>>0).toString(16)).join(' '),
};
for (const [k, v] of Object.entries(samples)) console.log(k, est.countText(v), exact.countText(v), (est.countText(v)/exact.countText(v)).toFixed(3));
