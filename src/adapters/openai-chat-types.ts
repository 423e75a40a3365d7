/** A text part of an OpenAI chat message. */
export type OpenAIChatTextPart = { readonly type: 'text'; readonly text: string };

/** A user content part of an OpenAI chat completions request. */
export type OpenAIChatUserPart =
  | OpenAIChatTextPart
  | {
      readonly type: 'image_url';
      readonly image_url: { readonly url: string; readonly detail?: 'auto' | 'low' | 'high' };
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
 */
export type OpenAIChatMessage =
  | {
      readonly role: 'system' | 'developer';
      readonly content: string | readonly OpenAIChatTextPart[];
      readonly name?: string;
    }
  | {
      readonly role: 'user';
      readonly content: string | readonly OpenAIChatUserPart[];
      readonly name?: string;
    }
  | {
      readonly role: 'assistant';
      readonly content: string | readonly OpenAIChatTextPart[] | null;
      readonly name?: string;
      readonly tool_calls?: readonly OpenAIChatToolCall[];
      readonly reasoning_content?: string;
    }
  | {
      readonly role: 'tool';
      readonly content: string | readonly OpenAIChatTextPart[];
      readonly tool_call_id: string;
    };
