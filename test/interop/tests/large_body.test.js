'use strict';
// Bodies over 4 KiB: ali-ons deflates them (sysFlag COMPRESSED); the broker stores and serves
// the flag and the compressed bytes unchanged, and the consumer gets the original body back.
const { test, after } = require('node:test');
const assert = require('node:assert');
const crypto = require('node:crypto');
const h = require('../lib/harness');

after(async () => { await h.closeAll(); await h.closeAdmin(); });

test('bodies over 4 KiB (compressed by the client) come back byte-identical', { timeout: 90000 }, async () => {
  const topic = h.uniqueName('InteropLarge');
  await h.createTopic(topic, 2);
  const producer = await h.newProducer(h.uniqueName('PG'));
  const bodies = new Map();  // id -> Buffer
  const sizes = [4095, 4096, 5000, 16 * 1024, 64 * 1024, 100 * 1024];
  let id = 0;
  for (const size of sizes) {
    for (const kind of ['text', 'random']) {
      const tag = `${kind}-${size}-${id++}`;
      const buf = kind === 'text'
        ? Buffer.from(`${tag} `.repeat(Math.ceil(size / (tag.length + 1)))).subarray(0, size)
        : Buffer.concat([Buffer.from(tag + ' '), crypto.randomBytes(size - tag.length - 1)]);
      const r = await producer.send(h.message(topic, 'Large', buf, [tag]));
      assert.strictEqual(r.sendStatus, 'SEND_OK', tag);
      bodies.set(tag, buf);
    }
  }
  const consumer = h.newConsumer({ group: h.uniqueName('CGLarge') });
  const got = new Map();
  consumer.subscribe(topic, '*', async msg => { got.set(msg.keys, msg); });
  await h.waitFor(() => got.size === bodies.size, 60000, `${bodies.size} messages (have ${got.size})`);
  for (const [tag, buf] of bodies) {
    const msg = got.get(tag);
    assert.ok(Buffer.isBuffer(msg.body) && msg.body.equals(buf), `${tag}: body intact (${msg.body.length} bytes)`);
    const compressed = (msg.sysFlag & 0x1) === 0x1;
    assert.strictEqual(compressed, buf.length >= 4096, `${tag}: COMPRESSED flag as the client set it`);
  }
});
