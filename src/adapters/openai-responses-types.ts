// Arrays are mutable (`T[]`) so that the output is assignable to the `openai` SDK's
// `ResponseInputItem[]` (`ResponseInput`) without a cast.

/** A text input of the Responses API. */
export type OpenAIResponsesInputText = { readonly type: 'input_text'; readonly text: string };

/** An image input: a URL (or `data:` URL) or an uploaded file. */
export type OpenAIResponsesInputImage = {
  readonly type: 'input_image';
  readonly detail: 'low' | 'high' | 'auto' | 'original';
  readonly image_url?: string;
  readonly file_id?: string;
};

/** A file input: `data:` URL, URL or uploaded file. */
export type OpenAIResponsesInputFile = {
  readonly type: 'input_file';
  readonly file_data?: string;
  readonly file_url?: string;
  readonly file_id?: string;
  readonly filename?: string;
};

/** Any input content of a message or a function call output. */
export type OpenAIResponsesInputContent =
  | OpenAIResponsesInputText
  | OpenAIResponsesInputImage
  | OpenAIResponsesInputFile;

/** A message item (`EasyInputMessage`). */
export type OpenAIResponsesMessageItem = {
  readonly type?: 'message';
  readonly role: 'user' | 'assistant' | 'system' | 'developer';
  readonly content: string | OpenAIResponsesInputContent[];
};

/** A function call made by the model. */
export type OpenAIResponsesFunctionCall = {
  readonly type: 'function_call';
  readonly call_id: string;
  readonly name: string;
  readonly arguments: string;
  readonly id?: string;
};

/** The result of a function call. */
export type OpenAIResponsesFunctionCallOutput = {
  readonly type: 'function_call_output';
  readonly call_id: string;
  readonly output: string | OpenAIResponsesInputContent[];
};

/** A reasoning item as the model returned it (given back untouched: it may carry encrypted content). */
export type OpenAIResponsesReasoningItem = {
  readonly type: 'reasoning';
  readonly id: string;
  readonly summary: { readonly type: 'summary_text'; readonly text: string }[];
  readonly encrypted_content?: string | null;
};

/**
 * One item of a Responses API `input`. Items ctxloom does not model (web search calls, computer
 * calls, item references, …) given back from `fromOpenAIResponsesInput` are passed through as they
 * were.
 */
export type OpenAIResponsesInputItem =
  | OpenAIResponsesMessageItem
  | OpenAIResponsesFunctionCall
  | OpenAIResponsesFunctionCallOutput
  | OpenAIResponsesReasoningItem;
