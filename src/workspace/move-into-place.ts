import { unlink } from 'node:fs/promises';
import { linkNew } from './atomic-write.js';
import { holdsBytes } from './fs-helpers.js';
import { alternateTakenMessage, type OffloadJob } from './offload-job.js';

/**
 * Moves a synced temp file to its target without replacing anything; false when the target turned
 * out to hold the same bytes already (written meanwhile by another process or an earlier job). Other
 * bytes under nanobot's name send these to the alternate; other bytes under the alternate throw
 * (see `alternateTakenMessage`).
 */
export async function moveIntoPlace(job: OffloadJob, temp: string): Promise<boolean> {
  if (!job.alternate) {
    if (await linkNew(temp, job.plan.path)) return true;
    if ((await holdsBytes(job.plan.path, job.plan.stored)) === 'same') {
      await unlink(temp);
      return false;
    }
    job.alternate = true;
  }
  if (await linkNew(temp, job.plan.alternate.path)) return true;
  if ((await holdsBytes(job.plan.alternate.path, job.plan.stored)) !== 'same')
    throw new Error(alternateTakenMessage(job.plan));
  await unlink(temp);
  return false;
}
