declare const messageIdBrand: unique symbol;
declare const sessionIdBrand: unique symbol;
declare const toolCallIdBrand: unique symbol;
declare const skillIdBrand: unique symbol;

/** A message's stable id (32 hex characters by default). */
export type MessageId = string & { readonly [messageIdBrand]: true };
/** A session key such as `cli:direct` or `telegram:8281248569`. */
export type SessionId = string & { readonly [sessionIdBrand]: true };
/** The id that pairs a tool call with its result. */
export type ToolCallId = string & { readonly [toolCallIdBrand]: true };
/** A skill's name, which is also its folder name. */
export type SkillId = string & { readonly [skillIdBrand]: true };

/** Makes ids for new messages; inject one to make runs deterministic. */
export type IdGenerator = () => string;

/** Brands a raw string as a {@link MessageId}. */
export const messageId = (raw: string): MessageId => raw as MessageId;
/** Brands a raw string as a {@link SessionId}. */
export const sessionId = (raw: string): SessionId => raw as SessionId;
/** Brands a raw string as a {@link ToolCallId}. */
export const toolCallId = (raw: string): ToolCallId => raw as ToolCallId;
/** Brands a raw string as a {@link SkillId}. */
export const skillId = (raw: string): SkillId => raw as SkillId;

/** The default id generator: a random UUID as 32 hex characters. */
export const generateMessageId: IdGenerator = () => globalThis.crypto.randomUUID().replaceAll('-', '');

/**
 * Makes a deterministic id generator (`prefix-1`, `prefix-2`, …) for tests and golden files.
 * @example const generateId = createSequentialIdGenerator('m');
 */
export function createSequentialIdGenerator(prefix = 'id'): IdGenerator {
  let next = 0;
  return () => {
    next += 1;
    return `${prefix}-${next}`;
  };
}
