'use strict';
// Produce N messages with tags and keys, consume them all (clustering, consume-from-first), then
// two consumers sharing a group, then a consumer restart resuming from its committed offsets.
const { test, after } = require('node:test');
const assert = require('node:assert');
const h = require('../lib/harness');

const N = 200;
after(async () => { await h.closeAll(); await h.closeAdmin(); });

async function produce(producer, topic, count, prefix) {
  const sent = new Map();  // body -> send result
  for (let i = 0; i < count; i++) {
    const body = `${prefix}-${i}`;
    const r = await producer.send(h.message(topic, i % 2 ? 'TagB' : 'TagA', body, [`key-${prefix}-${i}`, `k2-${i}`]));
    assert.strictEqual(r.sendStatus, 'SEND_OK', `send ${body}`);
    assert.match(r.msgId, /^[0-9A-F]{32}$/, 'offset msgId: 16 bytes upper-case hex');
    assert.ok(Number.isInteger(r.queueOffset) && r.queueOffset >= 0);
    sent.set(body, r);
  }
  return sent;
}

function checkMessage(msg, sendResult, topic, i) {
  assert.strictEqual(msg.topic, topic);
  assert.strictEqual(msg.tags, i % 2 ? 'TagB' : 'TagA');
  assert.strictEqual(msg.keys, `key-${msg.body.toString().replace(/-\d+$/, '')}-${i} k2-${i}`);
  assert.strictEqual(msg.msgId, sendResult.msgId, 'consumer-side offset msgId equals the send answer');
  assert.strictEqual(msg.queueId, Number(sendResult.messageQueue.queueId), "queue id of the send answer");
  assert.strictEqual(msg.queueOffset, sendResult.queueOffset);
  assert.strictEqual(msg.storeHost, h.BROKER, 'store host = brokerIP1:listenPort');
  assert.match(msg.bornHost, /^127\.0\.0\.1:\d+$/, 'IPv4 born host for an IPv4 peer');
  assert.strictEqual(msg.reconsumeTimes, 0);
}

test('clustering consumer, consume-from-first, gets every message with tags and keys', { timeout: 90000 }, async () => {
  const topic = h.uniqueName('InteropBasic');
  await h.createTopic(topic, 4);
  const producer = await h.newProducer(h.uniqueName('PG'));
  const sent = await produce(producer, topic, N, 'basic');
  const queues = new Set([...sent.values()].map(r => r.messageQueue.queueId));
  assert.ok(queues.size > 1, 'producer spread sends over the queues');

  const consumer = h.newConsumer({ group: h.uniqueName('CGBasic') });
  const got = h.collect(consumer, topic);
  await h.waitFor(() => got.size === N, 60000, `${N} messages (have ${got.size})`);
  for (const [body, msgs] of got) {
    assert.strictEqual(msgs.length, 1, `${body} delivered once`);
    const i = Number(body.split('-')[1]);
    checkMessage(msgs[0], sent.get(body), topic, i);
  }
});

test('two consumers sharing a group split the queues and consume each message once', { timeout: 90000 }, async () => {
  const topic = h.uniqueName('InteropShared');
  const group = h.uniqueName('CGShared');
  await h.createTopic(topic, 4);
  const c1 = h.newConsumer({ group, instanceName: 'member1' });
  const c2 = h.newConsumer({ group, instanceName: 'member2' });
  const got1 = h.collect(c1, topic);
  const got2 = h.collect(c2, topic);
  // Wait until rebalance (GET_CONSUMER_LIST_BY_GROUP sees both members) gives each member half
  // of the topic's queues.
  const owned = c => [...c.processQueueTable.values()].filter(v => v.messageQueue.topic === topic)
    .map(v => v.messageQueue.queueId);
  await h.waitFor(() => owned(c1).length === 2 && owned(c2).length === 2, 30000,
    'both members to own 2 of the 4 queues');
  assert.deepStrictEqual([...owned(c1), ...owned(c2)].sort(), [0, 1, 2, 3]);

  const producer = await h.newProducer(h.uniqueName('PG'));
  const sent = await produce(producer, topic, N, 'shared');
  await h.waitFor(() => got1.size + got2.size >= N, 60000, `${N} messages (have ${got1.size + got2.size})`);
  await h.sleep(500);  // a late duplicate would show up here
  assert.ok(got1.size > 0 && got2.size > 0, `both members consumed (${got1.size}, ${got2.size})`);
  for (const body of sent.keys()) {
    const n = (got1.get(body) || []).length + (got2.get(body) || []).length;
    assert.strictEqual(n, 1, `${body} consumed exactly once in the group`);
  }
  const q1 = new Set(owned(c1));
  for (const msgs of got1.values()) assert.ok(q1.has(msgs[0].queueId), 'member1 only reads its own queues');
});

test('a restarted consumer resumes from its committed offsets', { timeout: 90000 }, async () => {
  const topic = h.uniqueName('InteropResume');
  const group = h.uniqueName('CGResume');
  await h.createTopic(topic, 2);
  const producer = await h.newProducer(h.uniqueName('PG'));
  await produce(producer, topic, 20, 'first');
  const c1 = h.newConsumer({ group, instanceName: 'run1' });
  const got1 = h.collect(c1, topic);
  await h.waitFor(() => got1.size === 20, 30000, `first 20 (have ${got1.size})`);
  await h.sleep(1500);  // > persistConsumerOffsetInterval: offsets committed (UPDATE_CONSUMER_OFFSET)
  await h.closeClient(c1);  // also commits on close

  await produce(producer, topic, 10, 'second');
  const c2 = h.newConsumer({ group, instanceName: 'run2' });
  const got2 = h.collect(c2, topic);
  await h.waitFor(() => got2.size >= 10, 30000, `second 10 (have ${got2.size})`);
  await h.sleep(500);
  assert.deepStrictEqual([...got2.keys()].filter(b => b.startsWith('first')), [],
    'nothing consumed before the restart is delivered again');
  assert.strictEqual(got2.size, 10);
});
