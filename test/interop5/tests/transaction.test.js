'use strict';
// TRANSACTION sends from the 5.x producer: a committed half message becomes visible, a rolled-back
// one never does, and an orphan (its producer gone before deciding) is checked back through the
// Telemetry stream of a producer started later on the same topic (group = topic, as the 5.x proxy
// registers producers), which commits it. run.sh's node checks half messages every second.
const { test, after } = require('node:test');
const assert = require('node:assert');
const { TransactionResolution } = require('rocketmq-client-nodejs/proto/apache/rocketmq/v2/definition_pb');
const x = require('../lib/harness5');
const { h } = x;

after(x.closeAll);

const neverCalled = { async check() { throw new Error('no check expected'); } };

test('commit is delivered, rollback never', { timeout: 60000 }, async () => {
  const topic = h.uniqueName('V5Tx');
  await x.createTopic(topic, 'TRANSACTION', 2);
  const producer = await x.newProducer({ topics: [topic], checker: neverCalled });
  const consumer = h.newConsumer({ group: h.uniqueName('CGTx') });
  const got = h.collect(consumer, topic);

  const tx1 = producer.beginTransaction();
  const r1 = await producer.send({ topic, keys: ['tx-commit'], body: Buffer.from('committed') }, tx1);
  assert.strictEqual(r1.transactionId, r1.messageId, 'transaction id = the message\'s UNIQ_KEY, as 5.x answers');
  const tx2 = producer.beginTransaction();
  await producer.send({ topic, body: Buffer.from('rolled-back') }, tx2);
  await h.sleep(300);
  assert.ok(!got.has('committed'), 'a half message is invisible before the commit');
  await tx1.commit();
  await tx2.rollback();
  await h.waitFor(() => got.has('committed'), 30000, 'the committed message');
  assert.strictEqual(got.get('committed')[0].keys, 'tx-commit');
  assert.strictEqual(got.get('committed')[0].properties.UNIQ_KEY, r1.messageId);
  await h.sleep(2500);  // more than two check rounds: a rollback must not come back
  assert.ok(!got.has('rolled-back'), 'the rolled-back message was never delivered');
});

test('an orphaned transaction is checked back on a new producer\'s Telemetry stream', { timeout: 60000 }, async () => {
  const topic = h.uniqueName('V5TxOrphan');
  await x.createTopic(topic, 'TRANSACTION', 2);
  const first = await x.newProducer({ topics: [topic], checker: neverCalled });
  const tx = first.beginTransaction();
  const sent = await first.send({ topic, body: Buffer.from('orphan') }, tx);
  await x.shutdown(first);  // gone without commit or rollback

  const checked = [];
  const checker = {
    async check(messageView) {
      checked.push(messageView.messageId);
      return TransactionResolution.COMMIT;
    },
  };
  await x.newProducer({ topics: [topic], checker });
  const consumer = h.newConsumer({ group: h.uniqueName('CGOrphan') });
  const got = h.collect(consumer, topic);
  await h.waitFor(() => got.has('orphan'), 40000, 'the orphan, committed by the check-back');
  assert.ok(checked.includes(sent.messageId), `the checker saw the orphan's id (${checked})`);
});
