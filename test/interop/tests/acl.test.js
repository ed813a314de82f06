'use strict';
// ACL 1.0: ali-ons signs its requests the RocketMQ way when given accessKey/secretKey (sorted
// ext-field values + body, HMAC-SHA1, Base64 — lib/channel.js beforeRequest; it adds an
// OnsChannel field, which is signed like any other). This file starts its own rmqnode with
// aclEnable = true (the shared node of the other tests has no ACL) and checks that a signed
// producer and consumer work, and that an unsigned producer and a SUB-only account's producer
// are refused with RocketMQ's AclException texts.
const { test, after } = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const net = require('node:net');
const { spawn, execFileSync } = require('node:child_process');
const { Producer, Consumer, Message } = require('ali-ons');
const MQClientAPI = require('ali-ons/lib/mq_client_api');
const h = require('../lib/harness');

const RMQNODE = process.env.RMQNODE || '';
const RMQADMIN = process.env.RMQADMIN || '';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-interop-acl.'));
let node = null;
const clients = [];
const logger = { info() {}, debug() {}, warn() {}, error() {} };

after(async () => {
  for (const c of clients.reverse()) { try { await c.close(); } catch (e) { /* closing */ } }
  await h.closeAll();
  if (node && node.exitCode === null) {
    node.kill('SIGTERM');
    await h.waitFor(() => node.exitCode !== null, 10000, 'rmqnode acl node to stop').catch(() => node.kill('SIGKILL'));
  }
  fs.rmSync(work, { recursive: true, force: true });
});

// Shared with the Java drill (test/reference/acl/acl_java_drill.sh).
const ACL_FILE = path.join(__dirname, '../fixtures/plain_acl.yml');

function portAccepts(port) {
  return new Promise(resolve => {
    const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
}

async function startAclNode() {
  const [ns, broker] = execFileSync(process.execPath, [path.join(__dirname, '../lib/free_ports.js')])
    .toString().trim().split(' ').map(Number);
  fs.mkdirSync(path.join(work, 'conf'), { recursive: true });
  fs.copyFileSync(ACL_FILE, path.join(work, 'conf/plain_acl.yml'));
  fs.writeFileSync(path.join(work, 'node.toml'), `logDir = "${work}/logs"
[namesrv]
listenPort = ${ns}
kvConfigPath = "${work}/namesrv/kvConfig.json"
configStorePath = "${work}/namesrv/namesrv.properties"
[broker]
brokerClusterName = "AclCluster"
brokerName = "acl-broker"
brokerIP1 = "127.0.0.1"
listenPort = ${broker}
namesrvAddr = "127.0.0.1:${ns}"
autoCreateTopicEnable = false
aclEnable = true
[store]
storePathRootDir = "${work}/store"
`);
  const out = fs.openSync(path.join(work, 'rmqnode.out'), 'w');
  node = spawn(RMQNODE, ['--role=namesrv,master', '-c', path.join(work, 'node.toml')],
    { env: Object.assign({}, process.env, { HOME: work, ROCKETMQ_HOME: work }), stdio: ['ignore', out, out] });
  await h.waitFor(async () => (await portAccepts(ns)) && (await portAccepts(broker)), 20000, 'acl node ports');
  return { nsAddr: `127.0.0.1:${ns}`, brokerAddr: `127.0.0.1:${broker}` };
}

function options(addr, extra) {
  return Object.assign({
    httpclient: {}, nameSrv: addr.nsAddr, clientIP: '127.0.0.1', logger,
    pollNameServerInteval: 2000, heartbeatBrokerInterval: 5000, rebalanceInterval: 2000,
    persistConsumerOffsetInterval: 1000,
  }, extra);
}

async function producer(addr, group, keys) {
  // Own instanceName: ali-ons shares one client (and its credentials) per clientId.
  const p = new Producer(options(addr, Object.assign({ producerGroup: group, instanceName: group }, keys)));
  p.on('error', () => {});
  clients.push(p);
  await p.ready();
  return p;
}

test('ali-ons with accessKey/secretKey passes rmqnode ACL; unsigned and SUB-only producers are refused',
  { timeout: 120000, skip: !RMQNODE || !RMQADMIN ? 'needs RMQNODE and RMQADMIN (run.sh sets them)' : false }, async () => {
    const addr = await startAclNode();
    const topic = h.uniqueName('InteropAcl');
    execFileSync(RMQADMIN, ['updateTopic', '-n', addr.nsAddr, '-b', addr.brokerAddr, '-t', topic, '-r', '4', '-w', '4',
      '--access-key', 'RocketMQAdmin', '--secret-key', '12345678'], { stdio: 'pipe', timeout: 15000 });
    const api = new MQClientAPI({ nameSrv: addr.nsAddr, httpclient: {}, logger, responseTimeout: 5000 });
    clients.push(api);
    await api.ready();
    await h.waitFor(async () => {
      try { return (await api.getTopicRouteInfoFromNameServer(topic, 3000)).queueDatas.length > 0; } catch (e) { return false; }
    }, 40000, `route for ${topic}`);

    const signed = await producer(addr, h.uniqueName('PGAcl'), { accessKey: 'RocketMQAdmin', secretKey: '12345678' });
    const bodies = [];
    for (let i = 0; i < 5; i++) {
      const r = await signed.send(new Message(topic, 'TagA', `acl-${i}`));
      assert.strictEqual(r.sendStatus, 'SEND_OK');
      bodies.push(`acl-${i}`);
    }

    // Refused: send() retries and hides the answer, so the text is read from one send attempt
    // (sendKernelImpl rejects with the broker's remark); send() itself fails too.
    const refusal = async (p, body) => {
      await assert.rejects(p.send(new Message(topic, 'TagA', body)), /still failed/);
      const info = await p.tryToFindTopicPublishInfo(topic);
      try {
        await p.sendKernelImpl(new Message(topic, 'TagA', body), info.messageQueueList[0]);
      } catch (err) {
        return err;
      }
      assert.fail('the send was not refused');
    };
    const anonymous = await producer(addr, h.uniqueName('PGAnon'), {});
    const noKey = await refusal(anonymous, 'unsigned');
    assert.strictEqual(noKey.message, 'org.apache.rocketmq.acl.common.AclException: No accessKey is configured, ' +
      'org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:664)');
    const subOnly = await producer(addr, h.uniqueName('PGSub'), { accessKey: 'subOnlyUser', secretKey: '87654321' });
    const noPub = await refusal(subOnly, 'no PUB');
    assert.strictEqual(noPub.message, `org.apache.rocketmq.acl.common.AclException: No default permission for topic:${topic}, ` +
      'org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:606)');

    // The SUB-only account consumes what the admin account produced (heartbeat, pull, offsets signed).
    const consumer = new Consumer(options(addr, {
      consumerGroup: h.uniqueName('CGAcl'), instanceName: 'acl-consumer', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      accessKey: 'subOnlyUser', secretKey: '87654321',
    }));
    consumer.on('error', () => {});
    clients.push(consumer);
    const got = new Set();
    consumer.subscribe(topic, '*', async msg => { got.add(msg.body.toString()); });
    await h.waitFor(() => got.size >= bodies.length, 60000, `${bodies.length} messages (have ${got.size})`);
    assert.deepStrictEqual([...got].sort(), bodies);
  });
