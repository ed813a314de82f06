'use strict';
// FIFO and DELAY sends from the 5.x producer: a message group's messages land in one queue in send
// order (the server picks the queue by the group, the client's queue choice is ignored); a delay
// message is not delivered before its time, and a recalled one is never delivered.
const { test, after } = require('node:test');
const assert = require('node:assert');
const x = require('../lib/harness5');
const { h } = x;

after(x.closeAll);

test('FIFO: each message group in one queue, in send order', { timeout: 90000 }, async () => {
  const topic = h.uniqueName('V5Fifo');
  await x.createTopic(topic, 'FIFO', 8);
  const producer = await x.newProducer({ topics: [topic] });
  const groups = ['order-a', 'order-b', 'order-c', 'order-d'];
  const PER = 15;
  for (let i = 0; i < PER; i++) {
    for (const g of groups) await producer.send({ topic, messageGroup: g, body: Buffer.from(`${g}#${i}`) });
  }
  const consumer = h.newConsumer({ group: h.uniqueName('CGFifo') });
  const got = h.collect(consumer, topic);
  const total = groups.length * PER;
  await h.waitFor(() => got.size === total, 60000, `${total} FIFO messages (have ${got.size})`);
  const used = new Set();
  for (const g of groups) {
    const msgs = [];
    for (let i = 0; i < PER; i++) msgs.push(got.get(`${g}#${i}`)[0]);
    const queues = new Set(msgs.map(m => m.queueId));
    assert.strictEqual(queues.size, 1, `${g}: one queue (${[...queues]})`);
    used.add(msgs[0].queueId);
    for (let i = 1; i < PER; i++) assert.ok(msgs[i].queueOffset > msgs[i - 1].queueOffset, `${g}: send order kept at ${i}`);
    assert.strictEqual(msgs[0].properties.__SHARDINGKEY, g, 'the message group is the sharding key');
  }
  assert.ok(used.size > 1, `groups spread over queues (${[...used]})`);
});

test('DELAY: delivered at its time, not before; a recalled one never', { timeout: 60000 }, async () => {
  const topic = h.uniqueName('V5Delay');
  await x.createTopic(topic, 'DELAY', 2);
  const producer = await x.newProducer({ topics: [topic] });
  const consumer = h.newConsumer({ group: h.uniqueName('CGDelay') });
  const got = h.collect(consumer, topic);
  const delayMs = 3000;
  const at = Date.now() + delayMs;
  await producer.send({ topic, tag: 'late', deliveryTimestamp: new Date(at), body: Buffer.from('kept') });
  const recalled = await producer.send({ topic, deliveryTimestamp: new Date(at), body: Buffer.from('recalled') });
  assert.ok(recalled.recallHandle, 'a delay message\'s receipt carries a recall handle');
  await producer.recallMessage(topic, recalled.recallHandle);
  await h.waitFor(() => got.has('kept'), 30000, 'the delay message');
  const m = got.get('kept')[0];
  assert.ok(m.receivedAt >= at - 5, `not before its time (${m.receivedAt - at} ms)`);
  assert.strictEqual(m.tags, 'late');
  console.log(`# delay message delivered ${m.receivedAt - at} ms after its time`);
  await h.sleep(1500);
  assert.ok(!got.has('recalled'), 'the recalled message was not delivered');
});
