import { isRecord } from '../core/is-record.js';
import type { Metadata } from '../core/message.js';

/** The metadata record of a session file (nanobot's first line), as ctxloom reads it. */
export type SessionHeader = {
  readonly key?: string;
  readonly createdAt?: string;
  readonly updatedAt?: string;
  readonly metadata: Metadata;
  /** As stored; check it against the message count with {@link validLastConsolidated}. */
  readonly lastConsolidated: unknown;
};

/**
 * Reads nanobot's metadata record: `metadata` that is not an object becomes `{}`; nanobot's older
 * `last_archived` is read when `last_consolidated` is absent.
 */
export function sessionHeaderOf(record: Readonly<Record<string, unknown>>): SessionHeader {
  return {
    ...(typeof record['key'] === 'string' ? { key: record['key'] } : {}),
    ...(typeof record['created_at'] === 'string' ? { createdAt: record['created_at'] } : {}),
    ...(typeof record['updated_at'] === 'string' ? { updatedAt: record['updated_at'] } : {}),
    metadata: isRecord(record['metadata']) ? record['metadata'] : {},
    lastConsolidated: record['last_consolidated'] ?? record['last_archived'] ?? 0,
  };
}

/** nanobot's rule: an archive pointer that is not an integer in `0..count` (or is a boolean) reads as 0. */
export function validLastConsolidated(value: unknown, count: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= count ? value : 0;
}

/** The metadata record line, with nanobot's field names and order. */
export function formatHeaderLine(header: {
  readonly key: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly metadata: Metadata;
  readonly lastConsolidated: number;
}): string {
  return JSON.stringify({
    _type: 'metadata',
    key: header.key,
    created_at: header.createdAt,
    updated_at: header.updatedAt,
    metadata: header.metadata,
    last_consolidated: header.lastConsolidated,
  });
}
