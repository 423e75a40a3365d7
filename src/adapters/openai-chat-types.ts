// Arrays are mutable (`T[]`, not `readonly T[]`) so that the output is assignable to the `openai`
// SDK's `ChatCompletionMessageParam[]` without a cast (a readonly array is not assignable to a mutable one).

/** A text part of an OpenAI chat message. */
export type OpenAIChatTextPart = { readonly type: 'text'; readonly text: string };

/** A user content part of an OpenAI chat completions request. */
export type OpenAIChatUserPart =
  | OpenAIChatTextPart
  | {
      readonly type: 'image_url';
      readonly image_url: { readonly url: string; readonly detail?: 'auto' | 'low' | 'high' | 'original' };
    }
  | {
      readonly type: 'input_audio';
      readonly input_audio: { readonly data: string; readonly format: 'wav' | 'mp3' };
    }
  | {
      readonly type: 'file';
      readonly file: { readonly file_data?: string; readonly file_id?: string; readonly filename?: string };
    };

/** A function tool call in an assistant message. */
export type OpenAIChatToolCall = {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
};

/**
 * One message of an OpenAI chat completions request (`messages[]`). `reasoning_content` is the field
 * OpenAI-compatible servers (DeepSeek, Qwen, vLLM) use for reasoning; OpenAI itself does not take it.
 * A message given back unchanged from `fromOpenAIChatMessages` keeps every field it had.
 */
export type OpenAIChatMessage =
  | {
      readonly role: 'system' | 'developer';
      readonly content: string | OpenAIChatTextPart[];
      readonly name?: string;
    }
  | { readonly role: 'user'; readonly content: string | OpenAIChatUserPart[]; readonly name?: string }
  | {
      readonly role: 'assistant';
      readonly content: string | OpenAIChatTextPart[] | null;
      readonly name?: string;
      readonly tool_calls?: OpenAIChatToolCall[];
      readonly reasoning_content?: string;
    }
  | { readonly role: 'tool'; readonly content: string | OpenAIChatTextPart[]; readonly tool_call_id: string };
