#!/usr/bin/env node
import { main } from './main.js';

// A reader that stops early (`ctxloom build … | head -1`) closes the pipe: that is not an error.
// Any other failure to write the output (a full disk) ends with exit 1 and one line saying so.
for (const [name, stream] of [
  ['stdout', process.stdout],
  ['stderr', process.stderr],
] as const) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    if (name === 'stdout')
      process.stderr.write(
        `UNEXPECTED: cannot write the output (${error.message}); check where stdout goes (a full disk?).\n`,
      );
    process.exit(1);
  });
}

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
});
process.exitCode = code;
