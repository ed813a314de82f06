'use strict';
// ACL for 5.x clients: the gRPC `authorization` header (MQv2-HMAC-SHA1 over x-mq-date-time) is
// checked against the same plain_acl.yml accounts as remoting requests (the 4.x suite's fixture).
// A node of its own with aclEnable = true: the admin account sends; a wrong secret, no
// credentials and a SUB-only account are refused.
const { test, after } = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { Producer } = require('rocketmq-client-nodejs');
const x = require('../lib/harness5');
const { h } = x;

let node = null;
const producers = [];
after(async () => {
  for (const p of producers) { try { await p.shutdown(); } catch (e) { /* closing */ } }
  await x.closeAll();
  if (node) await node.stop();
});

const ACL_FILE = path.join(__dirname, '../../interop/fixtures/plain_acl.yml');

async function producer(topic, sessionCredentials) {
  const p = new Producer({ endpoints: node.endpoint, logger: x.logger, requestTimeout: 5000, sessionCredentials, maxAttempts: 1 });
  producers.push(p);
  await p.startup();
  return p;
}

test('5.x producers pass or fail the broker ACL like remoting clients', { timeout: 90000 }, async () => {
  node = await x.startOwnNode('acl5', 'aclEnable = true', work => {
    fs.mkdirSync(path.join(work, 'conf'), { recursive: true });
    fs.copyFileSync(ACL_FILE, path.join(work, 'conf/plain_acl.yml'));
  });
  const topic = h.uniqueName('V5Acl');
  execFileSync(process.env.RMQADMIN, ['updateTopic', '-n', node.nsAddr, '-b', node.brokerAddr, '-t', topic, '-r', '2', '-w', '2',
    '--access-key', 'RocketMQAdmin', '--secret-key', '12345678'], { stdio: 'pipe', timeout: 15000 });

  const admin = await producer(topic, { accessKey: 'RocketMQAdmin', accessSecret: '12345678' });
  const ok = await h.waitFor(async () => {
    try { return await admin.send({ topic, body: Buffer.from('signed') }); } catch (e) { return false; }
  }, 30000, 'a signed send once the topic is routed');
  assert.match(ok.messageId, /^[0-9A-F]{34}$/);

  const refused = async (credentials, what) => {
    const p = await producer(topic, credentials);
    const err = await p.send({ topic, body: Buffer.from(what) }).then(() => null, e => e);
    assert.ok(err, `${what}: the send was refused`);
    assert.ok([40100, 40300].includes(err.code), `${what}: UNAUTHORIZED or FORBIDDEN (${err.code}: ${err.message})`);
    return err;
  };
  const wrong = await refused({ accessKey: 'RocketMQAdmin', accessSecret: 'not-the-secret' }, 'wrong secret');
  assert.match(wrong.message, /signature|Signature/);
  await refused(undefined, 'no credentials');
  const sub = await refused({ accessKey: 'subOnlyUser', accessSecret: '87654321' }, 'SUB-only account');
  assert.match(sub.message, new RegExp(`permission for topic:${topic}`));
});
