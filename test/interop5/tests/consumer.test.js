'use strict';
// The 5.x consumers (rocketmq-client-nodejs SimpleConsumer and PushConsumer) on the node's POP
// engine through gRPC: receive + ack (never again), a message not acked comes back after its
// invisible time with deliveryAttempt 2, ChangeInvisibleDuration (new handle, the old one dead),
// push success, push failure -> redelivery -> DLQ after the group's max attempts, FIFO order per
// message group with a failure in the middle, TAG and SQL92 filters, a 4.x producer (ali-ons, zlib-compressed
// body) to a 5.x consumer, and two 5.x consumers of one group sharing without duplicates.
const { test, after } = require('node:test');
const assert = require('node:assert');
const { SimpleConsumer, PushConsumer, ConsumeResult, FilterExpression } = require('rocketmq-client-nodejs');
const { FilterType } = require('rocketmq-client-nodejs/proto/apache/rocketmq/v2/definition_pb');
const x = require('../lib/harness5');
const { h } = x;

const open = [];
after(async () => {
  while (open.length) {
    const c = open.pop();
    try { await c.shutdown(); } catch (e) { x.logger.error('consumer shutdown: ' + e.message); }
  }
  await x.closeAll();
});

const { createGroup } = x;

// A topic of `type`, a group with `groupOpts`, a started 5.x producer of the topic.
async function fixture(name, type, queues, groupOpts = {}) {
  const topic = h.uniqueName(`V5${name}`);
  const group = h.uniqueName(`CG5${name}`);
  await x.createTopic(topic, type, queues);
  createGroup(group, groupOpts);
  const producer = await x.newProducer({ topics: [topic] });
  return { topic, group, producer };
}

async function newSimple(group, topic, filter = '*', awaitDuration = 2000) {
  const c = new SimpleConsumer({
    endpoints: x.ENDPOINT, logger: x.logger, requestTimeout: 5000, consumerGroup: group,
    subscriptions: new Map([[topic, filter]]), awaitDuration,
  });
  await c.startup();
  open.push(c);
  return c;
}

async function newPush(group, topic, consume, filter = '*') {
  const c = new PushConsumer({
    endpoints: x.ENDPOINT, logger: x.logger, requestTimeout: 5000, consumerGroup: group,
    subscriptions: new Map([[topic, filter]]), messageListener: { consume },
  });
  await c.startup();
  open.push(c);
  return c;
}

async function stop(c) {
  const i = open.indexOf(c);
  if (i >= 0) open.splice(i, 1);
  await c.shutdown();
}

// Receives until `until(all)` holds or `ms` pass; returns every view received, in order.
async function receiveUntil(consumer, until, ms, invisibleMs = 10000, ack = false) {
  const all = [];
  const deadline = Date.now() + ms;
  while (!until(all) && Date.now() < deadline) {
    const views = await consumer.receive(16, invisibleMs);
    for (const v of views) {
      v.receivedAt = Date.now();
      all.push(v);
      if (ack) await consumer.ack(v);
    }
  }
  return all;
}

async function sendN(producer, topic, n, prefix, extra = {}) {
  const ids = new Map();  // body -> message id
  for (let i = 0; i < n; i++) {
    const body = `${prefix}-${i}`;
    const r = await producer.send(Object.assign({ topic, body: Buffer.from(body) }, extra));
    ids.set(body, r.messageId);
  }
  return ids;
}

test('SimpleConsumer: receive and ack; an acked message never comes again', { timeout: 90000 }, async () => {
  const { topic, group, producer } = await fixture('Simple', 'NORMAL', 4);
  const N = 20;
  const ids = new Map();
  for (let i = 0; i < N; i++) {
    const body = `simple-${i}`;
    const r = await producer.send({
      topic, tag: 'TagS', keys: [`key-${i}`], body: Buffer.from(body), properties: new Map([['p', `v${i}`]]),
    });
    ids.set(body, r.messageId);
  }
  const consumer = await newSimple(group, topic);
  const got = await receiveUntil(consumer, all => all.length >= N, 40000, 3000, true);
  assert.strictEqual(got.length, N, `${N} received (have ${got.length})`);
  for (const v of got) {
    const body = v.body.toString();
    const i = Number(body.split('-')[1]);
    assert.ok(!v.corrupted, `${body}: the body digest matches`);
    assert.strictEqual(v.messageId, ids.get(body), `${body}: the message id of the send`);
    assert.strictEqual(v.deliveryAttempt, 1, `${body}: first delivery`);
    assert.strictEqual(v.tag, 'TagS');
    assert.deepStrictEqual(v.keys, [`key-${i}`]);
    assert.strictEqual(v.properties.get('p'), `v${i}`);
    assert.strictEqual(v.topic, topic);
    assert.ok(v.receiptHandle && v.receiptHandle.length > 0, 'a receipt handle');
    assert.ok(v.bornTimestamp instanceof Date && v.bornTimestamp.getTime() > 0, 'born timestamp');
  }
  assert.strictEqual(new Set(got.map(v => v.messageId)).size, N, 'no duplicates');
  // Past the invisible time (3 s): nothing comes back.
  const again = await receiveUntil(consumer, () => false, 5000, 3000);
  assert.deepStrictEqual(again.map(v => v.body.toString()), [], 'acked messages are not delivered again');
});

test('SimpleConsumer: not acked -> back after its invisible time with deliveryAttempt 2', { timeout: 60000 }, async () => {
  const { topic, group, producer } = await fixture('Redeliver', 'NORMAL', 2);
  await sendN(producer, topic, 1, 'redeliver');
  const consumer = await newSimple(group, topic);
  const invisibleMs = 2000;
  const first = await receiveUntil(consumer, all => all.length >= 1, 20000, invisibleMs);
  assert.strictEqual(first.length, 1);
  const t0 = first[0].receivedAt;
  const second = await receiveUntil(consumer, all => all.length >= 1, 20000, invisibleMs);
  assert.strictEqual(second.length, 1, 'delivered again');
  const v = second[0];
  assert.strictEqual(v.messageId, first[0].messageId);
  assert.strictEqual(v.deliveryAttempt, 2);
  assert.notStrictEqual(v.receiptHandle, first[0].receiptHandle, 'a new receipt handle');
  const late = v.receivedAt - (t0 + invisibleMs);
  console.log(`# redelivered ${late} ms after the invisible time ended (received at +${v.receivedAt - t0} ms)`);
  assert.ok(v.receivedAt - t0 >= invisibleMs - 50, `not before the invisible time ended (${v.receivedAt - t0} ms)`);
  // The first handle is dead; the second acks.
  await assert.rejects(consumer.ack(first[0]), /receipt|handle|INVALID/i, 'the old handle is refused');
  await consumer.ack(v);
  const none = await receiveUntil(consumer, () => false, invisibleMs + 1500, invisibleMs);
  assert.strictEqual(none.length, 0, 'acked: not again');
});

test('SimpleConsumer: changeInvisibleDuration gives a new handle and a new visibility time', { timeout: 60000 }, async () => {
  const { topic, group, producer } = await fixture('Change', 'NORMAL', 2);
  await sendN(producer, topic, 1, 'change');
  const consumer = await newSimple(group, topic);
  const first = await receiveUntil(consumer, all => all.length >= 1, 20000, 30000);
  assert.strictEqual(first.length, 1);
  const v = first[0];
  const oldHandle = v.receiptHandle;
  const changedAt = Date.now();
  await consumer.changeInvisibleDuration(v, 1000);
  assert.ok(v.receiptHandle && v.receiptHandle !== oldHandle, 'the answer carries a new handle');
  const stale = Object.assign(Object.create(Object.getPrototypeOf(v)), v, { receiptHandle: oldHandle });
  await assert.rejects(consumer.ack(stale), /receipt|handle|INVALID/i, 'the old handle is dead');
  // Back after ~1 s (not the 30 s it was received with).
  const again = await receiveUntil(consumer, all => all.length >= 1, 15000, 30000);
  assert.strictEqual(again.length, 1);
  assert.strictEqual(again[0].messageId, v.messageId);
  assert.strictEqual(again[0].deliveryAttempt, 2);
  console.log(`# visible again ${again[0].receivedAt - changedAt} ms after a change to 1 s`);
  assert.ok(again[0].receivedAt - changedAt >= 950, 'not before the new invisible time');
  await consumer.ack(again[0]);
});

test('PushConsumer: every message consumed once', { timeout: 90000 }, async () => {
  const { topic, group, producer } = await fixture('Push', 'NORMAL', 4);
  const got = new Map();
  await newPush(group, topic, async v => {
    const body = v.body.toString();
    got.set(body, (got.get(body) || 0) + 1);
    return ConsumeResult.SUCCESS;
  });
  const N = 30;
  await sendN(producer, topic, N, 'push');
  await h.waitFor(() => got.size === N, 40000, `${N} pushed (have ${got.size})`);
  await h.sleep(1500);  // room for an (unexpected) duplicate to show up
  for (const [body, n] of got) assert.strictEqual(n, 1, `${body} consumed once`);
});

test('PushConsumer: failures are redelivered, then go to the DLQ after max attempts', { timeout: 90000 }, async () => {
  // retryMaxTimes 2: 3 delivery attempts.
  const { topic, group, producer } = await fixture('PushFail', 'NORMAL', 2, { retryMaxTimes: 2 });
  const attempts = new Map();  // body -> [deliveryAttempt...]
  await newPush(group, topic, async v => {
    const body = v.body.toString();
    if (!attempts.has(body)) attempts.set(body, []);
    attempts.get(body).push(v.deliveryAttempt);
    return body === 'ok' ? ConsumeResult.SUCCESS : ConsumeResult.FAILURE;
  });
  const sent = await producer.send({ topic, keys: ['dlq-key-' + group], body: Buffer.from('bad') });
  await producer.send({ topic, body: Buffer.from('ok') });
  await h.waitFor(() => (attempts.get('bad') || []).length >= 3, 40000,
    `3 attempts of the failing message (have ${attempts.get('bad')})`);
  await h.waitFor(() => {
    try {
      return x.admin('queryMsgByUniqueKey', '-t', `%DLQ%${group}`, '-i', sent.messageId).includes(sent.messageId);
    } catch (e) {
      return false;
    }
  }, 20000, 'the failing message in the DLQ');
  await h.sleep(1500);
  assert.deepStrictEqual(attempts.get('bad'), [1, 2, 3], 'delivered 3 times (retryMaxTimes 2 + 1), then no more');
  assert.deepStrictEqual(attempts.get('ok'), [1]);
});

test('FIFO group: each message group in order, a failure in the middle retried in place', { timeout: 90000 }, async () => {
  const { topic, group, producer } = await fixture('FifoC', 'FIFO', 4, { orderly: true, retryMaxTimes: 5 });
  const groups = ['g-a', 'g-b', 'g-c'];
  const PER = 10;
  for (let i = 0; i < PER; i++) {
    for (const g of groups) await producer.send({ topic, messageGroup: g, body: Buffer.from(`${g}#${i}`) });
  }
  const seen = new Map(groups.map(g => [g, []]));  // group -> bodies in consumption order (successes)
  let failed = false;
  await newPush(group, topic, async v => {
    const body = v.body.toString();
    if (body === 'g-b#4' && !failed) {
      failed = true;
      return ConsumeResult.FAILURE;  // the client retries it in place; the ones after wait
    }
    seen.get(v.messageGroup).push(body);
    return ConsumeResult.SUCCESS;
  });
  await h.waitFor(() => groups.every(g => seen.get(g).length >= PER), 60000,
    `all FIFO messages (${groups.map(g => seen.get(g).length)})`);
  assert.ok(failed, 'the failure happened');
  for (const g of groups) {
    assert.deepStrictEqual(seen.get(g), Array.from({ length: PER }, (_, i) => `${g}#${i}`), `${g} in send order`);
  }
});

test('TAG filter: only the subscribed tags are received', { timeout: 60000 }, async () => {
  const { topic, group, producer } = await fixture('Tag', 'NORMAL', 2);
  for (let i = 0; i < 12; i++) {
    const tag = ['TagA', 'TagB', 'TagC'][i % 3];
    await producer.send({ topic, tag, body: Buffer.from(`${tag}-${i}`) });
  }
  const consumer = await newSimple(group, topic, 'TagA || TagC');
  const got = await receiveUntil(consumer, all => all.length >= 8, 30000, 10000, true);
  const extra = await receiveUntil(consumer, () => false, 2500, 10000, true);
  const tags = [...got, ...extra].map(v => v.tag);
  assert.strictEqual(tags.length, 8, `8 of 12 (${tags})`);
  assert.ok(tags.every(t => t === 'TagA' || t === 'TagC'), `no TagB (${tags})`);
});

test('SQL92 filter: only messages whose properties and tag match are received', { timeout: 60000 }, async () => {
  const { topic, group, producer } = await fixture('Sql', 'NORMAL', 2);
  for (let i = 0; i < 12; i++) {
    await producer.send({
      topic, tag: i % 2 ? 'TagOdd' : 'TagEven', body: Buffer.from(`sql-${i}`),
      properties: new Map([['n', String(i)], ['color', i % 3 === 0 ? 'red' : 'blue']]),
    });
  }
  // red: 0 3 6 9; n > 2: 3 6 9; or TAGS = 'TagOdd' and n < 2: 1.
  const sql = "(color = 'red' AND n > 2) OR (TAGS = 'TagOdd' AND n < 2)";
  const consumer = await newSimple(group, topic, new FilterExpression(sql, FilterType.SQL));
  const got = await receiveUntil(consumer, all => all.length >= 4, 30000, 10000, true);
  const extra = await receiveUntil(consumer, () => false, 2500, 10000, true);
  const bodies = [...got, ...extra].map(v => v.body.toString()).sort();
  assert.deepStrictEqual(bodies, ['sql-1', 'sql-3', 'sql-6', 'sql-9'], `the matching four (${bodies})`);
  for (const v of got) assert.strictEqual(v.properties.get('n'), v.body.toString().split('-')[1]);
});

test('a 4.x producer (ali-ons, a compressed body) to a 5.x consumer', { timeout: 60000 }, async () => {
  const topic = h.uniqueName('V5From4');
  const group = h.uniqueName('CG5From4');
  await h.createTopic(topic, 2);
  createGroup(group);
  const producer4 = await h.newProducer(h.uniqueName('PG4'));
  const big = 'x'.repeat(8192) + '-end';  // over ali-ons' 4 KiB compression threshold: zlib body
  await producer4.send(h.message(topic, 'T4', Buffer.from(big), ['k4']));
  await producer4.send(h.message(topic, 'T4', Buffer.from('small'), ['k4b']));
  const consumer = await newSimple(group, topic);
  const got = await receiveUntil(consumer, all => all.length >= 2, 30000, 10000, true);
  const bodies = got.map(v => v.body.toString()).sort();
  assert.deepStrictEqual(bodies, [big, 'small'].sort(), 'bodies as sent (the compressed one inflated)');
  for (const v of got) {
    assert.ok(!v.corrupted, 'digest of the inflated body');
    assert.strictEqual(v.tag, 'T4');
    assert.match(v.messageId, /^[0-9A-F]{32}$/, 'the 4.x UNIQ_KEY as message id');
  }
});

test('two 5.x consumers in one group share the messages without duplicates', { timeout: 90000 }, async () => {
  const { topic, group, producer } = await fixture('Share', 'NORMAL', 4);
  const N = 60;
  const a = await newSimple(group, topic);
  const b = await newSimple(group, topic);
  await sendN(producer, topic, N, 'share');
  const byBody = new Map();
  const take = async (c, name) => {
    let n = 0;
    const deadline = Date.now() + 40000;
    while (byBody.size < N && Date.now() < deadline) {
      for (const v of await c.receive(16, 15000)) {
        const body = v.body.toString();
        if (!byBody.has(body)) byBody.set(body, []);
        byBody.get(body).push(name);
        n++;
        await c.ack(v);
      }
    }
    return n;
  };
  // Both poll concurrently; each stops once the union holds all N.
  const counts = await Promise.all([take(a, 'a'), take(b, 'b')]);
  await h.waitFor(() => byBody.size >= N, 5000, `${N} shared (have ${byBody.size})`);
  console.log(`# consumer a took ${counts[0]}, b took ${counts[1]}`);
  for (const [body, who] of byBody) assert.strictEqual(who.length, 1, `${body} once (${who})`);
  assert.strictEqual(counts[0] + counts[1], N);
  assert.ok(counts[0] > 0 && counts[1] > 0, 'both consumers got messages');
  await stop(a);
  await stop(b);
});

test('admin views and commands reach a PushConsumer over its Telemetry: consumerConnection, consumerStatus -s, pushMsg', { timeout: 60000 }, async () => {
  const { topic, group, producer } = await fixture('Admin', 'NORMAL', 4);
  const c = await newPush(group, topic, async () => ConsumeResult.SUCCESS);
  const conn = x.admin('consumerConnection', '-g', group);
  assert.ok(conn.includes(c.clientId), `consumerConnection lists ${c.clientId}:\n${conn}`);
  assert.match(conn, /NODE_JS/);
  // -s: a PrintThreadStackTraceCommand on the client's Telemetry; the Node client answers 'mock stack'.
  const status = await x.adminAsync('consumerStatus', '-g', group, '-i', c.clientId, '-s');
  assert.match(status, /CONSUME_PASSIVELY/);
  assert.match(status, /#Consumer jstack#\s+mock stack/);
  // pushMsg (CONSUME_MESSAGE_DIRECTLY): a VerifyMessageCommand; the Node client answers NOT_IMPLEMENTED.
  const r = await producer.send({ topic, body: Buffer.from('verify-me') });
  const pushed = await x.adminAsync('queryMsgByUniqueKey', '-t', topic, '-i', r.messageId, '-g', group, '-d', c.clientId);
  assert.match(pushed, /consumeResult=CR_THROW_EXCEPTION, remark=from gRPC client/);
});
