/**
 * The inspector's single page: inline CSS and vanilla script, no external resource, no build step.
 * Every piece of session data is put in the page with `textContent` or `createTextNode` (never as
 * HTML), so hostile session content stays text.
 * @module
 */
import { INSPECTOR_PAGE_SCRIPT } from './inspector-page-script.js';
import { INSPECTOR_PAGE_STYLE } from './inspector-page-style.js';

export { INSPECTOR_PAGE_SCRIPT, INSPECTOR_PAGE_STYLE };

/** The whole page, served at `GET /`. */
export const INSPECTOR_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ctxloom inspector</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>${INSPECTOR_PAGE_STYLE}</style>
</head>
<body>
<header><h1>ctxloom inspector</h1><span class="muted">read-only</span><span id="live" aria-live="polite"></span>
<form><input id="message" placeholder="Current message (optional)" aria-label="Current message"><button id="rebuild">Rebuild</button></form></header>
<nav><h2>Sessions</h2><ul id="sessions"></ul></nav>
<main id="session"></main>
<script>${INSPECTOR_PAGE_SCRIPT}</script>
</body>
</html>
`;
