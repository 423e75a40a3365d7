/** The fingerprint of a template text: its length and SHA-256 (hex) as compared, see below. */
export type TemplateDigest = { readonly chars: number; readonly sha256: string };

/**
 * Fingerprints of the workspace templates nanobot syncs into a fresh workspace (HKUDS/nanobot
 * 3852956a): the length and SHA-256 of each text as nanobot compares it (LF line ends, stripped as
 * Python's `strip()` does). nanobot leaves an untouched AGENTS.md, USER.md or memory/MEMORY.md out of
 * the prompt; ctxloom recognises such a file by this fingerprint, so a nanobot workspace reads as in
 * nanobot without ctxloom shipping nanobot's texts. Templates of other nanobot versions can be passed
 * as `extraTemplates`.
 */
export const NANOBOT_TEMPLATE_DIGESTS: Readonly<Record<string, readonly TemplateDigest[]>> = Object.freeze({
  'AGENTS.md': [{ chars: 1938, sha256: 'b5d3a9f71da9ae2f28a431ed3edb32a622b56d9b7501aa8ae75dad87ea692dfd' }],
  'USER.md': [{ chars: 841, sha256: '4a69b5be617ad5a182d7411d76e3c42ed6483e3c737308f481d64c6e3ccc89c1' }],
  'memory/MEMORY.md': [
    { chars: 407, sha256: 'd22710640c228b702c0d8d36196040ed56a734c13ca69afd14cb5888c894bb76' },
  ],
});
