/**
 * The inspector's single page: inline CSS and vanilla script, no external resource, no build step.
 * Every piece of session data is put in the page with `textContent` or `createTextNode` (never as
 * HTML), so hostile session content stays text.
 * @module
 */

/** The page script; its SHA-256 goes into the Content-Security-Policy. */
export const INSPECTOR_PAGE_SCRIPT = String.raw`
'use strict';
var COLORS = { identity: '#5fafff', 'tool-contract': '#ffaf00', memory: '#87d787', skills: '#ffd700',
  'recent-history': '#d78787', summary: '#d7af87', 'tool-schemas': '#ff875f', history: '#00afff',
  'current-message': '#ff5f5f', 'reserved-output': '#8a8a8a', free: '#e4e4e4' };
var EXTRA = ['#af87ff', '#d787ff', '#d7afff', '#afafff', '#ffafff', '#8787ff', '#ffd7ff', '#87afff'];
var $ = function (id) { return document.getElementById(id); };
function el(tag, attrs, children) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
  (children || []).forEach(function (child) {
    node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  });
  return node;
}
function svg(tag, attrs) {
  var node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  Object.keys(attrs).forEach(function (name) { node.setAttribute(name, String(attrs[name])); });
  return node;
}
function fmt(n) { return Number(n).toLocaleString('en-US'); }
function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
function colorFor(categories) {
  var map = {}; var extra = 0;
  categories.forEach(function (c) {
    map[c.id] = COLORS[c.id] || EXTRA[extra++ % EXTRA.length];
  });
  return map;
}
async function getJson(url) {
  var response = await fetch(url, { headers: { accept: 'application/json' } });
  var body = await response.json();
  if (!response.ok) throw new Error(body.error ? body.error.code + ': ' + body.error.message : response.statusText);
  return body;
}
function currentKey() {
  var match = /^#\/session\/(.*)$/.exec(location.hash);
  if (!match) return undefined;
  try { return decodeURIComponent(match[1]); } catch (e) { return undefined; }
}
async function loadSessions() {
  var list = clear($('sessions'));
  try {
    var body = await getJson('/api/sessions');
    if (body.sessions.length === 0) list.appendChild(el('li', { class: 'muted' }, ['No stored sessions.']));
    body.sessions.forEach(function (s) {
      var link = el('a', { href: '#/session/' + encodeURIComponent(s.key), 'data-key': s.key }, [s.key]);
      var size = s.messageCount !== undefined ? fmt(s.messageCount) + ' messages' : fmt(Math.ceil((s.sizeBytes || 0) / 1024)) + ' KiB';
      var meta = el('span', { class: 'muted' }, [' ' + size]);
      list.appendChild(el('li', {}, [link, meta]));
    });
    markActive();
  } catch (error) { list.appendChild(el('li', { class: 'error' }, [String(error.message)])); }
}
function markActive() {
  var key = currentKey();
  document.querySelectorAll('#sessions a').forEach(function (a) {
    a.classList.toggle('active', a.getAttribute('data-key') === key);
  });
}
async function loadSession() {
  markActive();
  var key = currentKey(); var main = clear($('session'));
  if (key === undefined) { main.appendChild(el('p', { class: 'muted' }, ['Pick a session on the left.'])); return; }
  main.appendChild(el('p', { class: 'muted' }, ['Building the context…']));
  var message = $('message').value;
  var url = '/api/sessions/' + encodeURIComponent(key) + '/context' + (message ? '?message=' + encodeURIComponent(message) : '');
  try { render(await getJson(url)); }
  catch (error) { clear(main).appendChild(el('p', { class: 'error', id: 'session-error' }, [String(error.message)])); }
}
function render(data) {
  var main = clear($('session')); var i = data.inspection; var colors = colorFor(i.categories);
  var pct = i.contextWindowTokens ? (i.usedTokens / i.contextWindowTokens * 100).toFixed(1) : '0.0';
  main.appendChild(el('h2', { id: 'session-title' }, [data.key]));
  main.appendChild(el('p', { id: 'usage' }, [i.model + ' · ' + fmt(i.usedTokens) + '/' + fmt(i.contextWindowTokens) + ' tokens (' + pct + '%) · ' + fmt(data.storedMessages) + ' stored messages, ' + fmt(data.lastConsolidated) + ' archived']));
  main.appendChild(chart(i, colors));
  main.appendChild(warnings(i.warnings.concat(data.storeWarnings.map(function (w) { return { message: 'Store: ' + w }; }))));
  main.appendChild(el('h3', {}, ['Context, section by section']));
  var sections = el('div', { id: 'sections' }, []);
  data.sections.forEach(function (s) { sections.appendChild(section(s, colors)); });
  main.appendChild(sections);
  main.appendChild(el('h3', {}, ['Trace']));
  main.appendChild(trace(data.trace));
  main.appendChild(el('h3', {}, ['Stored history and what the model receives']));
  main.appendChild(diff(data.diff));
}
function bar(categories, colors, label) {
  var total = categories.reduce(function (sum, c) { return sum + c.tokens; }, 0) || 1;
  var box = svg('svg', { viewBox: '0 0 1000 28', width: '100%', height: 28, role: 'img', 'aria-label': label, preserveAspectRatio: 'none' });
  var x = 0;
  categories.forEach(function (c) {
    if (c.tokens === 0) return;
    var w = c.tokens / total * 1000;
    var rect = svg('rect', { x: x, y: 0, width: Math.max(w, 1), height: 28, fill: colors[c.id], 'data-category': c.id });
    var title = svg('title', {}); title.textContent = c.name + ': ' + fmt(c.tokens) + ' tokens';
    rect.appendChild(title); box.appendChild(rect); x += w;
  });
  return el('figure', {}, [el('figcaption', {}, [label]), box]);
}
function chart(i, colors) {
  var wrap = el('section', { id: 'chart', 'aria-label': 'Token budget by category' }, []);
  wrap.appendChild(bar(i.categories, colors, 'Context window: ' + fmt(i.contextWindowTokens) + ' tokens'));
  wrap.appendChild(bar(i.categories.filter(function (c) { return c.kind === 'used'; }), colors, 'Used: ' + fmt(i.usedTokens) + ' tokens by category'));
  var table = el('table', { class: 'legend' }, []);
  i.categories.forEach(function (c) {
    var swatch = el('span', { class: 'swatch' }, []); swatch.style.background = colors[c.id];
    table.appendChild(el('tr', { 'data-kind': c.kind }, [el('td', {}, [swatch, ' ' + c.name]),
      el('td', { class: 'num' }, [fmt(c.tokens)]), el('td', { class: 'num' }, [c.percent.toFixed(1) + '%'])]));
  });
  wrap.appendChild(table);
  return wrap;
}
function warnings(list) {
  var box = el('ul', { id: 'warnings' }, []);
  list.forEach(function (w) { box.appendChild(el('li', { class: 'warning' }, [w.message])); });
  return box;
}
function section(s, colors) {
  var swatch = el('span', { class: 'swatch' }, []); swatch.style.background = colors[s.id] || '#999';
  var summary = el('summary', {}, [swatch, ' ' + s.name + ' ', el('span', { class: 'tokens' }, [fmt(s.tokens) + ' tokens'])]);
  var details = el('details', { class: 'section', 'data-section': s.id }, [summary]);
  s.items.forEach(function (item) {
    var head = el('div', { class: 'item-head' }, [item.label + ' · ' + item.role + ' · ' + fmt(item.tokens) + ' tokens']);
    var text = item.text === undefined ? '(text not separable from its message)' : item.text;
    details.appendChild(el('div', { class: 'item' }, [head, el('pre', {}, [clip(text)])]));
  });
  return details;
}
function clip(text) { return text.length > 20000 ? text.slice(0, 20000) + '\n… (' + fmt(text.length - 20000) + ' more characters)' : text; }
function trace(t) {
  var table = el('table', { id: 'trace' }, [el('tr', {}, ['Stage', 'Kind', 'Messages', 'Tokens', 'ms', 'Decisions'].map(function (h) { return el('th', {}, [h]); }))]);
  t.stages.forEach(function (stage) {
    var decisions = el('ul', {}, stage.decisions.map(function (d) {
      return el('li', { class: 'decision', 'data-type': d.type }, [d.type + ': ' + d.reason + (d.messageIds.length ? ' [' + d.messageIds.join(', ') + ']' : '')]);
    }));
    if (stage.error) decisions.appendChild(el('li', { class: 'error' }, [stage.error.code + ': ' + stage.error.message]));
    table.appendChild(el('tr', {}, [el('td', {}, [stage.id]), el('td', {}, [stage.kind]),
      el('td', { class: 'num' }, [stage.messagesIn + ' → ' + stage.messagesOut]),
      el('td', { class: 'num' }, [fmt(stage.tokensIn) + ' → ' + fmt(stage.tokensOut)]),
      el('td', { class: 'num' }, [stage.durationMs.toFixed(1)]), el('td', {}, [decisions])]));
  });
  table.appendChild(el('tr', {}, [el('td', { colspan: '3' }, ['Total (messages + ' + fmt(t.toolTokens) + ' tool-schema tokens, counter ' + t.tokenCounter + ')']),
    el('td', { class: 'num' }, [fmt(t.totalTokens)]), el('td', {}, []), el('td', {}, [])]));
  return table;
}
function diff(d) {
  function column(title, entries, id) {
    var list = el('ol', { class: 'messages', id: id }, []);
    entries.forEach(function (e) {
      var badge = el('span', { class: 'badge ' + e.status }, [e.status]);
      var reasons = el('ul', { class: 'reasons' }, e.reasons.map(function (r) { return el('li', {}, [r]); }));
      var body = e.text.length > 600 ? e.text.slice(0, 600) + '…' : e.text;
      list.appendChild(el('li', { class: 'msg ' + e.status, 'data-status': e.status, 'data-id': e.id }, [
        el('div', { class: 'msg-head' }, [badge, ' ' + e.role + (e.section ? ' · ' + e.section : '') + ' · ' + e.id]),
        el('pre', {}, [body]), reasons]));
    });
    return el('div', { class: 'column' }, [el('h4', {}, [title]), list]);
  }
  return el('div', { id: 'diff', class: 'columns' }, [column('Stored', d.stored, 'stored'), column('Sent to the model', d.sent, 'sent')]);
}
window.addEventListener('hashchange', loadSession);
$('rebuild').addEventListener('click', function (event) { event.preventDefault(); loadSession(); });
loadSessions().then(loadSession);
`;

/** The page style sheet; its SHA-256 goes into the Content-Security-Policy. */
export const INSPECTOR_PAGE_STYLE = `
:root { color-scheme: light; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f; }
body { margin: 0; display: grid; grid-template-columns: 260px 1fr; min-height: 100vh; }
header { grid-column: 1 / -1; background: #1d2433; color: #fff; padding: 10px 18px; display: flex; gap: 16px; align-items: center; }
header h1 { font-size: 17px; margin: 0; }
header form { margin-left: auto; display: flex; gap: 6px; }
header input { width: 320px; padding: 4px 8px; }
nav { border-right: 1px solid #ddd; padding: 12px; background: #f7f7f9; }
nav ul { list-style: none; padding: 0; margin: 0; }
nav li { padding: 4px 0; word-break: break-all; }
nav a { color: #0b57d0; text-decoration: none; }
nav a.active { font-weight: 700; }
main { padding: 12px 22px; min-width: 0; }
.muted { color: #777; } .error { color: #b3261e; }
figure { margin: 6px 0 10px; } figcaption { font-size: 12px; color: #555; margin-bottom: 2px; }
figure svg { display: block; border: 1px solid #ccc; border-radius: 3px; }
.legend { border-collapse: collapse; margin: 8px 0; }
.legend td { padding: 2px 10px 2px 0; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; vertical-align: -1px; }
#warnings { padding-left: 18px; } .warning { color: #8a4b00; }
details.section { border: 1px solid #ddd; border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
details.section summary { cursor: pointer; font-weight: 600; }
.tokens { color: #555; font-weight: 400; }
.item-head { color: #555; margin-top: 6px; }
pre { white-space: pre-wrap; word-break: break-word; background: #fafafa; border: 1px solid #eee; padding: 6px; margin: 4px 0; max-height: 420px; overflow: auto; }
#trace { border-collapse: collapse; width: 100%; }
#trace td, #trace th { border-bottom: 1px solid #eee; padding: 4px 8px; vertical-align: top; text-align: left; }
#trace ul { margin: 0; padding-left: 16px; }
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
ol.messages { padding-left: 22px; }
li.msg { margin-bottom: 6px; }
li.msg.dropped pre, li.msg.not-replayed pre { text-decoration: line-through; color: #888; }
.badge { font-size: 11px; padding: 1px 6px; border-radius: 8px; background: #e8eaed; }
.badge.dropped { background: #f9dedc; color: #8c1d18; } .badge.rewritten { background: #fff0c2; color: #6b4f00; }
.badge.added { background: #d3e3fd; color: #0b3d91; } .badge.not-replayed { background: #eee; color: #666; }
.reasons { margin: 0; padding-left: 16px; color: #8c1d18; font-size: 12px; }
`;

/** The whole page, served at `GET /`. */
export const INSPECTOR_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ctxloom inspector</title>
<style>${INSPECTOR_PAGE_STYLE}</style>
</head>
<body>
<header><h1>ctxloom inspector</h1><span class="muted">read-only</span>
<form><input id="message" placeholder="Current message (optional)" aria-label="Current message"><button id="rebuild">Rebuild</button></form></header>
<nav><h2>Sessions</h2><ul id="sessions"></ul></nav>
<main id="session"></main>
<script>${INSPECTOR_PAGE_SCRIPT}</script>
</body>
</html>
`;
