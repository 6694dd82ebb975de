import { EVENT_NAMES } from '../kinds/schemas.js';

/**
 * The live page `troupe serve` serves at `/`: sessions, the state and usage, the transcript as it streams, the
 * arbiter's last decision, an input line. It shows each event's display items (the SSE `items` field), worded as
 * the terminal words them; it only styles them.
 */
export function livePage(): string {
  return PAGE;
}

// One small page, no build step: text goes in with textContent only (model and user text is never HTML).
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>troupe</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;display:grid;grid-template-columns:280px 1fr;height:100vh}
aside{border-right:1px solid #ccc;padding:8px;overflow:auto}main{display:flex;flex-direction:column;min-height:0}
#state{padding:8px;border-bottom:1px solid #ccc;background:#f6f6f6}#log{flex:1;overflow:auto;padding:8px}
#arbiter{padding:4px 8px;color:#555;border-top:1px solid #eee}#live{padding:4px 8px;color:#060;white-space:pre-wrap}
form{display:flex;gap:4px;padding:8px;border-top:1px solid #ccc}input[type=text]{flex:1}
.turn{margin:6px 0}.who{font-weight:bold}.note{color:#666}.note.ok{color:#060}.note.warn{color:#a60}.note.error{color:#c00}
.transition,.directive{color:#888;font-size:12px}.output{white-space:pre-wrap;border:1px solid #ccc;padding:4px}
li{cursor:pointer}li.sel{font-weight:bold}.branch{color:#06c}
</style></head><body>
<aside>
<div><label>token <input id="token" type="password" size="12"></label></div>
<form id="create"><input id="brief" type="text" placeholder="a brief for a new session"><button>start</button></form>
<button id="refresh">refresh</button><ul id="sessions"></ul>
</aside>
<main>
<div id="state">no session selected</div>
<div id="log"></div>
<div id="live"></div>
<div id="arbiter"></div>
<form id="input"><input id="line" type="text" placeholder="reply, interject, or !command (!handoff CEO, !status)"><button>send</button></form>
</main>
<script>
const $ = (id) => document.getElementById(id);
const token = () => $('token').value || localStorage.getItem('troupe-token') || '';
$('token').value = localStorage.getItem('troupe-token') || '';
$('token').onchange = () => localStorage.setItem('troupe-token', $('token').value);
const headers = () => ({ 'content-type': 'application/json', ...(token() ? { authorization: 'Bearer ' + token() } : {}) });
const EVENTS = ${JSON.stringify(EVENT_NAMES)};
let current = null, source = null, live = '', liveWho = '', branches = {};
function add(cls, text, who) {
  const div = document.createElement('div'); div.className = cls;
  if (who) { const b = document.createElement('span'); b.className = 'who'; b.textContent = who + ': '; div.appendChild(b); }
  div.appendChild(document.createTextNode(text)); $('log').appendChild(div); $('log').scrollTop = 1e9;
}
async function refresh() {
  const r = await fetch('/v1/sessions', { headers: headers() }); if (!r.ok) return;
  const { sessions } = await r.json(); const ul = $('sessions'); ul.textContent = '';
  for (const s of sessions) { const li = document.createElement('li'); li.textContent = s.id.slice(0, 8) + ' · ' + s.status + ' · ' + s.brief.slice(0, 40); li.dataset.id = s.id; if (s.id === current) li.className = 'sel'; li.onclick = () => select(s.id); ul.appendChild(li); }
}
async function showState() {
  if (!current) return; const r = await fetch('/v1/sessions/' + current, { headers: headers() }); if (!r.ok) return;
  const s = await r.json(); const u = s.usage;
  const usage = u ? u.calls + ' call(s) · ' + u.tokens + ' tokens' + (u.cost === null ? '' : ' · cost ' + u.cost.toFixed(4)) : '';
  const parts = [s.definition, s.status, 'state ' + s.state.join(' | '), s.active ? 'active ' + s.active : '', 'turn ' + s.turn, s.awaiting ? 'waiting: ' + s.awaiting.reason : '', s.endReason ? 'ended: ' + s.endReason : '', usage];
  $('state').textContent = parts.filter(Boolean).join(' · ');
  const names = Object.keys(branches); if (names.length) { const d = document.createElement('div'); d.className = 'branch'; d.textContent = 'branches: ' + names.map((b) => b + ' ' + branches[b]).join(' · '); $('state').appendChild(d); }
}
const who = (item) => item.who + (item.branch ? ' [' + item.branch + ']' : '');
// Items are worded by the server (the terminal's wording); the page only places and colours them.
function show(item) {
  switch (item.kind) {
    case 'header': add('note', item.text); add('turn', item.brief, item.label); break;
    case 'user': if (!item.brief) add('turn', item.text, 'You'); break;
    case 'command': add('turn', item.text, 'You'); break;
    case 'progress': if (item.event === 'agent_started') { live = ''; liveWho = who(item); if (item.branch) branches[item.branch] = item.who + ' working'; } $('live').textContent = (item.mark ? item.mark + ' ' : '') + item.text; break;
    case 'turn': $('live').textContent = ''; if (item.branch) branches[item.branch] = item.who + ' done'; add('turn', item.text, who(item)); break;
    case 'directive': add('directive', item.mark + ' ' + item.text); break;
    case 'arbitration': $('arbiter').textContent = 'arbiter: ' + item.text; break;
    case 'transition': add('transition', item.text + (item.reason ? ' — ' + item.reason : '')); break;
    case 'output': add('output', item.title + ':\\n' + item.lines.join('\\n')); break;
    default: add('note ' + item.tone, (item.mark || '•') + ' ' + item.text);
  }
}
function onEvent(e) {
  if (e.type === 'agent_delta') { if (e.text) { live += e.text; $('live').textContent = liveWho + ': ' + live; } return; }
  for (const item of e.items || []) show(item);
  showState();
}
function select(id) {
  current = id; branches = {}; $('log').textContent = ''; $('live').textContent = ''; $('arbiter').textContent = '';
  if (source) source.close();
  source = new EventSource('/v1/sessions/' + id + '/events' + (token() ? '?access_token=' + encodeURIComponent(token()) : ''));
  source.onmessage = (m) => onEvent(JSON.parse(m.data));
  for (const t of EVENTS) source.addEventListener(t, (m) => onEvent(JSON.parse(m.data)));
  refresh(); showState();
}
$('create').onsubmit = async (ev) => { ev.preventDefault(); const brief = $('brief').value.trim(); if (!brief) return;
  const r = await fetch('/v1/sessions', { method: 'POST', headers: headers(), body: JSON.stringify({ brief }) });
  const s = await r.json(); if (r.ok) { $('brief').value = ''; select(s.id); } else add('note', s.error); };
$('input').onsubmit = async (ev) => { ev.preventDefault(); const text = $('line').value.trim(); if (!text || !current) return;
  $('line').value = ''; const r = await fetch('/v1/sessions/' + current + '/input', { method: 'POST', headers: headers(), body: JSON.stringify({ text }) });
  const out = await r.json(); if (!r.ok) add('note', out.error); else if (out.kind === 'output') add('note', '[' + out.title + '] ' + out.lines.join(' / '));
  if (source && source.readyState === 2) select(current); };
$('refresh').onclick = refresh; refresh(); setInterval(refresh, 5000);
</script></body></html>`;
