import { parse, YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { ContextError } from '../core/errors.js';
import { CONFIG_FILE_NAME } from './config-file-name.js';
import { type CtxloomConfig, ctxloomConfigSchema } from './config-schema.js';
import { describeConfigIssue } from './describe-config-issue.js';

/**
 * Validates the text of a `ctxloom.yaml`; `file` names it in errors.
 * @throws ContextError `INVALID_CONFIG` (see `loadConfig`).
 */
export function parseConfig(text: string, file: string = CONFIG_FILE_NAME): CtxloomConfig {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw yamlError(error, file);
  }
  if (raw === null || raw === undefined) return {};
  const result = ctxloomConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue: z.core.$ZodIssue) => describeConfigIssue(issue, raw));
  throw new ContextError({
    code: 'INVALID_CONFIG',
    message: problems.map((problem) => `${file}: ${problem.path}: ${problem.message}`).join('\n'),
    details: { file, issues: problems },
  });
}

function yamlError(error: unknown, file: string): ContextError {
  if (error instanceof YAMLParseError) {
    const position = error.linePos?.[0];
    const where = position === undefined ? '' : `:${position.line}:${position.col}`;
    const firstLine = error.message.split('\n')[0] ?? error.message;
    return new ContextError({
      code: 'INVALID_CONFIG',
      message: `${file}${where}: YAML syntax error: ${firstLine}`,
      cause: error,
      details: { file, ...(position === undefined ? {} : { line: position.line, column: position.col }) },
    });
  }
  return new ContextError({ code: 'INVALID_CONFIG', message: `${file}: ${String(error)}`, cause: error });
}
