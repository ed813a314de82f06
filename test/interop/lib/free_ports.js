'use strict';
// Prints three free loopback ports: name server, broker (whose neighbours port - 2, the VIP
// channel, and port + 1, the default HA port, are free too) and a spare one. Ports come from the
// kernel (bind port 0), so concurrent runs do not collide.
const net = require('node:net');

function listen(port) {
  return new Promise(resolve => {
    const s = net.createServer();
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}

(async () => {
  const held = [];
  const take = async () => { const s = await listen(0); held.push(s); return s.address().port; };
  const ns = await take();
  let broker = 0;
  for (let i = 0; i < 50 && !broker; i++) {
    const p = await take();
    const vip = p > 1026 && p < 65534 ? await listen(p - 2) : null;
    const ha = vip ? await listen(p + 1) : null;
    if (vip) held.push(vip);
    if (ha) { held.push(ha); broker = p; }
  }
  const ha = await take();
  held.forEach(s => s.close());
  if (!broker) process.exit(1);
  console.log(`${ns} ${broker} ${ha}`);
})();
