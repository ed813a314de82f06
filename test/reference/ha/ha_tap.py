#!/usr/bin/env python3
"""ha_tap.py LISTEN_PORT TARGET_HOST:PORT OUT_PREFIX

A recording TCP relay for RocketMQ's HA stream (PROTOCOL.md §9): a slave whose haMasterAddress is
127.0.0.1:LISTEN_PORT reaches the master's HA port through it. Every chunk is forwarded unchanged
and logged; on exit (SIGTERM/SIGINT) OUT_PREFIX.s2m.bin / OUT_PREFIX.m2s.bin hold the raw bytes of
the first connection of each direction and OUT_PREFIX.txt a decoded trace:
  s2m: 8-byte big-endian max-offset reports of the slave
  m2s: frames of 8-byte physical offset + 4-byte body size + body (size 0 = heartbeat)
Used to record what Apache RocketMQ 4.9.8 sends (test/reference/README.md); local only, no Java in CI.
"""
import signal
import socket
import struct
import sys
import threading
import time

listen_port = int(sys.argv[1])
target_host, target_port = sys.argv[2].rsplit(":", 1)
prefix = sys.argv[3]
lock = threading.Lock()
trace = []          # (t, conn, direction, text)
raw = {"s2m": bytearray(), "m2s": bytearray()}
t0 = time.time()
conn_no = [0]


def log(conn, direction, text):
    with lock:
        trace.append("%9.3f c%d %s %s" % (time.time() - t0, conn, direction, text))


class Decoder:
    def __init__(self, conn, direction):
        self.conn, self.direction, self.buf = conn, direction, bytearray()

    def feed(self, data):
        self.buf += data
        if self.direction == "s2m":
            while len(self.buf) >= 8:
                (off,) = struct.unpack(">q", self.buf[:8])
                del self.buf[:8]
                log(self.conn, "s2m", "report maxOffset=%d" % off)
        else:
            while len(self.buf) >= 12:
                off, size = struct.unpack(">qi", self.buf[:12])
                if len(self.buf) < 12 + size:
                    break
                body = bytes(self.buf[12:12 + size])
                del self.buf[:12 + size]
                if size == 0:
                    log(self.conn, "m2s", "heartbeat offset=%d" % off)
                else:
                    log(self.conn, "m2s", "frame offset=%d size=%d first16=%s" % (off, size, body[:16].hex()))


def pump(src, dst, conn, direction):
    dec = Decoder(conn, direction)
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if conn == 1:
                with lock:
                    raw[direction] += data
            dec.feed(data)
            dst.sendall(data)
    except OSError:
        pass
    log(conn, direction, "closed")
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def dump(*_):
    with lock:
        for d in ("s2m", "m2s"):
            with open("%s.%s.bin" % (prefix, d), "wb") as f:
                f.write(raw[d])
        with open(prefix + ".txt", "w") as f:
            f.write("\n".join(trace) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, dump)
signal.signal(signal.SIGINT, dump)
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", listen_port))
srv.listen(8)
while True:
    cli, _ = srv.accept()
    conn_no[0] += 1
    n = conn_no[0]
    try:
        up = socket.create_connection((target_host, int(target_port)))
    except OSError as e:
        log(n, "--", "connect to master failed: %s" % e)
        cli.close()
        continue
    log(n, "--", "connected")
    threading.Thread(target=pump, args=(cli, up, n, "s2m"), daemon=True).start()
    threading.Thread(target=pump, args=(up, cli, n, "m2s"), daemon=True).start()
