'use strict';
// A message sent with a delay level arrives no earlier than that level's delay, under its real
// topic with DELAY=<level> kept as RocketMQ 4.9 stores it; a plain message sent at the same moment arrives at once.
const { test, after } = require('node:test');
const assert = require('node:assert');
const h = require('../lib/harness');

// run.sh's messageDelayLevel: level 6 = 3 s.
const LEVEL = 6;
const DELAY_MS = 3000;
after(async () => { await h.closeAll(); await h.closeAdmin(); });

test(`a delay level ${LEVEL} message arrives no earlier than ${DELAY_MS} ms`, { timeout: 90000 }, async () => {
  const topic = h.uniqueName('InteropDelay');
  await h.createTopic(topic, 2);
  const producer = await h.newProducer(h.uniqueName('PG'));
  const consumer = h.newConsumer({ group: h.uniqueName('CGDelay') });
  const got = h.collect(consumer, topic);
  // Wait until the consumer is live: a plain message goes through.
  await producer.send(h.message(topic, 'Warm', 'warm-up'));
  await h.waitFor(() => got.has('warm-up'), 30000, 'warm-up message');

  const delayed = h.message(topic, 'TagD', 'delayed', ['dk']);
  delayed.delayTimeLevel = LEVEL;
  const sentAt = Date.now();
  const r = await producer.send(delayed);
  assert.strictEqual(r.sendStatus, 'SEND_OK');
  const plainSentAt = Date.now();
  await producer.send(h.message(topic, 'TagP', 'plain'));
  await h.waitFor(() => got.has('plain'), 10000, 'plain message');
  await h.waitFor(() => got.has('delayed'), DELAY_MS + 15000, 'delayed message');

  const d = got.get('delayed');
  assert.strictEqual(d.length, 1);
  const waited = d[0].receivedAt - sentAt;
  assert.ok(waited >= DELAY_MS, `delayed message waited ${waited} ms (>= ${DELAY_MS})`);
  assert.ok(got.get('plain')[0].receivedAt - plainSentAt < DELAY_MS, 'plain message not held back');
  assert.strictEqual(d[0].topic, topic, 'delivered under its real topic');
  assert.strictEqual(d[0].tags, 'TagD');
  assert.strictEqual(d[0].keys, 'dk');
  // RocketMQ 4.9 keeps DELAY in the delivered record (messageTimeup builds the stored properties
  // before it clears DELAY), so getDelayTimeLevel() on delivery answers the level asked for.
  assert.strictEqual(d[0].properties.DELAY, String(LEVEL), 'DELAY property kept on delivery');
  assert.strictEqual(d[0].properties.REAL_TOPIC, topic);
});
