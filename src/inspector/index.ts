/**
 * @module ctxloom/inspector
 * See the context: the token breakdown behind `ctxloom inspect`, and the read-only web inspector
 * behind `ctxloom serve`. Uses only the public API.
 */
export { type ContextPiece, contextPieces } from './context-pieces.js';
export {
  type DiffHistoryOptions,
  diffHistory,
  type HistoryDiff,
  type HistoryDiffEntry,
  type HistoryStatus,
} from './diff-history.js';
export {
  type ContextCategory,
  type ContextInspection,
  type ContextWarning,
  DEFAULT_INSPECT_CONTEXT,
  type InspectContextOptions,
  inspectContext,
} from './inspect-context.js';
export { createInspectorApp, type InspectorAppOptions } from './inspector-app.js';
export { INSPECTOR_PAGE_HTML, INSPECTOR_PAGE_SCRIPT, INSPECTOR_PAGE_STYLE } from './inspector-page.js';
export {
  DEFAULT_WORKSPACE_INSPECTOR,
  type OpenWorkspaceInspectorOptions,
  openWorkspaceInspector,
} from './open-workspace-inspector.js';
export {
  DEFAULT_RENDER_CONTEXT_REPORT,
  type RenderContextReportOptions,
  renderContextReport,
} from './render-context-report.js';
export { type CategoryKey, fileCategory, STANDARD_CATEGORIES, sectionCategory } from './section-category.js';
export {
  type ContextSectionView,
  type InspectorBuilder,
  type ReplayedSession,
  type SessionInspection,
  SessionInspector,
  type SessionInspectorOptions,
} from './session-inspector.js';
export {
  DEFAULT_INSPECTOR_SERVER,
  type InspectorServer,
  type StartInspectorServerOptions,
  startInspectorServer,
} from './start-inspector-server.js';
