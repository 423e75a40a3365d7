// Over 300 lines: the page's whole script is one string (hashed into the CSP), so it cannot be split into modules.
/** The page script; its SHA-256 goes into the Content-Security-Policy. */
export const INSPECTOR_PAGE_SCRIPT = String.raw`
'use strict';
var COLORS = { identity: '#5fafff', 'tool-contract': '#ffaf00', memory: '#87d787', skills: '#ffd700',
  'recent-history': '#d78787', summary: '#d7af87', 'tool-schemas': '#ff875f', history: '#00afff',
  'current-message': '#ff5f5f', 'reserved-output': '#8a8a8a', free: '#e4e4e4' };
var EXTRA = ['#af87ff', '#d787ff', '#d7afff', '#afafff', '#ffafff', '#8787ff', '#ffd7ff', '#87afff'];
var CLIP_CHARS = 1200, CLIP_LINES = 14;
var state = { tab: 'context', offset: undefined, highlight: undefined, events: undefined, key: undefined, rebuild: false };
var $ = function (id) { return document.getElementById(id); };
function el(tag, attrs, children) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
  (children || []).forEach(function (child) {
    if (child === undefined || child === null) return;
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
  categories.forEach(function (c) { map[c.id] = COLORS[c.id] || EXTRA[extra++ % EXTRA.length]; });
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
function sessionUrl(key, path) { return '/api/sessions/' + encodeURIComponent(key) + path; }
/** A text block; a long one is clipped with a button that shows it all. */
function block(text) {
  var pre = el('pre', {}, [text]);
  var lines = text.split('\n').length;
  if (text.length <= CLIP_CHARS && lines <= CLIP_LINES) return pre;
  pre.classList.add('clipped');
  var button = el('button', { type: 'button', class: 'expand', 'aria-expanded': 'false' }, ['Show all (' + fmt(text.length) + ' characters)']);
  button.addEventListener('click', function () {
    var open = pre.classList.toggle('clipped') === false;
    button.setAttribute('aria-expanded', String(open));
    button.textContent = open ? 'Show less' : 'Show all (' + fmt(text.length) + ' characters)';
  });
  return el('div', { class: 'block' }, [pre, button]);
}
function prettyArguments(raw) {
  try { return JSON.stringify(JSON.parse(raw), null, 2); } catch (e) { return raw; }
}
function toolCallsOf(message) {
  return (message.toolCalls || []).map(function (call) {
    return el('div', { class: 'tool-call', 'data-tool': call.name }, [
      el('div', { class: 'tool-label' }, ['tool call · ' + call.name + ' · ' + call.id]), block(prettyArguments(call.arguments || ''))]);
  });
}
/** The body of a message: text, structured tool calls, or a labelled tool result. */
function messageBody(entry) {
  var parts = [];
  if (entry.role === 'tool') {
    parts.push(el('div', { class: 'tool-result' }, [
      el('div', { class: 'tool-label' }, ['tool result' + (entry.name ? ' · ' + entry.name : '') + (entry.toolCallId ? ' · for ' + entry.toolCallId : '')]),
      block(entry.content !== undefined ? entry.content : entry.text)]));
    return parts;
  }
  var calls = toolCallsOf(entry);
  var text = entry.content !== undefined ? entry.content : entry.text;
  if (text !== '' || calls.length === 0) parts.push(block(text));
  return parts.concat(calls);
}
async function loadSessions() {
  var list = clear($('sessions'));
  try {
    var body = await getJson('/api/sessions');
    if (body.sessions.length === 0) list.appendChild(el('li', { class: 'muted' }, ['No stored sessions.']));
    body.sessions.forEach(function (s) {
      var link = el('a', { href: '#/session/' + encodeURIComponent(s.key), 'data-key': s.key }, [s.key]);
      var size = s.messageCount !== undefined ? fmt(s.messageCount) + ' messages' : fmt(Math.ceil((s.sizeBytes || 0) / 1024)) + ' KiB';
      list.appendChild(el('li', {}, [link, ' ', el('span', { class: 'muted count' }, [size])]));
    });
    markActive();
  } catch (error) { list.appendChild(el('li', { class: 'error' }, [String(error.message)])); }
}
function markActive() {
  var key = currentKey();
  document.querySelectorAll('#sessions a').forEach(function (a) { a.classList.toggle('active', a.getAttribute('data-key') === key); });
}
function listen(key) {
  if (state.events && state.key === key) return;
  if (state.events) state.events.close();
  state.key = key;
  if (typeof EventSource === 'undefined') return;
  var source = new EventSource('/api/events' + (key === undefined ? '' : '?session=' + encodeURIComponent(key)));
  state.events = source;
  source.addEventListener('ready', function () { $('live').textContent = '● live'; });
  source.addEventListener('sessions-changed', function () { loadSessions(); });
  source.addEventListener('session-changed', function () {
    $('live').textContent = '● updated ' + new Date().toLocaleTimeString();
    state.offset = undefined;
    loadSession({ quiet: true });
  });
  source.onerror = function () { $('live').textContent = '○ reconnecting'; };
}
async function loadSession(options) {
  markActive();
  var key = currentKey(); var main = $('session');
  listen(key);
  if (key === undefined) { clear(main).appendChild(el('p', { class: 'muted' }, ['Pick a session.'])); return; }
  if (!(options && options.quiet)) clear(main).appendChild(el('p', { class: 'muted' }, ['Building the context…']));
  try {
    if (state.tab === 'timeline') renderTimeline(key, await getJson(sessionUrl(key, '/requests')));
    else {
      var loaded = await Promise.all([getJson(contextUrl(key)), getJson(sessionUrl(key, '/compactions'))]);
      renderContext(key, loaded[0], loaded[1].compactions);
    }
  } catch (error) { clear(main).appendChild(el('p', { class: 'error', id: 'session-error' }, [String(error.message)])); }
}
function contextUrl(key) {
  var query = [];
  var message = $('message').value;
  if (message) query.push('message=' + encodeURIComponent(message));
  if (state.offset !== undefined) query.push('offset=' + state.offset);
  if (state.rebuild) { query.push('rebuild=1'); state.rebuild = false; }
  return sessionUrl(key, '/context') + (query.length ? '?' + query.join('&') : '');
}
function tabs(key) {
  var bar = el('div', { class: 'tabs', role: 'tablist' }, []);
  [['context', 'Next request'], ['timeline', 'Timeline of sent requests']].forEach(function (pair) {
    var button = el('button', { type: 'button', role: 'tab', id: 'tab-' + pair[0], 'aria-selected': String(state.tab === pair[0]) }, [pair[1]]);
    button.addEventListener('click', function () { state.tab = pair[0]; loadSession(); });
    bar.appendChild(button);
  });
  return el('div', {}, [el('h2', { id: 'session-title' }, [key]), bar]);
}
function renderContext(key, data, compactions) {
  var main = clear($('session')); var i = data.inspection; var colors = colorFor(i.categories);
  var pct = i.contextWindowTokens ? (i.usedTokens / i.contextWindowTokens * 100).toFixed(1) : '0.0';
  main.appendChild(tabs(key));
  main.appendChild(el('p', { id: 'usage' }, [i.model + ' · ' + fmt(i.usedTokens) + '/' + fmt(i.contextWindowTokens) + ' tokens (' + pct + '%) · ' + fmt(data.storedMessages) + ' stored messages, ' + fmt(data.lastConsolidated) + ' archived']));
  main.appendChild(chart(i, colors));
  main.appendChild(warnings(i.warnings.concat(data.storeWarnings.map(function (w) { return { message: 'Store: ' + w }; }))));
  if (compactions && compactions.length) main.appendChild(compactionList(compactions));
  main.appendChild(el('h3', {}, ['Context, section by section']));
  var sections = el('div', { id: 'sections' }, []);
  data.sections.forEach(function (s) { sections.appendChild(section(s, colors)); });
  main.appendChild(sections);
  main.appendChild(el('h3', {}, ['Trace']));
  main.appendChild(el('div', { class: 'scroll-x' }, [trace(data.trace)]));
  if (data.toolCosts.length || data.loadedTools.length) {
    main.appendChild(el('h3', { id: 'tools-title' }, ['Tools']));
    main.appendChild(toolsTable(data.toolCosts, data.loadedTools));
  }
  main.appendChild(el('h3', { id: 'history-title' }, ['Stored history and what the model receives']));
  main.appendChild(statusLine(data.statusCounts));
  main.appendChild(searchBox(key));
  main.appendChild(pager(key, data, 'rows-pager'));
  main.appendChild(rows(data.rows));
  main.appendChild(pager(key, data, 'rows-pager-bottom'));
  if (state.highlight !== undefined) {
    var target = document.querySelector('.row[data-index="' + state.highlight + '"]');
    if (target) { target.classList.add('highlight'); target.scrollIntoView({ block: 'center' }); }
    state.highlight = undefined;
  }
}
/** The session's compaction records, oldest first; each opens to what it replaced and pinned. */
function compactionList(list) {
  var box = el('section', { id: 'compactions' }, [el('h3', {}, ['Compaction records (' + list.length + ')'])]);
  list.forEach(function (d) { box.appendChild(compaction(d)); });
  return box;
}
function compaction(d) {
  var r = d.record;
  var producer = [r.producer.strategy, r.producer.model].filter(Boolean).join(', ');
  var head = r.id + ' · ' + r.kind + ' · ' + r.trigger + ' · ' + producer + ' · depth ' + r.depth + ' · ' + (r.createdAt || '?').replace('T', ' ') + ' · ';
  var tokens = fmt(r.tokensBefore) + ' → ' + fmt(r.tokensAfter) + ' tokens (saved ' + fmt(d.tokensSaved) + ')';
  var summary = el('summary', {}, [head, el('span', { class: 'tokens' }, [tokens]), d.isApplied ? null : el('span', { class: 'badge dropped' }, ['not applied'])]);
  var details = el('details', { class: 'compaction', 'data-compaction': r.id, 'data-applied': String(d.isApplied) }, [summary]);
  var body = el('div', { class: 'compaction-body' }, []);
  details.appendChild(body);
  details.addEventListener('toggle', function () { if (details.open && !body.firstChild) compactionBody(body, d); });
  return details;
}
function compactionBody(body, d) {
  var r = d.record;
  d.violations.forEach(function (v) { body.appendChild(el('p', { class: 'error' }, [v.type + ': ' + v.message])); });
  if (r.producer.instructions) body.appendChild(el('p', {}, ['Instructions: ' + r.producer.instructions]));
  if (r.summary) body.appendChild(el('div', { class: 'compaction-summary' }, [el('div', { class: 'item-head' }, ['Summary · ' + r.summary.id]), block(messageText(r.summary))]));
  body.appendChild(el('div', { class: 'item-head' }, ['Replaced (' + d.replaced.length + ')']));
  d.replaced.forEach(function (item) { body.appendChild(compactionItem(item, 'replaced')); });
  if (!d.pinned.length) return;
  body.appendChild(el('div', { class: 'item-head' }, ['Pinned, kept verbatim after the summary (' + d.pinned.length + ')']));
  d.pinned.forEach(function (item) { body.appendChild(compactionItem(item, 'pinned')); });
}
function compactionItem(item, kind) {
  if (item.type === 'record') {
    var button = el('button', { type: 'button', class: 'parent-record', 'data-parent': item.id }, ['record ' + item.id]);
    button.addEventListener('click', function () {
      document.querySelectorAll('details.compaction').forEach(function (d) {
        if (d.getAttribute('data-compaction') !== item.id) return;
        d.open = true; d.scrollIntoView({ block: 'start' });
      });
    });
    return el('div', { class: 'compaction-item', 'data-item': kind, 'data-id': item.id }, ['Parent ', button]);
  }
  if (item.type === 'missing') return el('div', { class: 'compaction-item missing', 'data-item': kind, 'data-id': item.id }, [item.id + ' (not in the session)']);
  var m = item.message; var text = messageText(m);
  var entry = { role: m.role, text: text, content: text, toolCalls: m.toolCalls, toolCallId: m.toolCallId, name: m.name };
  return el('div', { class: 'msg compaction-item', 'data-item': kind, 'data-id': item.id, 'data-role': m.role },
    [el('div', { class: 'msg-head' }, [m.role + ' · ' + item.id])].concat(messageBody(entry)));
}
function messageText(message) {
  return typeof message.content === 'string' ? message.content : message.content.map(function (p) { return p.type === 'text' ? p.text : '[' + p.type + ']'; }).join('\n');
}
function statusLine(counts) {
  var order = ['kept', 'rewritten', 'dropped', 'archived', 'boundary-skipped', 'added'];
  return el('div', { class: 'chips', id: 'status-counts' }, order.filter(function (s) { return counts[s]; }).map(function (s) {
    return el('span', { class: 'badge ' + s, 'data-status': s }, [s + ' ' + fmt(counts[s])]);
  }));
}
function searchBox(key) {
  var input = el('input', { id: 'search', type: 'search', placeholder: 'Search this session', 'aria-label': 'Search this session' }, []);
  var button = el('button', { type: 'button', id: 'search-button' }, ['Search']);
  var results = el('ol', { id: 'search-results' }, []);
  async function run() {
    clear(results);
    if (input.value === '') return;
    var message = $('message').value;
    var body = await getJson(sessionUrl(key, '/search') + '?q=' + encodeURIComponent(input.value) + (message ? '&message=' + encodeURIComponent(message) : ''));
    if (body.total === 0) results.appendChild(el('li', { class: 'muted' }, ['No match.']));
    body.hits.forEach(function (hit) {
      var link = el('a', { 'data-index': String(hit.index), role: 'button', tabindex: '0' }, ['#' + (hit.index + 1) + ' ' + hit.role + ' · ' + hit.status + ': ' + hit.snippet]);
      link.addEventListener('click', function () { state.offset = Math.max(0, hit.index - 20); state.highlight = hit.index; loadSession({ quiet: true }); });
      results.appendChild(el('li', {}, [link]));
    });
    if (body.total > body.hits.length) results.appendChild(el('li', { class: 'muted' }, [fmt(body.total - body.hits.length) + ' more matches']));
  }
  button.addEventListener('click', run);
  input.addEventListener('keydown', function (event) { if (event.key === 'Enter') { event.preventDefault(); run(); } });
  return el('div', {}, [el('div', { class: 'toolbar' }, [input, button]), results]);
}
function pager(key, data, id) {
  var bar = el('div', { class: 'toolbar pager', id: id }, []);
  var first = data.totalRows === 0 ? 0 : data.offset + 1;
  var last = data.offset + data.rows.length;
  function go(offset) { return function () { state.offset = offset; loadSession({ quiet: true }); }; }
  var buttons = [['First', 0, data.offset > 0], ['Older', Math.max(0, data.offset - data.limit), data.offset > 0],
    ['Newer', data.offset + data.limit, last < data.totalRows], ['Latest', undefined, last < data.totalRows]];
  buttons.forEach(function (b) {
    var button = el('button', { type: 'button', 'data-page': b[0].toLowerCase() }, [b[0]]);
    button.disabled = !b[2];
    button.addEventListener('click', go(b[1]));
    bar.appendChild(button);
  });
  bar.appendChild(el('span', { class: 'muted' }, ['rows ' + fmt(first) + '–' + fmt(last) + ' of ' + fmt(data.totalRows)]));
  return bar;
}
function cell(entry, side) {
  if (!entry) return el('div', { class: 'cell', 'data-side-empty': side }, []);
  var head = el('div', { class: 'msg-head' }, [el('span', { class: 'badge ' + entry.status }, [entry.status]), ' ' + entry.role + (entry.section ? ' · ' + entry.section : '') + ' · ' + entry.id]);
  var reasons = el('ul', { class: 'reasons' }, entry.reasons.map(function (r) { return el('li', {}, [r]); }));
  return el('div', { class: 'cell', 'data-side': side }, [el('div', { class: 'msg ' + entry.status, 'data-status': entry.status, 'data-id': entry.id, 'data-role': entry.role },
    [head].concat(messageBody(entry), [reasons]))]);
}
function rows(list) {
  var box = el('div', { id: 'rows' }, [el('div', { class: 'rows-head' }, [el('div', {}, ['Stored']), el('div', {}, ['Sent to the model'])])]);
  list.forEach(function (row) {
    box.appendChild(el('div', { class: 'row', 'data-index': String(row.index) }, [cell(row.stored, 'stored'), cell(row.sent, 'sent')]));
  });
  return box;
}
function bar(categories, colors, label) {
  var total = categories.reduce(function (sum, c) { return sum + c.tokens; }, 0) || 1;
  var box = svg('svg', { viewBox: '0 0 1000 28', height: 28, role: 'img', 'aria-label': label, preserveAspectRatio: 'none' });
  var x = 0;
  categories.forEach(function (c) {
    if (c.tokens === 0) return;
    var w = c.tokens / total * 1000;
    var rect = svg('rect', { x: x, y: 0, width: Math.max(w, 1), height: 28, fill: colors[c.id] || '#999', 'data-category': c.id });
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
  return el('ul', { id: 'warnings' }, list.map(function (w) { return el('li', { class: 'warning' + (w.type ? ' warning-' + w.type : '') }, [w.message]); }));
}
function section(s, colors) {
  var swatch = el('span', { class: 'swatch' }, []); swatch.style.background = colors[s.id] || '#999';
  var summary = el('summary', {}, [swatch, ' ' + s.name + ' ', el('span', { class: 'tokens' }, [fmt(s.tokens) + ' tokens'])]);
  var details = el('details', { class: 'section', 'data-section': s.id }, [summary]);
  s.items.forEach(function (item) {
    var head = el('div', { class: 'item-head' }, [item.label + ' · ' + item.role + ' · ' + fmt(item.tokens) + ' tokens']);
    var text = item.text === undefined ? '(text not separable from its message)' : item.text;
    details.appendChild(el('div', { class: 'item' }, [head, block(text)]));
  });
  return details;
}
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
function toolsTable(costs, loadedTools) {
  var loaded = {}; loadedTools.forEach(function (name) { loaded[name] = true; });
  var sent = costs.filter(function (t) { return !t.deferred; });
  var deferred = costs.filter(function (t) { return t.deferred; });
  var sum = function (list) { return list.reduce(function (total, t) { return total + t.tokens; }, 0); };
  var box = el('section', { id: 'tools' }, []);
  var summary = 'Sent: ' + fmt(sent.length) + ' tools, ' + fmt(sum(sent)) + ' tokens';
  if (deferred.length) summary += ' · deferred (not sent): ' + fmt(deferred.length) + ' tools, ' + fmt(sum(deferred)) + ' tokens';
  box.appendChild(el('p', { id: 'tools-summary' }, [summary]));
  if (loadedTools.length) box.appendChild(el('p', { id: 'loaded-tools' }, ['Loaded by the model: ' + loadedTools.join(', ')]));
  var table = el('table', {}, [el('tr', {}, ['Tool', 'Tokens', 'State'].map(function (h) { return el('th', {}, [h]); }))]);
  var rank = function (t) { return !t.deferred ? 0 : loaded[t.name] ? 1 : 2; };
  costs.slice().sort(function (a, b) { return rank(a) - rank(b) || b.tokens - a.tokens; }).forEach(function (t) {
    var status = !t.deferred ? 'sent' : loaded[t.name] ? 'deferred, loaded' : 'deferred';
    table.appendChild(el('tr', { 'data-tool': t.name, 'data-state': status }, [el('td', {}, [t.name]), el('td', { class: 'num' }, [fmt(t.tokens)]), el('td', {}, [status])]));
  });
  box.appendChild(el('div', { class: 'scroll-x' }, [table]));
  return box;
}
function renderTimeline(key, data) {
  var main = clear($('session'));
  main.appendChild(tabs(key));
  var box = el('div', { id: 'timeline' }, []);
  main.appendChild(box);
  if (data.totalRequests === 0) {
    box.appendChild(el('p', { class: 'muted', id: 'timeline-empty' }, [data.hasRecorder
      ? 'No recorded requests for this session. Pass a RequestRecorder as observer to record what is sent (see docs/recorder.md).'
      : 'This inspector has no request store.']));
    return;
  }
  box.appendChild(el('p', { class: 'muted' }, [fmt(data.totalRequests) + ' requests in ' + fmt(data.totalTurns) + ' turns' + (data.offset > 0 ? ' (showing the latest ' + fmt(data.turns.length) + ')' : '')]));
  data.turns.forEach(function (turn, index) {
    var first = turn.steps[0];
    var summary = el('summary', {}, ['Turn ' + (turn.index + 1) + ' · ' + turn.steps.length + (turn.steps.length === 1 ? ' request' : ' steps') + ' · ' + first.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z') + (turn.runId ? ' · run ' + turn.runId : '')]);
    var details = el('details', { class: 'turn', 'data-turn': String(turn.index) }, [summary]);
    if (index === data.turns.length - 1) details.setAttribute('open', '');
    turn.steps.forEach(function (step) { details.appendChild(timelineStep(key, step)); });
    box.appendChild(details);
  });
}
function timelineStep(key, step) {
  var chips = el('div', { class: 'chips' }, []);
  function chip(text, kind) { chips.appendChild(el('span', { class: 'chip ' + (kind || '') }, [text])); }
  chip(fmt(step.messageCount) + ' messages'); chip(fmt(step.totalTokens) + ' tokens counted');
  if (step.tools.length) chip(step.tools.length + (step.tools.length === 1 ? ' tool (' : ' tools (') + fmt(step.toolTokens) + ' tokens)');
  if (step.counts.decisions) chip(step.counts.decisions + ' decisions');
  ['dropped', 'offloaded', 'compacted', 'truncated'].forEach(function (k) { if (step.counts[k]) chip(step.counts[k] + ' ' + k); });
  var u = step.usage;
  if (u) {
    var parts = [];
    if (u.inputTokens !== undefined) parts.push('in ' + fmt(u.inputTokens));
    if (u.cachedInputTokens !== undefined) parts.push('cached ' + fmt(u.cachedInputTokens));
    if (u.outputTokens !== undefined) parts.push('out ' + fmt(u.outputTokens));
    if (u.latencyMs !== undefined) parts.push(fmt(Math.round(u.latencyMs)) + ' ms');
    chip('provider: ' + parts.join(' · ') + (u.model ? ' · ' + u.model : ''), 'usage');
  } else chip('no usage reported');
  var c = step.changes;
  if (c) {
    chip('+' + c.added.length + ' −' + c.removed.length + ' ~' + c.changed.length + ' since previous', 'change');
    chip(c.stablePrefix + ' leading messages unchanged', 'change');
    chip((c.tokenDelta >= 0 ? '+' : '') + fmt(c.tokenDelta) + ' tokens', 'change');
  } else chip('first request', 'change');
  var cautions = (step.warnings || []).map(function (w) { return el('li', { class: 'warning warning-' + w.type }, [w.message]); });
  if (cautions.length) chip(cautions.length + (cautions.length === 1 ? ' warning' : ' warnings'), 'caution');
  var label = step.stepNumber !== undefined ? 'Step ' + (step.stepNumber + 1) : 'Request';
  var head = el('div', { class: 'step-head' }, [el('b', {}, [label]), el('span', { class: 'muted' }, [step.source + (step.model ? ' · ' + step.model : '') + ' · ' + step.at.replace('T', ' ')])]);
  var body = el('div', { class: 'step-body' }, []);
  var show = el('button', { type: 'button', class: 'show-request' }, ['Show what was sent']);
  var copy = el('button', { type: 'button', class: 'copy' }, ['Copy request JSON']);
  var status = el('span', { class: 'copied', role: 'status' }, []);
  show.addEventListener('click', async function () {
    if (body.firstChild) { clear(body); show.textContent = 'Show what was sent'; return; }
    var record = await getJson(sessionUrl(key, '/requests/' + encodeURIComponent(step.id)));
    renderRecord(body, record, c);
    show.textContent = 'Hide';
  });
  copy.addEventListener('click', async function () {
    var record = await getJson(sessionUrl(key, '/requests/' + encodeURIComponent(step.id)));
    var text = JSON.stringify(record.sent || record.messages || record, null, 2);
    try { await navigator.clipboard.writeText(text); }
    catch (e) { var area = el('textarea', {}, [text]); document.body.appendChild(area); area.select(); document.execCommand('copy'); area.remove(); }
    window.__ctxloomCopied = text;
    status.textContent = 'Copied ' + fmt(text.length) + ' characters';
  });
  var parts = [head, chips];
  if (cautions.length) parts.push(el('ul', { class: 'step-warnings' }, cautions));
  var toolCalls = (step.contextToolCalls || []).map(function (call) {
    return el('li', { class: 'context-tool-call' }, [el('code', {}, [call.name + ' ' + call.arguments]), call.result ? el('span', { class: 'muted' }, [' → ' + call.result]) : el('span', { class: 'muted' }, [' (result not recorded)'])]);
  });
  if (toolCalls.length) parts.push(el('div', { class: 'context-tools' }, [el('b', {}, ['Context tools']), el('ul', {}, toolCalls)]));
  parts.push(el('div', { class: 'step-actions' }, [show, copy, status]), body);
  return el('div', { class: 'step', 'data-request': step.id }, parts);
}
function renderRecord(box, record, changes) {
  var added = new Set(changes ? changes.added : []); var changed = new Set(changes ? changes.changed : []);
  (record.messages || []).forEach(function (message, index) {
    var hash = record.messageHashes[index] || {};
    var status = added.has(message.id) ? 'added' : changed.has(message.id) ? 'rewritten' : 'kept';
    var text = messageText(message);
    var entry = { id: message.id, role: message.role, text: text, content: text, status: status, reasons: [], section: hash.section, toolCalls: message.toolCalls, toolCallId: message.toolCallId, name: message.name };
    box.appendChild(cell(entry, 'sent'));
  });
  if (!record.messages) box.appendChild(el('p', { class: 'muted' }, ['The recorder kept only hashes for this request (includeMessages: false).']));
  if (changes && changes.removed.length) box.appendChild(el('p', { class: 'muted' }, ['No longer sent: ' + changes.removed.join(', ')]));
}
window.addEventListener('hashchange', function () { state.offset = undefined; loadSession(); });
$('rebuild').addEventListener('click', function (event) { event.preventDefault(); state.tab = 'context'; state.offset = undefined; state.rebuild = true; loadSession(); });
loadSessions().then(function () { loadSession(); });
`;
