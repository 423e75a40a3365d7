import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { syncDirectory } from '../workspace/atomic-write.js';
import { tempFileFor } from './ctxloom-temp-file.js';
import { createFileSink, type FileSink } from './file-sink.js';

/**
 * Replaces `file` with what `fill` writes, atomically: a temp file next to it (`tempFileFor`, created
 * exclusively, mode 0600), fsync, rename over the target, folder fsync. A reader sees the old file or
 * the new one, never a mix; a crash leaves the old file and, at worst, a temp file that
 * `removeStaleTempFiles` cleans up later.
 */
export async function replaceFileAtomically(
  file: string,
  fill: (sink: FileSink) => Promise<void>,
): Promise<void> {
  const temp = tempFileFor(file);
  const handle = await open(temp, 'wx', 0o600);
  try {
    const sink = createFileSink(handle);
    await fill(sink);
    await sink.flush();
    await handle.sync();
    await handle.close();
    await rename(temp, file);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(path.dirname(file));
}
