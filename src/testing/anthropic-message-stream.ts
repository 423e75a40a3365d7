type Json = Record<string, unknown>;
type Block = Json;

/** The message as Anthropic streams it: text by `text_delta`, a compaction block's content and encrypted content by `compaction_delta`. */
export function streamOf(
  message: Json & { readonly content: readonly Block[] },
): { event: string; data: Json }[] {
  const event = (data: Json): { event: string; data: Json } => ({ event: String(data['type']), data });
  const start = { ...message, content: [], stop_reason: null, context_management: null };
  const blocks = message.content.flatMap((block, index) => {
    const opening =
      block['type'] === 'text'
        ? { ...block, text: '' }
        : block['type'] === 'compaction'
          ? { ...block, content: null, encrypted_content: null }
          : block;
    const delta =
      block['type'] === 'text'
        ? [{ type: 'text_delta', text: block['text'] }]
        : block['type'] === 'compaction'
          ? [
              {
                type: 'compaction_delta',
                content: block['content'],
                encrypted_content: block['encrypted_content'],
              },
            ]
          : [];
    return [
      event({ type: 'content_block_start', index, content_block: opening }),
      ...delta.map((part) => event({ type: 'content_block_delta', index, delta: part })),
      event({ type: 'content_block_stop', index }),
    ];
  });
  return [
    event({ type: 'message_start', message: start }),
    ...blocks,
    event({
      type: 'message_delta',
      delta: { stop_reason: message['stop_reason'], stop_sequence: null },
      usage: { output_tokens: 12 },
      context_management: message['context_management'],
    }),
    event({ type: 'message_stop' }),
  ];
}
