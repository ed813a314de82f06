'use strict';
// A consumer failing the first K deliveries of a message gets it again through %RETRY%<group>
// (CONSUMER_SEND_MSG_BACK, delay level 3 + reconsumeTimes, then back under the retry topic).
const { test, after } = require('node:test');
const assert = require('node:assert');
const h = require('../lib/harness');

const K = 2;  // failed deliveries before success
const M = 5;  // messages
after(async () => { await h.closeAll(); await h.closeAdmin(); });

test(`a consumer failing the first ${K} deliveries gets them again through %RETRY%`, { timeout: 120000 }, async () => {
  const topic = h.uniqueName('InteropRetry');
  const group = h.uniqueName('CGRetry');
  await h.createTopic(topic, 2);
  const producer = await h.newProducer(h.uniqueName('PG'));
  const sent = new Map();
  for (let i = 0; i < M; i++) {
    const r = await producer.send(h.message(topic, 'TagR', `retry-${i}`, [`rk-${i}`]));
    assert.strictEqual(r.sendStatus, 'SEND_OK');
    sent.set(`retry-${i}`, r);
  }
  const consumer = h.newConsumer({ group });
  const got = h.collect(consumer, topic, '*', (msg, n) => {
    if (n <= K) throw new Error(`intentional failure ${n} of ${msg.body}`);
  });
  await h.waitFor(() => [...got.values()].every(v => v.length > K) && got.size === M, 90000,
    `every message delivered ${K + 1} times (have ${[...got.values()].map(v => v.length)})`);
  await h.sleep(1500);  // a success must not be followed by yet another delivery
  for (const [body, msgs] of got) {
    assert.strictEqual(msgs.length, K + 1, `${body}: ${K} failures + 1 success`);
    const first = msgs[0];
    assert.strictEqual(first.msgId, sent.get(body).msgId);
    msgs.forEach((m, i) => {
      assert.strictEqual(m.reconsumeTimes, i, `${body}: delivery ${i} reconsumeTimes`);
      assert.strictEqual(m.topic, topic, 'redelivery comes back under the real topic');
      assert.strictEqual(m.tags, 'TagR');
      assert.strictEqual(m.keys, first.keys);
      if (i > 0) {
        assert.strictEqual(m.properties.RETRY_TOPIC, topic);
        assert.strictEqual(m.originMessageId, first.msgId, 'ORIGIN_MESSAGE_ID = first offset msgId');
        assert.notStrictEqual(m.msgId, first.msgId, 'a retry is a new record');
        assert.ok(m.receivedAt - msgs[i - 1].receivedAt >= 900, 'retry waits for its delay level (1 s in the test config)');
      }
    });
  }
});
