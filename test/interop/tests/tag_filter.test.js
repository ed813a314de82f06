'use strict';
// Tag filter `TagA || TagB`: the consumer gets every TagA and TagB message and no TagC one.
const { test, after } = require('node:test');
const assert = require('node:assert');
const h = require('../lib/harness');

after(async () => { await h.closeAll(); await h.closeAdmin(); });

test('subscription "TagA || TagB" delivers exactly the TagA and TagB messages', { timeout: 90000 }, async () => {
  const topic = h.uniqueName('InteropTags');
  await h.createTopic(topic, 4);
  const producer = await h.newProducer(h.uniqueName('PG'));
  const tags = ['TagA', 'TagB', 'TagC'];
  const expected = new Set();
  for (let i = 0; i < 150; i++) {
    const tag = tags[i % 3];
    const body = `${tag}-${i}`;
    const r = await producer.send(h.message(topic, tag, body, [`tagkey-${i}`]));
    assert.strictEqual(r.sendStatus, 'SEND_OK');
    if (tag !== 'TagC') expected.add(body);
  }
  // A TagC-only group on the same topic sees only TagC (the filter is per subscription).
  const onlyC = h.newConsumer({ group: h.uniqueName('CGTagC'), instanceName: 'tagc' });
  const gotC = h.collect(onlyC, topic, 'TagC');
  const consumer = h.newConsumer({ group: h.uniqueName('CGTagAB'), instanceName: 'tagab' });
  const got = h.collect(consumer, topic, 'TagA || TagB');
  await h.waitFor(() => got.size >= expected.size && gotC.size >= 50, 60000,
    `${expected.size} TagA/TagB (have ${got.size}) and 50 TagC (have ${gotC.size})`);
  await h.sleep(1000);  // anything unexpected still in flight shows up here
  assert.deepStrictEqual([...got.keys()].filter(b => !expected.has(b)), [], 'no TagC delivered');
  for (const [body, msgs] of got) {
    assert.strictEqual(msgs.length, 1, `${body} once`);
    assert.strictEqual(msgs[0].tags, body.split('-')[0]);
  }
  assert.strictEqual(gotC.size, 50);
  for (const body of gotC.keys()) assert.ok(body.startsWith('TagC-'), body);
});
