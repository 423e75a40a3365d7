import { hasErrorCode } from '../workspace/fs-helpers.js';

/** True when a process with this pid runs on this host (signal 0; `EPERM` means it runs as another user). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return hasErrorCode(error, 'EPERM');
  }
}
