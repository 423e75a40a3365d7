import type { ToolDefinition } from '../core/tool-definition.js';

/**
 * What tool search looks at for one tool: its name, its description, and the names and descriptions
 * of its parameters (nested object properties and array items too), one per line.
 */
export function toolSearchText(tool: ToolDefinition): string {
  const lines = [tool.name];
  if (tool.description !== undefined) lines.push(tool.description);
  collectParameters(tool.parameters, { lines, depth: 0 });
  return lines.join('\n');
}

function collectParameters(schema: unknown, run: { readonly lines: string[]; readonly depth: number }): void {
  const { lines, depth } = run;
  if (depth > 8 || typeof schema !== 'object' || schema === null) return;
  const properties = (schema as { readonly properties?: unknown }).properties;
  if (typeof properties === 'object' && properties !== null) {
    for (const [name, property] of Object.entries(properties)) {
      lines.push(name);
      const description = (property as { readonly description?: unknown } | null)?.description;
      if (typeof description === 'string') lines.push(description);
      collectParameters(property, { lines, depth: depth + 1 });
    }
  }
  collectParameters((schema as { readonly items?: unknown }).items, { lines, depth: depth + 1 });
}
