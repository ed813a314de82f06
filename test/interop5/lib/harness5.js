'use strict';
// Helpers of the 5.x suite: the node's gRPC endpoint (from run.sh's environment), topics with a
// 5.x message type (`rmqadmin updateTopic -a +message.type=...`), 5.x producers that stay quiet
// and are always shut down, and the 4.x side (ali-ons consumers, waits) from the 4.x suite's
// harness, so both generations are checked against one node.
const assert = require('node:assert');
const { execFileSync } = require('node:child_process');
const { Producer } = require('rocketmq-client-nodejs');
const h = require('../../interop/lib/harness');

const ENDPOINT = process.env.RMQ_GRPC_ENDPOINT;  // "127.0.0.1:port"
const RMQADMIN = process.env.RMQADMIN || '';
assert(ENDPOINT, 'run through test/interop5/run.sh (RMQ_GRPC_ENDPOINT unset)');
assert(RMQADMIN, 'the 5.x suite needs rmqadmin beside rmqnode (topic attributes)');

const verbose = !!process.env.INTEROP_VERBOSE;
const clientErrors = [];
// The 5.x client's logger interface (egg-logger's): errors are kept for the failure report.
const logger = {
  info(...a) { if (verbose) console.log('[5.x]', ...a); },
  debug() {},
  warn(...a) { if (verbose) console.warn('[5.x warn]', ...a); },
  error(...a) { clientErrors.push(a.map(String).join(' ')); if (verbose) console.error('[5.x error]', ...a); },
  close() {},
};

const open = [];

// A started 5.x producer on the node's gRPC endpoint; `opts` are the client's own options.
async function newProducer(opts = {}) {
  const p = new Producer(Object.assign({ endpoints: ENDPOINT, logger, requestTimeout: 5000 }, opts));
  await p.startup();
  open.push(p);
  return p;
}

// Any started 5.x client (a consumer too) shut down by closeAll.
function track(client) {
  open.push(client);
  return client;
}

async function shutdown(client) {
  const i = open.indexOf(client);
  if (i >= 0) open.splice(i, 1);
  await client.shutdown();
}

async function closeAll() {
  while (open.length) {
    const c = open.pop();
    try { await c.shutdown(); } catch (e) { logger.error('shutdown: ' + e.message); }
  }
  await h.closeAll();
  await h.closeAdmin();
}

// Creates `topic` with `queues` queues and the 5.x attribute message.type = `type` (NORMAL, FIFO,
// DELAY, TRANSACTION; null = no attribute, as a 4.x topic), then waits for its route.
async function createTopic(topic, type, queues = 4) {
  const args = ['updateTopic', '-n', h.NAMESRV, '-b', h.BROKER, '-t', topic, '-r', String(queues), '-w', String(queues)];
  if (type) args.push('-a', `+message.type=${type}`);
  execFileSync(RMQADMIN, args, { stdio: verbose ? 'inherit' : 'pipe', timeout: 15000 });
  return h.waitForRoute(topic, queues);
}

// rmqadmin's answer as text (our C++ client looking a message up by id or key).
function admin(...args) {
  return execFileSync(RMQADMIN, [...args, '-n', h.NAMESRV], { timeout: 15000 }).toString();
}

// The same without blocking this process: for commands a 5.x client of this process must answer
// (consumerStatus -s, pushMsg) while rmqadmin waits.
async function adminAsync(...args) {
  const { execFile } = require('node:child_process');
  const { stdout } = await require('node:util').promisify(execFile)(RMQADMIN, [...args, '-n', h.NAMESRV], { timeout: 15000 });
  return stdout.toString();
}

// The consumer group exists on the broker with these settings (POP refuses unknown groups).
function createGroup(group, { retryMaxTimes = 16, orderly = false } = {}) {
  admin('updateSubGroup', '-b', h.BROKER, '-g', group, '-r', String(retryMaxTimes), '-o', String(orderly));
}

module.exports = { ENDPOINT, logger, clientErrors, newProducer, track, shutdown, closeAll, createTopic, createGroup, admin, adminAsync, h };

// A second node of the suite's own (for a config the shared node must not have, e.g. ACL): same
// layout as run.sh's, `brokerExtra` TOML lines added to [broker], files in a temp dir; stop() kills
// it and removes the dir. Needs RMQNODE (run.sh exports it).
async function startOwnNode(name, brokerExtra, setup = () => {}) {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const net = require('node:net');
  const { spawn } = require('node:child_process');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `rmq-interop5-${name}.`));
  const [ns, broker, grpc] = execFileSync(process.execPath, [path.join(__dirname, '../../interop/lib/free_ports.js')])
    .toString().trim().split(' ').map(Number);
  setup(work);
  fs.writeFileSync(path.join(work, 'node.toml'), `logDir = "${work}/logs"
httpListenPort = 0
[namesrv]
listenPort = ${ns}
kvConfigPath = "${work}/namesrv/kvConfig.json"
configStorePath = "${work}/namesrv/namesrv.properties"
[broker]
brokerClusterName = "${name}Cluster"
brokerName = "${name}-broker"
brokerIP1 = "127.0.0.1"
listenPort = ${broker}
grpcServerPort = ${grpc}
namesrvAddr = "127.0.0.1:${ns}"
autoCreateTopicEnable = false
${brokerExtra}
[store]
storePathRootDir = "${work}/store"
`);
  const out = fs.openSync(path.join(work, 'rmqnode.out'), 'w');
  const child = spawn(process.env.RMQNODE, ['--role=namesrv,master', '-c', path.join(work, 'node.toml')],
    { env: Object.assign({}, process.env, { HOME: work, ROCKETMQ_HOME: work }), stdio: ['ignore', out, out] });
  const accepts = port => new Promise(resolve => {
    const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
  await h.waitFor(async () => (await accepts(ns)) && (await accepts(broker)) && (await accepts(grpc)), 20000,
    `${name} node ports`);
  return {
    nsAddr: `127.0.0.1:${ns}`, brokerAddr: `127.0.0.1:${broker}`, endpoint: `127.0.0.1:${grpc}`, work,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await h.waitFor(() => child.exitCode !== null, 10000, `${name} node to stop`).catch(() => child.kill('SIGKILL'));
      }
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}

module.exports.startOwnNode = startOwnNode;
