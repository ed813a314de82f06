'use strict';
// The gRPC endpoint at the protocol level, with Node's own HTTP/2 client (no RocketMQ client in
// the way): messages encoded with the 5.x client's generated protobuf classes. Missing client id,
// unknown method, a body over the server's limit from a client that does not check it, a message
// type the topic refuses, a cancelled stream, a half-closed Telemetry stream, garbage after the
// HTTP/2 preface, and TLS (ALPN h2) and plaintext on the same port.
const { test, after } = require('node:test');
const assert = require('node:assert');
const http2 = require('node:http2');
const net = require('node:net');
const pb = require('rocketmq-client-nodejs/proto/apache/rocketmq/v2/service_pb');
const def = require('rocketmq-client-nodejs/proto/apache/rocketmq/v2/definition_pb');
const x = require('../lib/harness5');
const { h } = x;

after(x.closeAll);

const SERVICE = '/apache.rocketmq.v2.MessagingService/';
const [HOST, PORT] = x.ENDPOINT.split(':');
const sessions = [];
after(() => sessions.forEach(s => s.destroy()));

function connect(tls = false) {
  const s = tls
    ? http2.connect(`https://${HOST}:${PORT}`, { rejectUnauthorized: false })
    : http2.connect(`http://${HOST}:${PORT}`);
  s.on('error', () => {});
  sessions.push(s);
  return s;
}

function frame(bytes) {
  const out = Buffer.alloc(5 + bytes.length);
  out.writeUInt32BE(bytes.length, 1);
  Buffer.from(bytes).copy(out, 5);
  return out;
}

function unframe(buf) {
  const msgs = [];
  for (let at = 0; at + 5 <= buf.length;) {
    const n = buf.readUInt32BE(at + 1);
    msgs.push(buf.subarray(at + 5, at + 5 + n));
    at += 5 + n;
  }
  return msgs;
}

function metadata(clientId = 'interop5-raw@1@0@test') {
  const m = { 'x-mq-protocol': 'v2', 'x-mq-language': 'HTTP', 'x-mq-client-version': '5.0.0',
    'x-mq-date-time': new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '') };
  if (clientId) m['x-mq-client-id'] = clientId;
  return m;
}

// One call: request messages in, { headers, trailers, messages, grpcStatus } out.
function call(session, method, requestMessages, md = metadata(), { end = true } = {}) {
  return new Promise((resolve, reject) => {
    const req = session.request(Object.assign({ ':method': 'POST', ':path': SERVICE + method,
      'content-type': 'application/grpc', te: 'trailers' }, md));
    const chunks = [];
    let headers = {};
    let trailers = {};
    req.on('response', hd => { headers = hd; });
    req.on('trailers', tr => { trailers = tr; });
    req.on('data', c => chunks.push(c));
    req.on('end', () => {
      const all = Object.assign({}, headers, trailers);
      resolve({ headers, trailers, messages: unframe(Buffer.concat(chunks)), grpcStatus: Number(all['grpc-status']),
        grpcMessage: decodeURIComponent(all['grpc-message'] || '') });
    });
    req.on('error', reject);
    for (const m of requestMessages) req.write(frame(m.serializeBinary()));
    if (end) req.end();
  });
}

function queryRoute(topic) {
  const r = new pb.QueryRouteRequest();
  r.setTopic(new def.Resource().setName(topic));
  r.setEndpoints(new def.Endpoints().setScheme(def.AddressScheme.IPV4)
    .setAddressesList([new def.Address().setHost(HOST).setPort(Number(PORT))]));
  return r;
}

test('a request without x-mq-client-id is answered CLIENT_ID_REQUIRED inside an OK call', { timeout: 20000 }, async () => {
  const res = await call(connect(), 'QueryRoute', [queryRoute('TBW102')], metadata(null));
  assert.strictEqual(res.grpcStatus, 0);
  const body = pb.QueryRouteResponse.deserializeBinary(res.messages[0]);
  assert.strictEqual(body.getStatus().getCode(), def.Code.CLIENT_ID_REQUIRED);
});

test('an unknown method is UNIMPLEMENTED; the connection keeps serving', { timeout: 20000 }, async () => {
  const s = connect();
  const res = await call(s, 'NoSuchMethod', [queryRoute('x')]);
  assert.strictEqual(res.grpcStatus, 12, `grpc-status ${res.grpcStatus} ${res.grpcMessage}`);
  const topic = h.uniqueName('V5Raw');
  await x.createTopic(topic, 'FIFO', 2);
  const route = await call(s, 'QueryRoute', [queryRoute(topic)]);
  const body = pb.QueryRouteResponse.deserializeBinary(route.messages[0]);
  assert.strictEqual(body.getStatus().getCode(), def.Code.OK);
  const queues = body.getMessageQueuesList();
  assert.ok(queues.length >= 2, 'one message queue per queue id');
  for (const q of queues) {
    assert.deepStrictEqual(q.getAcceptMessageTypesList(), [def.MessageType.FIFO], 'accept types from message.type');
    const ep = q.getBroker().getEndpoints().getAddressesList()[0];
    assert.strictEqual(`${ep.getHost()}:${ep.getPort()}`, x.ENDPOINT, 'the broker\'s gRPC endpoint');
  }
});

function sendRequest(topic, body, type, group) {
  const sp = new def.SystemProperties().setMessageId('01ABCDEF0123456789ABCDEF0123456789'.slice(0, 34))
    .setBodyEncoding(def.Encoding.IDENTITY).setMessageType(type).setBornHost('raw-test');
  if (group) sp.setMessageGroup(group);
  const m = new def.Message().setTopic(new def.Resource().setName(topic)).setBody(body).setSystemProperties(sp);
  return new pb.SendMessageRequest().setMessagesList([m]);
}

test('the server itself refuses a body over its limit and a type the topic does not accept', { timeout: 30000 }, async () => {
  const s = connect();
  const topic = h.uniqueName('V5RawSend');
  await x.createTopic(topic, 'NORMAL', 2);
  const big = await call(s, 'SendMessage', [sendRequest(topic, Buffer.alloc(4 * 1024 * 1024 + 1), def.MessageType.NORMAL)]);
  assert.strictEqual(big.grpcStatus, 0);
  const bigStatus = pb.SendMessageResponse.deserializeBinary(big.messages[0]).getStatus();
  assert.strictEqual(bigStatus.getCode(), def.Code.MESSAGE_BODY_TOO_LARGE, bigStatus.getMessage());
  const fifo = await call(s, 'SendMessage', [sendRequest(topic, Buffer.from('f'), def.MessageType.FIFO, 'g')]);
  const fifoStatus = pb.SendMessageResponse.deserializeBinary(fifo.messages[0]).getStatus();
  assert.strictEqual(fifoStatus.getCode(), def.Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, fifoStatus.getMessage());
});

function producerSettings() {
  const settings = new def.Settings().setClientType(def.ClientType.PRODUCER)
    .setPublishing(new def.Publishing().setTopicsList([new def.Resource().setName('TBW102')]));
  return new pb.TelemetryCommand().setSettings(settings);
}

test('Telemetry: settings answered; a half-closed stream ends; a cancelled one leaves the rest alone', { timeout: 20000 }, async () => {
  const s = connect();
  // Half-closed right after the settings: the answer comes, then the server ends the call.
  const res = await call(s, 'Telemetry', [producerSettings()]);
  assert.strictEqual(res.grpcStatus, 0, res.grpcMessage);
  const answer = pb.TelemetryCommand.deserializeBinary(res.messages[0]);
  assert.ok(answer.hasSettings(), 'the server answers with settings');
  const pub = answer.getSettings().getPublishing();
  assert.strictEqual(pub.getMaxBodySize(), 4 * 1024 * 1024);
  assert.ok(answer.getSettings().getBackoffPolicy().hasExponentialBackoff(), 'exponential back-off (the Node client asserts it)');

  // Cancelled mid-stream (RST_STREAM CANCEL) while the session stays open for other calls.
  const req = s.request({ ':method': 'POST', ':path': SERVICE + 'Telemetry', 'content-type': 'application/grpc',
    te: 'trailers', ...metadata() });
  req.on('error', () => {});
  req.write(frame(producerSettings().serializeBinary()));
  await new Promise(resolve => req.once('data', resolve));
  req.close(http2.constants.NGHTTP2_CANCEL);
  const after = await call(s, 'Heartbeat', [new pb.HeartbeatRequest().setClientType(def.ClientType.PRODUCER)]);
  assert.strictEqual(pb.HeartbeatResponse.deserializeBinary(after.messages[0]).getStatus().getCode(), def.Code.OK);
});

test('garbage after the preface closes that connection only', { timeout: 20000 }, async () => {
  const healthy = connect();
  const raw = net.connect(Number(PORT), HOST);
  raw.on('error', () => {});
  raw.resume();  // read (and drop) the server's SETTINGS and GOAWAY, so its close is seen
  const closed = new Promise(resolve => raw.on('close', resolve));
  raw.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
  raw.write(Buffer.from('this is not an HTTP/2 frame at all, just bytes'));
  await closed;
  const res = await call(healthy, 'Heartbeat', [new pb.HeartbeatRequest().setClientType(def.ClientType.PRODUCER)]);
  assert.strictEqual(res.grpcStatus, 0);
});

test('TLS with ALPN h2 and plaintext share the port', { timeout: 20000 }, async () => {
  const tls = connect(true);
  await new Promise((resolve, reject) => { tls.once('connect', resolve); tls.once('error', reject); });
  assert.strictEqual(tls.alpnProtocol, 'h2');
  assert.ok(tls.encrypted, 'a TLS session');
  const overTls = await call(tls, 'Heartbeat', [new pb.HeartbeatRequest().setClientType(def.ClientType.PRODUCER)]);
  assert.strictEqual(pb.HeartbeatResponse.deserializeBinary(overTls.messages[0]).getStatus().getCode(), def.Code.OK);
  const plain = await call(connect(), 'Heartbeat', [new pb.HeartbeatRequest().setClientType(def.ClientType.PRODUCER)]);
  assert.strictEqual(pb.HeartbeatResponse.deserializeBinary(plain.messages[0]).getStatus().getCode(), def.Code.OK);
});
