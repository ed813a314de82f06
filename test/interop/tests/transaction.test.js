'use strict';
// Committed transactional messages look like plain ones to a client without transactions (ali-ons):
// `rmqbench transaction` (our TransactionProducer: half message, local transaction, END_TRANSACTION,
// check-back answers) commits, rolls back and leaves some UNKNOW for the broker's checks; an
// ali-ons consumer then receives exactly the committed ones, each once, under the real topic with
// keys, tags and user properties intact, and the transaction bits and properties as RocketMQ 4.9
// stores a commit (sysFlag COMMIT_TYPE, TRAN_MSG/PGROUP/REAL_TOPIC/REAL_QID kept from the half
// message, TRANSACTION_CHECK_TIMES on the ones a check decided, preparedTransactionOffset set).
const { test, after } = require('node:test');
const assert = require('node:assert');
const { execFile } = require('node:child_process');
const h = require('../lib/harness');

const RMQBENCH = process.env.RMQBENCH || '';
const COUNT = 40;
const TRANSACTION_COMMIT_TYPE = 0x8;
const TRANSACTION_MASK = 0xC;
after(async () => { await h.closeAll(); await h.closeAdmin(); });

// Runs rmqbench asynchronously (the consumer keeps pulling meanwhile) and returns its JSON lines.
function runBench(args) {
  return new Promise((resolve, reject) => {
    execFile(RMQBENCH, args, { timeout: 150000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const lines = stdout.split('\n').filter(l => l.startsWith('{')).map(l => JSON.parse(l));
      if (err) return reject(new Error(`rmqbench failed: ${err.message}\n${stdout}\n${stderr}`));
      resolve(lines);
    });
  });
}

// "TXB <batch> <index> <plan>": the plan's first letter answers the local transaction, the next
// ones the broker's checks; the first C or R decides.
function outcomeOf(body) {
  const [magic, batch, index, plan] = body.replace(/\.+$/, '').split(' ');
  assert.strictEqual(magic, 'TXB', `a bench body: ${body}`);
  const decided = [...plan].find(c => c !== 'U');
  return { batch, index: Number(index), plan, decided, byCheck: plan[0] === 'U' };
}

test('an ali-ons consumer receives exactly the committed transactional messages', { skip: !RMQBENCH && 'rmqbench not beside rmqnode', timeout: 180000 }, async t => {
  const topic = h.uniqueName('InteropTx');
  const pgroup = h.uniqueName('PGTx');
  const batch = String(Date.now());
  await h.createTopic(topic, 4);
  const consumer = h.newConsumer({ group: h.uniqueName('CGTx') });
  const got = h.collect(consumer, topic);
  await consumer.ready();

  const lines = await runBench(['transaction', '-n', h.NAMESRV, '--topic', topic, '--tag', 'TagTx',
    '--group', pgroup, '-c', String(COUNT), '-t', '2', '--batch-id', batch, '--seed', '7',
    '--send-rollback-rate', '0.25', '--send-unknown-rate', '0.4',
    '--check-rollback-rate', '0.3', '--check-unknown-rate', '0.3', '--check-wait', '90', '--json']);
  const summary = lines.find(l => l.type === 'summary');
  const tx = lines.find(l => l.type === 'transactions');
  assert.ok(summary && tx, 'rmqbench printed its summary and transaction lines');
  assert.strictEqual(summary.ok, COUNT, 'every half message stored');
  assert.strictEqual(tx.unresolved, 0, 'every UNKNOW decided by a check');
  assert.strictEqual(tx.committed + tx.rolled_back, COUNT);
  assert.ok(tx.committed > 0 && tx.rolled_back > 0 && tx.checks > 0, `a mix of outcomes: ${JSON.stringify(tx)}`);

  await h.waitFor(() => got.size >= tx.committed, 60000, `${tx.committed} committed messages (have ${got.size})`);
  await h.sleep(3000);  // nothing rolled back (or decided twice) may follow
  assert.strictEqual(got.size, tx.committed, 'exactly the committed messages');
  let byCheck = 0;
  const prepared = new Set();
  for (const [body, msgs] of got) {
    const o = outcomeOf(body);
    assert.strictEqual(o.batch, batch);
    assert.strictEqual(o.decided, 'C', `${body} was planned to be committed`);
    assert.strictEqual(msgs.length, 1, `${body} delivered once`);
    const m = msgs[0];
    assert.strictEqual(m.topic, topic, 'under its real topic');
    assert.strictEqual(m.tags, 'TagTx');
    assert.strictEqual(m.keys, `tx-${batch}-${o.index}`);
    assert.strictEqual(m.properties.benchBatch, batch, 'user property intact');
    assert.strictEqual(m.sysFlag & TRANSACTION_MASK, TRANSACTION_COMMIT_TYPE, 'sysFlag: TRANSACTION_COMMIT_TYPE');
    // RocketMQ 4.9 copies the half message's properties string into the commit unchanged.
    assert.strictEqual(m.properties.TRAN_MSG, 'true');
    assert.strictEqual(m.properties.PGROUP, pgroup);
    assert.strictEqual(m.properties.REAL_TOPIC, topic);
    assert.strictEqual(m.properties.REAL_QID, String(m.queueId));
    assert.ok(m.properties.UNIQ_KEY, 'UNIQ_KEY (the transaction id) kept');
    // (the first half message of a fresh store sits at commit log offset 0)
    assert.ok(m.preparedTransactionOffset >= 0 && m.preparedTransactionOffset < m.commitLogOffset,
      `preparedTransactionOffset ${m.preparedTransactionOffset} = the half message's commit log offset`);
    prepared.add(m.preparedTransactionOffset);
    if (o.byCheck) {
      byCheck++;
      // The decided copy is the one renewed for the check that got the answer.
      const checks = Number(m.properties.TRANSACTION_CHECK_TIMES);
      assert.strictEqual(checks, o.plan.indexOf('C'), `${body}: TRANSACTION_CHECK_TIMES of the deciding check`);
    } else {
      assert.strictEqual(m.properties.TRANSACTION_CHECK_TIMES, undefined, `${body}: never checked`);
    }
  }
  assert.ok(byCheck > 0, 'some commits came from check answers');
  assert.strictEqual(prepared.size, got.size, 'each commit points at its own half message');
  t.diagnostic(`rmqbench: ${JSON.stringify(tx)}; ${byCheck} of ${got.size} commits decided by a check`);
});
