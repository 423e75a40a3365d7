import type { Message } from '../core/message.js';
import { NANOBOT_EXTRA_KEY } from './nanobot-message.js';

/** Reads a nanobot-only field (`_command`, `_channel_delivery`, `media`, …) kept in `metadata.nanobot`. */
export function nanobotField(message: Message, name: string): unknown {
  const extra = message.metadata?.[NANOBOT_EXTRA_KEY];
  if (typeof extra !== 'object' || extra === null) return undefined;
  return Reflect.get(extra, name);
}

/** True when the field is present and truthy (Python truthiness for the usual JSON values). */
export function hasNanobotFlag(message: Message, name: string): boolean {
  const value = nanobotField(message, name);
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return Boolean(value);
}
