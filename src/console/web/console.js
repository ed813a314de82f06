// rmqnode console: plain JS over the node's /api/ endpoints (no libraries, nothing fetched at run time).
'use strict';

const $ = (sel, root = document) => root.querySelector(sel);
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const fmtTime = (ms) => (ms > 0 ? new Date(ms).toLocaleString() : '-');
const fmtNum = (n, d = 0) => (typeof n === 'number' ? n.toLocaleString(undefined, { maximumFractionDigits: d, minimumFractionDigits: d }) : '-');
let consoleInfo = { readOnly: false };
let clusters = [];

async function api(path, { method = 'GET', form } = {}) {
  const init = { method, headers: {} };
  if (form) {
    init.body = new URLSearchParams(form).toString();
    init.headers['Content-Type'] = 'application/x-www-form-urlencoded';
  }
  const resp = await fetch(path, init);
  const data = await resp.json().catch(() => ({ error: `HTTP ${resp.status}` }));
  if (!resp.ok) throw new Error(data.error || `HTTP ${resp.status}`);
  return data;
}

function showStatus(text, isError = false) {
  const el = $('#status');
  el.hidden = !text;
  el.textContent = text || '';
  el.className = 'status' + (isError ? ' error' : '');
}

function fillTable(sel, rows) {
  $(sel + ' tbody').innerHTML = rows.join('');
}

// ---------- a small line chart on a canvas ----------
class TpsChart {
  constructor(canvas, maxPoints = 60) {
    this.canvas = canvas;
    this.maxPoints = maxPoints;
    this.series = new Map(); // name -> [values]
  }
  push(values) { // {name: number}
    for (const [name, v] of Object.entries(values)) {
      if (!this.series.has(name)) this.series.set(name, []);
    }
    for (const [name, arr] of this.series) {
      arr.push(values[name] ?? null);
      if (arr.length > this.maxPoints) arr.shift();
    }
    this.draw();
  }
  clear() { this.series.clear(); this.draw(); }
  draw() {
    const c = this.canvas, g = c.getContext('2d');
    const w = c.width, h = c.height, left = 48, bottom = 18, top = 8;
    g.clearRect(0, 0, w, h);
    let max = 1;
    for (const arr of this.series.values()) for (const v of arr) if (v != null && v > max) max = v;
    max = Math.ceil(max * 1.1);
    g.strokeStyle = '#dde3ea'; g.fillStyle = '#6b7785'; g.font = '11px sans-serif'; g.lineWidth = 1;
    for (let i = 0; i <= 4; i++) {
      const y = top + (h - top - bottom) * i / 4;
      g.beginPath(); g.moveTo(left, y); g.lineTo(w - 4, y); g.stroke();
      g.fillText(fmtNum(max * (4 - i) / 4, max < 10 ? 1 : 0), 4, y + 4);
    }
    const colors = ['#1f6feb', '#e36209', '#2da44e', '#8250df', '#bf3989', '#0a7ea4'];
    let k = 0, legendX = left + 6;
    for (const [name, arr] of this.series) {
      const color = colors[k++ % colors.length];
      g.strokeStyle = color; g.lineWidth = 2; g.beginPath();
      let started = false;
      arr.forEach((v, i) => {
        if (v == null) return;
        const x = left + (w - left - 4) * (i + this.maxPoints - arr.length) / (this.maxPoints - 1);
        const y = top + (h - top - bottom) * (1 - v / max);
        if (started) g.lineTo(x, y); else { g.moveTo(x, y); started = true; }
      });
      g.stroke();
      g.fillStyle = color; g.fillText(name, legendX, h - 4);
      legendX += g.measureText(name).width + 16;
    }
  }
}
const brokerChart = new TpsChart($('#broker-chart'));
const topicChart = new TpsChart($('#topic-chart'), 40);

// ---------- cluster overview ----------
async function loadOverview() {
  const data = await api('/api/cluster');
  clusters = data.clusters;
  const rows = [], tps = {};
  for (const cl of data.clusters) {
    for (const b of cl.brokers) {
      if (b.error) {
        rows.push(`<tr class="error"><td>${esc(cl.name)}</td><td>${esc(b.brokerName)}</td><td>${b.brokerId}</td><td>${esc(b.role)}</td><td>${esc(b.addr)}</td><td colspan="9">unreachable: ${esc(b.error)}</td></tr>`);
        continue;
      }
      tps[`${b.brokerName}/${b.brokerId}`] = b.putTps;
      rows.push(`<tr data-broker="${esc(b.brokerName)}"><td>${esc(cl.name)}</td><td>${esc(b.brokerName)}</td><td>${b.brokerId}</td><td>${esc(b.role)}</td><td>${esc(b.addr)}</td><td>${esc(b.version)}</td>` +
        `<td class="num">${fmtNum(b.putTps, 1)}</td><td class="num">${fmtNum(b.getTps, 1)}</td><td class="num">${fmtNum(b.msgPutTotalToday)}</td><td class="num">${fmtNum(b.msgGetTotalToday)}</td>` +
        `<td class="num">${fmtNum(b.diskRatio * 100, 1)} %</td><td class="num">${fmtNum(b.timerPending)}</td><td class="num">${fmtNum(b.timerLagP99Ms)} ms</td><td><button class="link" data-status="${esc(b.addr)}">status</button><button class="link" data-config="${esc(b.addr)}">config</button></td></tr>`);
    }
  }
  fillTable('#brokers-table', rows);
  brokerChart.push(tps);
  const sel = $('#topic-form select[name=cluster]');
  const current = sel.value;
  sel.innerHTML = data.clusters.map((c) => `<option>${esc(c.name)}</option>`).join('');
  if (current) sel.value = current;
}

async function showKv(addr, kind) {
  const data = await api(`/api/broker/${kind}?addr=${encodeURIComponent(addr)}`);
  const kv = data[kind];
  $('#broker-detail-title').textContent = `${kind === 'config' ? 'Config' : 'Runtime status'} of ${addr}`;
  fillTable('#broker-detail-table', Object.keys(kv).sort().map((k) => `<tr><td>${esc(k)}</td><td>${esc(kv[k])}</td></tr>`));
  $('#broker-detail').hidden = false;
}

$('#brokers-table').addEventListener('click', (e) => {
  const addr = e.target.dataset.status || e.target.dataset.config;
  if (addr) showKv(addr, e.target.dataset.status ? 'runtime' : 'config').catch((err) => showStatus(err.message, true));
});

// ---------- topics ----------
let topicList = [];
let selectedTopic = null;

function renderTopics() {
  const filter = $('#topic-filter').value.toLowerCase();
  const all = $('#topic-show-system').checked;
  const rows = topicList
    .filter((t) => (all || t.kind === 'normal') && t.name.toLowerCase().includes(filter))
    .map((t) => `<tr data-topic="${esc(t.name)}"><td>${esc(t.name)}</td><td>${esc(t.kind)}</td>` +
      `<td><button class="link" data-detail="${esc(t.name)}">detail</button>` +
      `<button class="link" data-search="${esc(t.name)}">messages</button>` +
      `<button class="danger" data-delete="${esc(t.name)}">delete</button></td></tr>`);
  fillTable('#topics-table', rows);
}

async function loadTopics() {
  if (!clusters.length) await loadOverview();
  topicList = (await api('/api/topics')).topics;
  renderTopics();
}

async function loadTopicDetail(topic) {
  const d = await api(`/api/topic?topic=${encodeURIComponent(topic)}`);
  if (selectedTopic !== topic) { selectedTopic = topic; topicChart.clear(); }
  $('#topic-detail').hidden = false;
  $('#topic-detail-title').textContent = `Topic ${topic}`;
  $('#topic-detail-summary').textContent = `${fmtNum(d.messages)} messages held, ${fmtNum(d.maxOffsetSum)} written` +
    (d.tps != null ? `, ${fmtNum(d.tps, 1)} msg/s` : '') + `; consumed by: ${d.consumerGroups.join(', ') || 'no group'}`;
  fillTable('#topic-route-table', d.route.queueDatas.map((q) => {
    const b = d.route.brokerDatas.find((x) => x.brokerName === q.brokerName);
    const addrs = b ? Object.entries(b.brokerAddrs).map(([id, a]) => `${id}=${a}`).join(' ') : '';
    return `<tr><td>${esc(q.brokerName)}</td><td>${q.readQueueNums}</td><td>${q.writeQueueNums}</td><td>${q.perm}</td><td>${esc(addrs)}</td></tr>`;
  }));
  fillTable('#topic-queues-table', d.queues.map((q) => `<tr><td>${esc(q.brokerName)}</td><td>${q.queueId}</td><td class="num">${q.minOffset}</td><td class="num">${q.maxOffset}</td><td>${fmtTime(q.lastUpdateTimestamp)}</td></tr>`));
  if (d.tps != null) topicChart.push({ [topic]: d.tps });
}

$('#topic-filter').addEventListener('input', renderTopics);
$('#topic-show-system').addEventListener('change', renderTopics);
$('#topics-table').addEventListener('click', async (e) => {
  const ds = e.target.dataset;
  try {
    if (ds.detail) await loadTopicDetail(ds.detail);
    if (ds.search) { location.hash = 'messages'; $('#msg-key-form [name=topic]').value = ds.search; $('#msg-offset-form [name=topic]').value = ds.search; }
    if (ds.delete && confirm(`Delete topic ${ds.delete} from every broker and name server?`)) {
      await api(`/api/topic?topic=${encodeURIComponent(ds.delete)}`, { method: 'DELETE' });
      showStatus(`Topic ${ds.delete} deleted`);
      await loadTopics();
    }
  } catch (err) { showStatus(err.message, true); }
});
$('#topic-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = new FormData(e.target);
  if (!f.has('order')) f.set('order', 'false');
  try {
    const r = await api('/api/topic', { method: 'POST', form: f });
    showStatus(`Topic ${r.topic} saved on ${r.brokers.join(', ')}`);
    await loadTopics();
  } catch (err) { showStatus(err.message, true); }
});

// A client connection (a consumer group's member or a producer): client id, address, language, version.
const connectionRow = (c) => `<tr><td>${esc(c.clientId)}</td><td>${esc(c.clientAddr)}</td><td>${esc(c.language)}</td><td>${c.version}</td></tr>`;

// ---------- consumer groups ----------
let selectedGroup = null;
async function loadGroups() {
  const data = await api('/api/groups');
  fillTable('#groups-table', data.groups.map((g) => g.error && !g.members
    ? `<tr><td>${esc(g.group)}</td><td class="num">0</td><td colspan="3">${esc(g.error)}</td><td><button class="link" data-group="${esc(g.group)}">detail</button></td></tr>`
    : `<tr><td>${esc(g.group)}</td><td class="num">${g.members}</td><td class="num">${fmtNum(g.consumeTps, 1)}</td><td class="num">${fmtNum(g.diff)}</td><td class="num">${g.pop ? fmtNum(g.pop.inFlight) : ''}</td><td><button class="link" data-group="${esc(g.group)}">detail</button></td></tr>`));
}
// A POP group's queue figures (5.x consumers); empty for a group that pulls.
const popCell = (p) => (p ? `${p.inFlight} / ${p.due} / ${p.deadLettered}` : '');
async function loadGroupDetail(group) {
  const d = await api(`/api/group?group=${encodeURIComponent(group)}`);
  selectedGroup = group;
  $('#group-detail').hidden = false;
  $('#group-detail-title').textContent = `Group ${group}`;
  $('#group-detail-summary').textContent = (d.online ? `${d.members.length} online (${d.consumeType}, ${d.messageModel}, ${d.consumeFromWhere})` : 'no consumer online') +
    `; total lag ${fmtNum(d.diff)}; ${fmtNum(d.consumeTps, 1)} msg/s; subscriptions: ` + (d.subscriptions.map((s) => `${s.topic} (${s.expression})`).join(', ') || '-');
  fillTable('#group-members-table', d.members.map(connectionRow));
  fillTable('#group-queues-table', d.queues.map((q) => `<tr><td>${esc(q.topic)}</td><td>${esc(q.brokerName)}</td><td>${q.queueId}</td><td class="num">${q.brokerOffset}</td><td class="num">${q.consumerOffset}</td><td class="num">${q.lag}</td><td class="num">${popCell(q.pop)}</td><td>${fmtTime(q.lastTimestamp)}</td></tr>`));
  const topics = [...new Set(d.queues.map((q) => q.topic).filter((t) => !t.startsWith('%RETRY%')))];
  if (topics.length) $('#reset-form [name=topic]').value = topics[0];
}
$('#groups-table').addEventListener('click', (e) => {
  if (e.target.dataset.group) loadGroupDetail(e.target.dataset.group).catch((err) => showStatus(err.message, true));
});
$('#reset-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = new FormData(e.target);
  const time = f.get('time');
  const form = { group: selectedGroup, topic: f.get('topic'), timestamp: String(time ? new Date(time).getTime() : Date.now()) };
  try {
    const r = await api('/api/group/reset-offset', { method: 'POST', form });
    showStatus(`Offsets of ${r.group} on ${r.topic} reset: ` + r.queues.map((q) => `${q.brokerName}/${q.queueId}=${q.offset}`).join(' '));
    await loadGroupDetail(selectedGroup);
  } catch (err) { showStatus(err.message, true); }
});

// ---------- producer connections ----------
$('#producer-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const q = new URLSearchParams(new FormData(e.target)).toString();
  try {
    const d = await api(`/api/producers?${q}`);
    $('#producer-summary').textContent = `${d.connections.length} producer(s) of group ${d.group} connected to the brokers of ${d.topic}`;
    fillTable('#producers-table', d.connections.map(connectionRow));
  } catch (err) {
    $('#producer-summary').textContent = '';
    fillTable('#producers-table', []);
    showStatus(err.message, true);
  }
});

// ---------- messages ----------
let foundMessages = [];
function renderMessages(list) {
  foundMessages = list;
  fillTable('#messages-table', list.map((m, i) => `<tr><td>${esc(m.msgId)}</td><td>${esc(m.topic)}</td><td>${esc(m.tags)}</td><td>${esc(m.keys)}</td><td>${m.queueId}</td><td>${m.queueOffset}</td><td>${fmtTime(m.storeTimestamp)}</td><td><button class="link" data-msg="${i}">view</button></td></tr>`));
  showStatus(`${list.length} message(s) found`);
  if (list.length) showMessage(list[0]); else $('#message-detail').hidden = true;
}
function showMessage(m) {
  $('#message-detail').hidden = false;
  $('#message-detail-id').textContent = m.msgId;
  const hex = $('#body-hex').checked || m.bodyText == null;
  $('#message-body').textContent = hex ? m.bodyHex.replace(/(..)/g, '$1 ').trim() : m.bodyText;
  const props = Object.assign({ offsetMsgId: m.offsetMsgId, bornHost: m.bornHost, bornTimestamp: fmtTime(m.bornTimestamp), storeHost: m.storeHost, commitLogOffset: m.commitLogOffset, reconsumeTimes: m.reconsumeTimes, bodySize: m.bodySize }, m.properties);
  fillTable('#message-props', Object.entries(props).map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`));
  $('#message-detail').dataset.index = foundMessages.indexOf(m);
}
$('#body-hex').addEventListener('change', () => { const m = foundMessages[$('#message-detail').dataset.index]; if (m) showMessage(m); });
$('#messages-table').addEventListener('click', (e) => { if (e.target.dataset.msg) showMessage(foundMessages[+e.target.dataset.msg]); });
for (const [id, path] of [['#msg-key-form', '/api/messages/by-key'], ['#msg-id-form', '/api/messages/by-id'], ['#msg-offset-form', '/api/messages/by-offset']]) {
  $(id).addEventListener('submit', async (e) => {
    e.preventDefault();
    const q = new URLSearchParams(new FormData(e.target)).toString();
    try { renderMessages((await api(`${path}?${q}`)).messages); } catch (err) { renderMessages([]); showStatus(err.message, true); }
  });
}

// ---------- send ----------
$('#send-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  try {
    const r = await api('/api/messages', { method: 'POST', form: new FormData(e.target) });
    $('#send-result').textContent = `${r.status}  msgId=${r.msgId}  broker=${r.brokerName} queue=${r.queueId} offset=${r.queueOffset}`;
    showStatus('Message sent');
  } catch (err) { $('#send-result').textContent = ''; showStatus(err.message, true); }
});

// ---------- pages and polling ----------
const loaders = { overview: loadOverview, topics: loadTopics, groups: loadGroups, producers: async () => {}, messages: async () => {}, send: async () => {} };
let page = 'overview';
async function showPage() {
  page = (location.hash || '#overview').slice(1);
  if (!loaders[page]) page = 'overview';
  document.querySelectorAll('.page').forEach((s) => { s.hidden = s.id !== `page-${page}`; });
  document.querySelectorAll('header nav a').forEach((a) => a.classList.toggle('active', a.dataset.page === page));
  showStatus('');
  try { await loaders[page](); } catch (err) { showStatus(err.message, true); }
}
window.addEventListener('hashchange', showPage);
// One poll at a time: a broker that does not answer makes a poll slower than the period.
let polling = false;
setInterval(async () => {
  if (polling) return;
  polling = true;
  try {
    if (page === 'overview') await loadOverview();
    if (page === 'topics' && selectedTopic && !$('#topic-detail').hidden) await loadTopicDetail(selectedTopic);
  } catch (err) {
    showStatus(err.message, true);
  } finally {
    polling = false;
  }
}, 3000);

(async () => {
  try {
    consoleInfo = await api('/api/console');
    document.body.classList.toggle('readonly', consoleInfo.readOnly);
    $('#meta').textContent = `rmqnode ${consoleInfo.version} · name servers ${consoleInfo.namesrvAddr}` + (consoleInfo.readOnly ? ' · read-only' : '');
  } catch (err) { showStatus(err.message, true); }
  await showPage();
  document.body.dataset.ready = 'true';
})();
