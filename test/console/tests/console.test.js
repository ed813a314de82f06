'use strict';
// The built-in console in a real browser (headless Debian chromium through puppeteer-core) against a
// real `rmqnode --role=namesrv,master` with its HTTP port on: the overview lists the broker, a topic
// created through the UI's form shows in the topics table, a message sent through the UI's send form
// is found by its key through the UI's search, the producers page lists the console's own producer.
// Screenshots go to $CONSOLE_ARTIFACTS (run.sh sets it).
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const puppeteer = require('puppeteer-core');

const rmqnode = process.env.RMQNODE_BIN;
const artifacts = process.env.CONSOLE_ARTIFACTS || fs.mkdtempSync(path.join(os.tmpdir(), 'console-shots-'));
const chromium = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, fn, timeoutMs = 30000) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try { const v = await fn(); if (v) return v; } catch (e) { last = e; }
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

let node, work, base, browser, page;

test.before(async () => {
  assert.ok(rmqnode && fs.existsSync(rmqnode), 'RMQNODE_BIN must name the rmqnode binary');
  // run.sh has checked that Chromium starts here (else it skipped the test); --no-sandbox: CI runs as root.
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  fs.mkdirSync(artifacts, { recursive: true });
  const ports = execFileSync('node', [path.join(__dirname, '../../interop/lib/free_ports.js')]).toString().trim().split(' ');
  const [nsPort, brokerPort, httpPort] = ports.map(Number);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-console-'));
  fs.writeFileSync(path.join(work, 'node.toml'), `
logDir = "${work}/logs"
httpListenPort = ${httpPort}
httpBindAddress = "127.0.0.1"
[namesrv]
listenPort = ${nsPort}
kvConfigPath = "${work}/namesrv/kvConfig.json"
[broker]
brokerClusterName = "ConsoleCluster"
brokerName = "console-broker"
brokerIP1 = "127.0.0.1"
listenPort = ${brokerPort}
namesrvAddr = "127.0.0.1:${nsPort}"
[store]
storePathRootDir = "${work}/store"
`);
  const out = fs.openSync(path.join(work, 'out.log'), 'w');
  node = spawn(rmqnode, ['--role=namesrv,master', '-c', path.join(work, 'node.toml')],
    { env: { ...process.env, HOME: work }, stdio: ['ignore', out, out] });
  base = `http://127.0.0.1:${httpPort}`;
  // Ready when the console's cluster view lists the registered broker.
  await until('the console API to list the broker', async () => {
    const r = await fetch(`${base}/api/cluster`);
    return r.ok && JSON.stringify(await r.json()).includes(`127.0.0.1:${brokerPort}`);
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 640 });
  page.on('dialog', (d) => d.accept());
});

// A test that prints the node's output (and the page's status line, with a screenshot) when it fails.
const step = (name, fn) => test(name, async () => {
  try { await fn(); } catch (e) {
    printNodeLog();
    if (page) {
      console.log(`page ${page.url()} status: ${await page.$eval('#status', (el) => el.textContent).catch(() => '?')}`);
      await page.screenshot({ path: path.join(artifacts, `failed-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.png`) }).catch(() => {});
    }
    throw e;
  }
});

function printNodeLog() {
  try { console.log(`---- rmqnode output (last 60 lines) ----\n${fs.readFileSync(path.join(work, 'out.log'), 'utf8').split('\n').slice(-60).join('\n')}`); } catch {}
}

test.after(async () => {
  if (browser) await browser.close().catch(() => {});
  if (node) {
    node.kill('SIGTERM');
    await Promise.race([new Promise((r) => node.once('exit', r)), sleep(10000)]);
    node.kill('SIGKILL');
  }
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const rowTexts = (sel) => page.$$eval(`${sel} tbody tr`, (rows) => rows.map((r) => r.innerText));

step('the overview lists the broker with its role and version', async () => {
  await page.goto(`${base}/`, { waitUntil: 'networkidle0' });
  await page.waitForSelector('body[data-ready=true]');
  const rows = await until('a broker row', async () => { const r = await rowTexts('#brokers-table'); return r.length ? r : null; });
  assert.match(rows[0], /ConsoleCluster/);
  assert.match(rows[0], /console-broker/);
  assert.match(rows[0], /MASTER/);
  assert.match(rows[0], /V4_9_7/);
  // Some traffic for the TPS chart: sends through the console's own API for a few polls.
  const form = (o) => ({ method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(o).toString() });
  assert.strictEqual((await fetch(`${base}/api/topic`, form({ topic: 'ChartTopic', cluster: 'ConsoleCluster', readQueueNums: 4, writeQueueNums: 4 }))).status, 200);
  const end = Date.now() + 10000;
  for (let i = 0; Date.now() < end; i++) {
    const r = await fetch(`${base}/api/messages`, form({ topic: 'ChartTopic', keys: `chart-${i}`, body: `tick ${i}` }));
    assert.strictEqual(r.status, 200, await r.text());
    await sleep(i % 40 < 20 ? 20 : 60);
  }
  await until('put TPS above zero in the table', async () => parseFloat(await page.$eval('#brokers-table tbody tr td:nth-child(7)', (e) => e.textContent)) > 0);
  await page.screenshot({ path: path.join(artifacts, 'overview.png') });
});

step('the producers page lists the console\'s own producer (the one that sent the chart traffic)', async () => {
  await page.goto(`${base}/#producers`, { waitUntil: 'networkidle0' });
  await page.type('#producer-form input[name=topic]', 'ChartTopic');
  await page.type('#producer-form input[name=group]', 'CONSOLE_PRODUCER_GROUP');
  const rows = await until('a producer row', async () => {
    await page.click('#producer-form button[type=submit]');
    await sleep(300);
    const r = await rowTexts('#producers-table');
    return r.length ? r : null;
  });
  const api = await (await fetch(`${base}/api/producers?topic=ChartTopic&group=CONSOLE_PRODUCER_GROUP`)).json();
  assert.strictEqual(api.connections.length, 1);
  assert.strictEqual(rows.length, 1);
  assert.ok(rows[0].includes(api.connections[0].clientId), rows[0]);
  assert.match(rows[0], /127\.0\.0\.1:\d+/);
  assert.match(await page.$eval('#producer-summary', (e) => e.textContent), /1 producer\(s\) of group CONSOLE_PRODUCER_GROUP/);
  await page.screenshot({ path: path.join(artifacts, 'producers.png') });
});

step('a topic created through the form shows in the topics table', async () => {
  await page.goto(`${base}/#topics`, { waitUntil: 'networkidle0' });
  await page.waitForSelector('#topic-form select[name=cluster] option');
  await page.type('#topic-form input[name=topic]', 'ConsoleTopic');
  await page.$eval('#topic-form input[name=readQueueNums]', (e) => { e.value = '4'; });
  await page.$eval('#topic-form input[name=writeQueueNums]', (e) => { e.value = '4'; });
  await page.click('#topic-form button[type=submit]');
  await until('ConsoleTopic in the table', async () => (await rowTexts('#topics-table')).some((r) => r.startsWith('ConsoleTopic')));
  const status = await page.$eval('#status', (e) => e.textContent);
  assert.match(status, /Topic ConsoleTopic saved/);
  await page.click('#topics-table button[data-detail=ConsoleTopic]');
  await until('its 4 queues', async () => (await rowTexts('#topic-queues-table')).length === 4);
  await page.screenshot({ path: path.join(artifacts, 'topics.png') });
});

step('a message sent through the send form is found by its key', async () => {
  await page.goto(`${base}/#send`, { waitUntil: 'networkidle0' });
  await page.type('#send-form input[name=topic]', 'ConsoleTopic');
  await page.type('#send-form input[name=tags]', 'TagA');
  await page.type('#send-form input[name=keys]', 'order-42');
  await page.$eval('#send-form textarea[name=body]', (e) => { e.value = '{"order":42,"item":"console test"}'; });
  await page.click('#send-form button[type=submit]');
  const result = await until('the send result', async () => page.$eval('#send-result', (e) => e.textContent));
  assert.match(result, /SEND_OK/);

  await page.goto(`${base}/#messages`, { waitUntil: 'networkidle0' });
  await page.type('#msg-key-form input[name=topic]', 'ConsoleTopic');
  await page.type('#msg-key-form input[name=key]', 'order-42');
  // The index is written by dispatch right after the send: search again until it is there.
  const rows = await until('the message in the results', async () => {
    await page.click('#msg-key-form button[type=submit]');
    await sleep(300);
    const r = await rowTexts('#messages-table');
    return r.length ? r : null;
  });
  assert.match(rows[0], /ConsoleTopic/);
  assert.match(rows[0], /TagA/);
  assert.match(rows[0], /order-42/);
  const body = await page.$eval('#message-body', (e) => e.textContent);
  assert.strictEqual(body, '{"order":42,"item":"console test"}');
  await page.screenshot({ path: path.join(artifacts, 'messages.png') });
});
