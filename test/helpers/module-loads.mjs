// Registered with `node --import` by root-import.test.ts: reports every ES module resolved (stderr,
// one `resolved <url>` line each) and, at exit, every CommonJS module loaded (`required <path>`).
import { createRequire, register } from 'node:module';

register('./module-loads-hook.mjs', import.meta.url);
const require = createRequire(import.meta.url);
process.on('exit', () => {
  for (const file of Object.keys(require.cache)) process.stderr.write(`required ${file}\n`);
});
