/** The page style sheet; its SHA-256 goes into the Content-Security-Policy. */
export const INSPECTOR_PAGE_STYLE = `
:root { color-scheme: light; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f; }
* { box-sizing: border-box; }
body { margin: 0; display: grid; grid-template-columns: 260px minmax(0, 1fr); grid-template-rows: auto 1fr; min-height: 100vh; }
header { grid-column: 1 / -1; background: #1d2433; color: #fff; padding: 8px 16px; display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; }
header h1 { font-size: 17px; margin: 0; white-space: nowrap; }
header .muted { color: #aab; }
header form { margin-left: auto; display: flex; gap: 6px; min-width: 0; flex: 0 1 420px; }
header input { flex: 1 1 auto; min-width: 0; padding: 4px 8px; }
#live { font-size: 12px; color: #9fdf9f; white-space: nowrap; }
nav { border-right: 1px solid #ddd; padding: 12px; background: #f7f7f9; min-width: 0; }
nav h2 { font-size: 15px; margin: 0 0 6px; }
nav ul { list-style: none; padding: 0; margin: 0; }
nav li { padding: 4px 0; }
nav a { color: #0b57d0; text-decoration: none; overflow-wrap: anywhere; }
nav a.active { font-weight: 700; }
nav .count { white-space: nowrap; font-size: 12px; }
main { padding: 12px 20px; min-width: 0; }
h2, h3, h4 { overflow-wrap: anywhere; }
.muted { color: #777; } .error { color: #b3261e; }
button { font: inherit; cursor: pointer; }
.tabs { display: flex; gap: 4px; margin: 8px 0 12px; flex-wrap: wrap; }
.tabs button { border: 1px solid #ccd; background: #fff; border-radius: 6px; padding: 4px 12px; }
.tabs button[aria-selected="true"] { background: #1d2433; color: #fff; border-color: #1d2433; }
figure { margin: 6px 0 10px; } figcaption { font-size: 12px; color: #555; margin-bottom: 2px; }
figure svg { display: block; border: 1px solid #ccc; border-radius: 3px; width: 100%; }
.legend { border-collapse: collapse; margin: 8px 0; }
.legend td { padding: 2px 10px 2px 0; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; vertical-align: -1px; }
#warnings, .step-warnings { padding-left: 18px; overflow-wrap: anywhere; } .warning { color: #8a4b00; }
.warning-context-loss { color: #a50e0e; font-weight: 600; }
.chip.caution { background: #fff4e0; color: #8a4b00; }
details.section, details.turn, details.compaction { border: 1px solid #ddd; border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
details > summary { cursor: pointer; font-weight: 600; overflow-wrap: anywhere; }
.tokens { color: #555; font-weight: 400; }
.item-head { color: #555; margin-top: 6px; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #fafafa; border: 1px solid #eee; padding: 6px; margin: 4px 0; }
pre.clipped { max-height: 9.5em; overflow: hidden; position: relative; }
button.expand { font-size: 12px; border: 0; background: none; color: #0b57d0; padding: 0; }
.scroll-x { overflow-x: auto; max-width: 100%; }
#trace { border-collapse: collapse; width: 100%; }
#trace td, #trace th { border-bottom: 1px solid #eee; padding: 4px 8px; vertical-align: top; text-align: left; overflow-wrap: break-word; }
#trace th, #trace td:nth-child(-n+5) { white-space: nowrap; }
#trace td:last-child { min-width: 18em; }
#trace ul { margin: 0; padding-left: 16px; }
.toolbar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 8px 0; }
.toolbar input { flex: 1 1 160px; min-width: 0; padding: 4px 8px; }
#search-results { margin: 4px 0 10px; padding-left: 18px; }
#search-results a { color: #0b57d0; cursor: pointer; overflow-wrap: anywhere; }
.rows-head, .row { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; }
.rows-head { font-weight: 600; border-bottom: 1px solid #ddd; padding: 4px 0; }
.row { border-bottom: 1px solid #f0f0f0; padding: 4px 0; }
.row.highlight { background: #fff7d6; }
.cell { min-width: 0; }
.msg-head { font-size: 12px; color: #444; overflow-wrap: anywhere; }
.msg.dropped pre, .msg.archived pre, .msg.boundary-skipped pre { text-decoration: line-through; color: #888; }
.badge { font-size: 11px; padding: 1px 6px; border-radius: 8px; background: #e8eaed; white-space: nowrap; }
.badge.dropped { background: #f9dedc; color: #8c1d18; } .badge.rewritten { background: #fff0c2; color: #6b4f00; }
.badge.added { background: #d3e3fd; color: #0b3d91; } .badge.archived { background: #e6e0f8; color: #4a3a7a; }
.badge.boundary-skipped { background: #eee; color: #555; }
.tool-call, .tool-result { border-left: 3px solid #ffaf00; padding-left: 8px; margin: 4px 0; }
.tool-result { border-left-color: #87d787; }
.tool-label { font-size: 12px; font-weight: 600; color: #6b4f00; overflow-wrap: anywhere; }
.tool-result .tool-label { color: #2d6a2d; }
.reasons { margin: 0; padding-left: 16px; color: #8c1d18; font-size: 12px; }
.compaction-item { border-left: 3px solid #d7af87; padding-left: 8px; margin: 4px 0; }
.compaction-item.missing { color: #777; }
button.parent-record { border: 0; background: none; color: #0b57d0; padding: 0; }
.step { border-top: 1px solid #eee; padding: 6px 0; }
.step-head { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; }
.step-head b { white-space: nowrap; }
.chips { display: flex; flex-wrap: wrap; gap: 4px; margin: 4px 0; }
.chip { font-size: 12px; background: #f1f3f4; border-radius: 10px; padding: 1px 8px; white-space: nowrap; }
.chip.change { background: #e8f0fe; } .chip.usage { background: #e6f4ea; }
.step-actions { display: flex; flex-wrap: wrap; gap: 6px; margin: 4px 0; }
.step-actions button, .toolbar button { border: 1px solid #ccd; background: #fff; border-radius: 6px; padding: 2px 10px; }
.copied { color: #2d6a2d; font-size: 12px; }
@media (max-width: 760px) {
  body { grid-template-columns: minmax(0, 1fr); grid-template-rows: auto auto 1fr; }
  header form { margin-left: 0; flex: 1 1 100%; }
  nav { border-right: 0; border-bottom: 1px solid #ddd; max-height: 30vh; overflow: auto; padding: 8px 12px; }
  main { padding: 10px 12px; }
}
@media (max-width: 560px) {
  .rows-head { display: none; }
  .row { grid-template-columns: minmax(0, 1fr); gap: 2px; }
  .cell:empty { display: none; }
  .cell[data-side]::before { content: attr(data-side); font-size: 11px; color: #777; }
}
`;
