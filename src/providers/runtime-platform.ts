/** The host facts the identity block prints; inject one so prompts do not depend on the host. */
export type RuntimePlatform = {
  /** A Node `process.platform` value: `linux`, `darwin`, `win32`, … */
  readonly os: string;
  /** A Node `process.arch` value: `x64`, `arm64`, … */
  readonly arch: string;
  /** The Node.js version without the `v`, e.g. `20.20.2`. */
  readonly nodeVersion: string;
};

/** The platform of the running process. */
export function currentPlatform(): RuntimePlatform {
  return { os: process.platform, arch: process.arch, nodeVersion: process.versions.node };
}

/**
 * `Linux x64, Node 20.x` (`macOS` for darwin, `Windows` for win32). Only the major Node version is
 * printed, so a patch upgrade does not change the system prompt (and invalidate prompt caches).
 */
export function describePlatform(platform: RuntimePlatform): string {
  const major = platform.nodeVersion.replace(/^v/, '').split('.')[0] ?? '';
  return `${osLabel(platform.os)} ${platform.arch}, Node ${major === '' ? '?' : major}.x`;
}

function osLabel(os: string): string {
  switch (os) {
    case 'darwin':
      return 'macOS';
    case 'win32':
      return 'Windows';
    case 'linux':
      return 'Linux';
    default:
      return os.length === 0 ? 'Unknown' : os.charAt(0).toUpperCase() + os.slice(1);
  }
}
