'use strict';
// The 5.x producer (rocketmq-client-nodejs) against rmqnode's gRPC endpoint: start-up (QueryRoute,
// Telemetry settings), NORMAL sends seen by a 4.x consumer (ali-ons) with their tag, keys and
// properties and found by our rmqadmin by id and key, an unknown topic, the body limit the server's
// settings give, and a message type the topic does not accept.
const { test, after } = require('node:test');
const assert = require('node:assert');
const x = require('../lib/harness5');
const { h } = x;

after(x.closeAll);

test('NORMAL sends reach a 4.x consumer as normal RocketMQ messages', { timeout: 90000 }, async () => {
  const topic = h.uniqueName('V5Normal');
  await x.createTopic(topic, 'NORMAL', 4);
  const producer = await x.newProducer({ topics: [topic] });
  const N = 40;
  const sent = new Map();  // body -> receipt
  for (let i = 0; i < N; i++) {
    const body = `normal-${i}`;
    const receipt = await producer.send({
      topic, tag: i % 2 ? 'TagB' : 'TagA', keys: [`k-${i}`, `k2-${i}`], body: Buffer.from(body),
      properties: new Map([['user-prop', `v${i}`]]),
    });
    assert.match(receipt.messageId, /^[0-9A-F]{34}$/, 'the 5.x client\'s 34-hex message id');
    assert.ok(BigInt(receipt.offset) >= 0n, 'queue offset in the receipt');
    sent.set(body, receipt);
  }
  const queues = new Set([...sent.values()].map(r => r.messageQueue.queueId));
  assert.ok(queues.size >= 1);

  const consumer = h.newConsumer({ group: h.uniqueName('CG4') });
  const got = h.collect(consumer, topic);
  await h.waitFor(() => got.size === N, 60000, `${N} messages at the 4.x consumer (have ${got.size})`);
  for (const [body, msgs] of got) {
    assert.strictEqual(msgs.length, 1, `${body} delivered once`);
    const i = Number(body.split('-')[1]);
    const m = msgs[0];
    assert.strictEqual(m.topic, topic);
    assert.strictEqual(m.tags, i % 2 ? 'TagB' : 'TagA');
    assert.strictEqual(m.keys, `k-${i} k2-${i}`);
    assert.strictEqual(m.properties['user-prop'], `v${i}`);
    assert.strictEqual(m.properties.UNIQ_KEY, sent.get(body).messageId, 'UNIQ_KEY = the 5.x message id');
    assert.strictEqual(m.reconsumeTimes, 0);
  }
  // The server spread the sends over the write queues (the Node client names queue 0 only).
  const used = new Set([...got.values()].map(m => m[0].queueId));
  assert.ok(used.size > 1, `sends spread over queues by the server (used ${[...used]})`);

  // Our C++ client finds a 5.x-sent message by its id and by its key.
  const r = sent.get('normal-7');
  const byId = x.admin('queryMsgByUniqueKey', '-t', topic, '-i', r.messageId);
  assert.match(byId, /normal-7|k-7/, 'rmqadmin queryMsgByUniqueKey shows the message');
  const byKey = x.admin('queryMsgByKey', '-t', topic, '-k', 'k-7');
  assert.ok(byKey.includes(r.messageId), 'rmqadmin queryMsgByKey lists its id');
});

test('an unknown topic is NOT_FOUND with RocketMQ\'s text', { timeout: 30000 }, async () => {
  const producer = await x.newProducer();
  const topic = h.uniqueName('V5Missing');
  await assert.rejects(producer.send({ topic, body: Buffer.from('x') }), err => {
    assert.strictEqual(err.code, 40402, `TOPIC_NOT_FOUND (${err.code}: ${err.message})`);
    assert.match(err.message, new RegExp(`No topic route info in name server for the topic: ${topic}`));
    return true;
  });
});

test('the body limit comes from the server\'s settings; a type the topic refuses is not sent', { timeout: 30000 }, async () => {
  const topic = h.uniqueName('V5Limits');
  await x.createTopic(topic, 'NORMAL', 2);
  const producer = await x.newProducer({ topics: [topic] });
  const max = producer.publishingSettings.maxBodySizeBytes;
  assert.strictEqual(max, 4 * 1024 * 1024, 'max_body_size = the broker\'s maxMessageSize (4 MiB)');
  await assert.rejects(producer.send({ topic, body: Buffer.alloc(max + 1) }), /exceeds the threshold/);
  const big = await producer.send({ topic, body: Buffer.alloc(max - 1024, 7) });
  assert.match(big.messageId, /^[0-9A-F]{34}$/, 'a body just under the limit is accepted');
  // FIFO (a message group) to a NORMAL topic: refused, as the topic's accept_message_types say.
  await assert.rejects(producer.send({ topic, messageGroup: 'g1', body: Buffer.from('fifo') }),
    /not match with topic accept message types/);
});
