import { matchesWorkspaceTemplate } from '../workspace/workspace-templates.js';

/**
 * The bootstrap-file template rule both the agent and the chat presets apply: AGENTS.md, USER.md and
 * TOOLS.md whose content (as read) equals their `WORKSPACE_TEMPLATES` text or one of
 * `extraTemplates` are untouched templates and skipped; SOUL.md never is (its template is the
 * persona). Files without a template are never skipped. @internal
 */
export function isUntouchedTemplate(
  file: string,
  check: { readonly content: string; readonly extraTemplates?: readonly string[] },
): boolean {
  return (
    file !== 'SOUL.md' &&
    matchesWorkspaceTemplate({ file, content: check.content, extraTemplates: check.extraTemplates ?? [] })
  );
}
