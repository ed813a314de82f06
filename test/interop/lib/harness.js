'use strict';
// Shared helpers for the interop tests: where the node under test is (from run.sh's environment),
// topic creation through our admin path, ali-ons clients with test-friendly intervals, bounded
// waits, and a shutdown that leaves no client timers running.
const assert = require('node:assert');
const { execFileSync } = require('node:child_process');
const { Producer, Consumer, Message } = require('ali-ons');
const MQProducer = require('ali-ons/lib/producer/mq_producer');
const MQClientAPI = require('ali-ons/lib/mq_client_api');

const NAMESRV = process.env.RMQ_NAMESRV_ADDR;  // "127.0.0.1:port"
const BROKER = process.env.RMQ_BROKER_ADDR;    // "127.0.0.1:port"
const RMQADMIN = process.env.RMQADMIN || '';    // rmqadmin binary; empty = send the frame from node
assert(NAMESRV && BROKER, 'run through test/interop/run.sh (RMQ_NAMESRV_ADDR / RMQ_BROKER_ADDR unset)');

const verbose = !!process.env.INTEROP_VERBOSE;
const clientErrors = [];

// ali-ons logs warn/error to the console; keep them, print them only when asked.
const logger = {
  info(...a) { if (verbose) console.log('[ali-ons]', ...a); },
  debug() {},
  warn(...a) { if (verbose) console.warn('[ali-ons warn]', ...a); },
  error(...a) { clientErrors.push(a.map(String).join(' ')); if (verbose) console.error('[ali-ons error]', ...a); },
};

// Client options shared by producers and consumers. The intervals are shorter than ali-ons'
// defaults (30 s route poll, 10 s rebalance) so that a newly created %RETRY% topic is picked up
// and a second group member is balanced within seconds; the protocol exchanged is the same.
function baseOptions(extra) {
  return Object.assign({
    httpclient: {},  // required by ali-ons but unused when nameSrv is given
    nameSrv: NAMESRV,
    clientIP: '127.0.0.1',
    logger,
    pollNameServerInteval: 2000,
    heartbeatBrokerInterval: 5000,
    rebalanceInterval: 2000,
    persistConsumerOffsetInterval: 1000,
  }, extra);
}

const open = [];  // every client created, closed by closeAll()

function onError(client) {
  client.on('error', err => logger.error(err && err.message ? err.message : err));
  return client;
}

async function newProducer(group) {
  const p = onError(new Producer(baseOptions({ producerGroup: group })));
  open.push(p);
  await p.ready();
  return p;
}

// opts: { group, instanceName, consumeFromWhere, ... } (any ali-ons consumer option).
function newConsumer(opts) {
  const c = onError(new Consumer(baseOptions(Object.assign({
    consumerGroup: opts.group,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  }, opts))));
  open.push(c);
  return c;
}

async function closeAll() {
  while (open.length) {
    const c = open.pop();
    try { await c.close(); } catch (e) { logger.error('close: ' + e.message); }
  }
  // The inner producer (group CLIENT_INNER_PRODUCER) keeps its client's timers alive.
  if (MQProducer.defaultProducer) {
    try { await MQProducer.defaultProducer.close(); } catch (e) { logger.error('close inner: ' + e.message); }
  }
}

// Closes one client now (and forgets it, so closeAll() does not close it twice).
async function closeClient(c) {
  const i = open.indexOf(c);
  if (i >= 0) open.splice(i, 1);
  await c.close();
}

function uniqueName(prefix) {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}`;
}

const sleep = ms => new Promise(r => setTimeout(r, ms));

// Polls `predicate` every 50 ms until it returns truthy or `timeoutMs` passes (then throws).
async function waitFor(predicate, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await predicate();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

// A bare ali-ons remoting client (no producer/consumer registered) for admin frames and routes.
let api;
async function adminApi() {
  if (!api) {
    api = new MQClientAPI({ nameSrv: NAMESRV, httpclient: {}, logger, responseTimeout: 5000 });
    await api.ready();
  }
  return api;
}

// Creates `topic` on the broker (UPDATE_AND_CREATE_TOPIC) through rmqadmin when available, else
// with the frame ali-ons itself knows how to send, then waits until the name server routes it.
async function createTopic(topic, queues = 4) {
  if (RMQADMIN) {
    execFileSync(RMQADMIN, ['updateTopic', '-n', NAMESRV, '-b', BROKER, '-t', topic,
      '-r', String(queues), '-w', String(queues)], { stdio: verbose ? 'inherit' : 'pipe', timeout: 15000 });
  } else {
    const a = await adminApi();
    await a.createTopic(BROKER, 'TBW102', {
      topicName: topic, readQueueNums: queues, writeQueueNums: queues, perm: 6,
      topicFilterType: 'SINGLE_TAG', topicSysFlag: 0, order: false,
    }, 5000);
  }
  return waitForRoute(topic, queues);
}

// The broker registers a new topic with the name server; wait until the route shows it.
async function waitForRoute(topic, queues) {
  const a = await adminApi();
  return waitFor(async () => {
    try {
      const r = await a.getTopicRouteInfoFromNameServer(topic, 3000);
      return r && r.queueDatas.length && r.queueDatas[0].writeQueueNums === queues && r;
    } catch (e) {
      return false;
    }
  }, 40000, `name server route for ${topic}`);
}

async function closeAdmin() {
  if (api) { await api.close(); api = null; }
}

function message(topic, tag, body, keys) {
  const m = new Message(topic, tag, body);
  if (keys) m.keys = keys;
  return m;
}

// Subscribes `consumer` and records every delivery: body (string) -> [msg, ...]. `onMessage` may
// throw or return Consumer.ACTION_RETRY to make the delivery fail (it is still recorded).
function collect(consumer, topic, expression = '*', onMessage = null) {
  const got = new Map();
  consumer.subscribe(topic, expression, async msg => {
    const body = msg.body.toString();
    if (!got.has(body)) got.set(body, []);
    got.get(body).push(Object.assign(msg, { receivedAt: Date.now() }));
    if (onMessage) return onMessage(msg, got.get(body).length);
  });
  return got;
}

module.exports = {
  NAMESRV, BROKER, Consumer, Message, MQProducer, clientErrors, newProducer, newConsumer,
  closeAll, closeClient, closeAdmin, createTopic, waitForRoute, waitFor, sleep, uniqueName, message, collect,
};
