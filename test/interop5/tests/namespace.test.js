'use strict';
// x-mq-namespace (the Node client's `namespace` option): a 5.x producer and PushConsumer with a
// namespace name the bare topic and group; the cluster stores "ns%topic" / "ns%group" (RocketMQ's
// NamespaceUtil), so a 4.x consumer of topic "ns%topic" receives the messages, and the 5.x side
// gets the bare names back.
const { test, after } = require('node:test');
const assert = require('node:assert');
const { PushConsumer, ConsumeResult } = require('rocketmq-client-nodejs');
const x = require('../lib/harness5');
const { h } = x;

after(x.closeAll);

test('a namespaced 5.x producer and consumer use ns%topic; a 4.x consumer sees topic ns%topic', { timeout: 90000 }, async () => {
  const ns = h.uniqueName('ns');
  const topic = h.uniqueName('V5NsTopic');
  const group = h.uniqueName('CG5Ns');
  const wrapped = `${ns}%${topic}`;
  await x.createTopic(wrapped, 'NORMAL', 4);
  x.createGroup(`${ns}%${group}`);

  const got5 = new Map();  // body -> topic the 5.x consumer saw
  const consumer = new PushConsumer({
    endpoints: x.ENDPOINT, logger: x.logger, requestTimeout: 5000, namespace: ns, consumerGroup: group,
    subscriptions: new Map([[topic, '*']]),
    messageListener: { async consume(v) { got5.set(v.body.toString(), v.topic); return ConsumeResult.SUCCESS; } },
  });
  x.track(consumer);
  await consumer.startup();
  const got4 = h.collect(h.newConsumer({ group: h.uniqueName('CG4Ns') }), wrapped);

  const producer = await x.newProducer({ topics: [topic], namespace: ns });
  const N = 10;
  for (let i = 0; i < N; i++) {
    const r = await producer.send({ topic, tag: 'TagNs', body: Buffer.from(`ns-${i}`) });
    assert.match(r.messageId, /^[0-9A-F]{34}$/);
  }
  await h.waitFor(() => got5.size === N && got4.size === N, 40000,
    `${N} messages at both consumers (5.x ${got5.size}, 4.x ${got4.size})`);
  for (const [body, t] of got5) assert.strictEqual(t, topic, `${body}: the 5.x consumer sees the bare topic`);
  for (const [body, msgs] of got4) assert.strictEqual(msgs[0].topic, wrapped, `${body}: the 4.x consumer sees ns%topic`);

  // Nothing of it went to a bare topic of that name.
  const bare = x.admin('topicList');
  assert.ok(!bare.split('\n').some(l => l.trim() === topic), `no bare topic ${topic} was created`);
});
