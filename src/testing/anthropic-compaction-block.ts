import { createHash } from 'node:crypto';
import { anthropicCoded, anthropicInvalid } from './anthropic-errors.js';
import { contentText, hmac, type ScriptedReply } from './scripted-json-server.js';

type Json = Record<string, unknown>;
type Block = Json;

/** The compaction rules: in `system` or not first, more than one with content, edited. */
export function checkBlocks(body: Json, list: readonly Json[], secret: string): ScriptedReply | undefined {
  const system = body['system'];
  if (Array.isArray(system) && system.some((block: Json) => block['type'] === 'compaction'))
    return anthropicCoded('compaction_block_misplaced', 'a compaction block cannot be in system');
  const found: { block: Block; first: boolean }[] = [];
  list.forEach((message, at) => {
    const content = message['content'];
    if (!Array.isArray(content)) return;
    content.forEach((block: Block, index) => {
      if (block['type'] === 'compaction' && block['content'] !== null && block['content'] !== undefined)
        found.push({ block, first: at === 0 && index === 0 });
    });
  });
  if (found.length > 1)
    return anthropicCoded(
      'compaction_block_ambiguous',
      'messages hold more than one compaction block with content',
    );
  const [only] = found;
  if (only === undefined)
    return list[0]?.['role'] === 'user'
      ? undefined
      : anthropicInvalid('the first message must use the user role');
  if (!only.first)
    return anthropicCoded(
      'compaction_block_misplaced',
      'the compaction block must be the first block of the conversation',
    );
  return verify(only.block, secret);
}

function verify(block: Block, secret: string): ScriptedReply | undefined {
  const content = block['content'];
  if (content === '') return anthropicInvalid('compaction block content cannot be empty');
  const sealed = unseal(block['encrypted_content']);
  if (sealed === undefined)
    return anthropicCoded(
      'compaction_signature_invalid',
      'the compaction block encrypted_content is not one this server made',
    );
  if (digest(content) !== sealed['content'])
    return anthropicCoded(
      'compaction_content_mismatch',
      'the compaction block content differs from what its signature recorded',
    );
  if (digest(block['tool_changes'] ?? null) !== sealed['tool_changes'])
    return anthropicCoded(
      'compaction_tool_changes_mismatch',
      'the compaction block tool_changes differ from what was returned',
    );
  if (block['signature'] !== hmac(secret, signedText(block)))
    return anthropicCoded('compaction_signature_invalid', 'the compaction block signature does not verify');
  return undefined;
}

export function onDemandProblem(list: readonly Json[]): ScriptedReply | undefined {
  const last = list.at(-1);
  if (last?.['role'] === 'assistant') {
    const content = last['content'];
    const onlyBlock =
      Array.isArray(content) && content.every((block: Block) => block['type'] === 'compaction');
    if (!(list.length === 1 && onlyBlock))
      return anthropicCoded('compaction_incomplete_turn', 'the compaction request ends on an assistant turn');
  }
  const text = list.some((message) =>
    typeof message['content'] === 'string'
      ? message['content'] !== ''
      : Array.isArray(message['content']) &&
        (message['content'] as Block[]).some((block) => block['type'] !== 'compaction'),
  );
  return text
    ? undefined
    : anthropicCoded('compaction_nothing_to_summarize', 'messages hold nothing to summarize');
}

export function signedBlock(
  list: readonly Json[],
  run: { readonly secret: string; readonly instructions: unknown },
): Block {
  const focus =
    typeof run.instructions === 'string' && run.instructions.trim() !== ''
      ? ` Focus: ${run.instructions}.`
      : '';
  const content = `Summary of ${list.length} messages. Last request: ${contentText(lastUser(list)?.['content'])}.${focus}`;
  const toolChanges: unknown[] = [];
  const encrypted = Buffer.from(
    JSON.stringify({ content: digest(content), tool_changes: digest(toolChanges) }),
  ).toString('base64');
  const block: Block = {
    type: 'compaction',
    content,
    encrypted_content: encrypted,
    tool_changes: toolChanges,
  };
  return { ...block, signature: hmac(run.secret, signedText(block)) };
}

function signedText(block: Block): string {
  return JSON.stringify([block['content'], block['encrypted_content'], block['tool_changes'] ?? null]);
}

function unseal(value: unknown): Json | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Json) : undefined;
  } catch {
    return undefined;
  }
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url');
}

export function lastUser(list: readonly Json[]): Json | undefined {
  return list.findLast((message) => message['role'] === 'user');
}
