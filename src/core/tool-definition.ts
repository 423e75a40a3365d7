/**
 * A tool the model may call, as sent with the request. `parameters` is a JSON Schema object. Tool
 * definitions count against the context budget.
 */
export type ToolDefinition = {
  readonly name: string;
  readonly description?: string;
  readonly parameters?: Readonly<Record<string, unknown>>;
};
