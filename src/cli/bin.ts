#!/usr/bin/env node
import { main } from './main.js';

// A reader that stops early (`ctxloom build … | head -1`) closes the pipe: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
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
