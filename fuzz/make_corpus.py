#!/usr/bin/env python3
"""Regenerates the committed seed corpora in fuzz/corpus/ (fuzz/README.md, "Seeds").

Usage: fuzz/make_corpus.py FIXTURES_DIR [TRACE]
  FIXTURES_DIR  /work/shared/fixtures: the Java-written store (records, HA bytes, metadata JSON) and the
                seed-configs/ (a RocketMQ user's broker .properties files)
  TRACE      optional: `strace -f -xx -s 200000 -e trace=read,write,...,close` output of an rmqnode serving
             a real client (the ali-ons interop run): the frames it read and wrote become remoting_frame
             seeds (JSON as captured, plus each converted to a ROCKETMQ binary header).
Seeds that need no source (SQL92 and tag expressions, HA streams, register/heartbeat bodies) are
written from the literals below; config seeds are copied from config/. Only small inputs are kept.
"""
import glob, json, os, re, struct, sys, tarfile, tempfile, zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus")


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- commit-log records (PROTOCOL.md §4.1) --------------------------------------------------
def records(store):
    for path in sorted(glob.glob(os.path.join(store, "commitlog", "*"))):
        data = open(path, "rb").read()
        pos = 0
        while pos + 8 <= len(data):
            size, magic = struct.unpack(">ii", data[pos:pos + 8])
            if size <= 0:
                break
            if pos + size > len(data) or size < 90:
                yield ("blank", data[pos:pos + 8])
                break
            yield ("record", data[pos:pos + size])
            pos += size


def fields(rec):
    sysflag = struct.unpack(">i", rec[36:40])[0]
    born_v6, store_v6 = sysflag & 0x10, sysflag & 0x20
    p = 48 + (20 if born_v6 else 8)
    p += 8 + (20 if store_v6 else 8)
    p += 4 + 8
    blen = struct.unpack(">i", rec[p:p + 4])[0]
    body = rec[p + 4:p + 4 + blen]
    p += 4 + blen
    magic = struct.unpack(">i", rec[4:8])[0]
    if magic == -626843481:  # v1: 1-byte topic length
        tlen = rec[p]; p += 1
    else:
        tlen = struct.unpack(">h", rec[p:p + 2])[0]; p += 2
    topic = rec[p:p + tlen].decode()
    p += tlen
    plen = struct.unpack(">h", rec[p:p + 2])[0]
    props = rec[p + 2:p + 2 + plen]
    flag = struct.unpack(">i", rec[16:20])[0]
    return dict(sysflag=sysflag, body=body, topic=topic, props=props, flag=flag)


def batch_item(flag, body, props):
    size = 4 + 4 + 4 + 4 + 4 + len(body) + 2 + len(props)
    return struct.pack(">iiiii", size, 0, zlib.crc32(body) & 0x7FFFFFFF, flag, len(body)) + body + \
        struct.pack(">h", len(props)) + props


def store_seeds(store):
    by_topic, compressed, run, blank = {}, None, [], None
    for kind, rec in records(store):
        if kind == "blank":
            blank = rec
            continue
        f = fields(rec)
        if f["sysflag"] & 1 and compressed is None and len(rec) < 12000:
            compressed = rec
        if len(rec) < 1500 and len(by_topic.setdefault(f["topic"], [])) < 2:
            by_topic[f["topic"]].append((rec, f))
        if len(run) < 3 and len(rec) < 1000:
            run.append(rec)
    n = 0
    for topic, recs in sorted(by_topic.items()):
        for rec, f in recs:
            put("message_record", "fixture-%s-%d" % (topic, n), rec)
            if f["props"]:
                put("properties", "fixture-%s-%d" % (topic, n), f["props"])
            n += 1
    if compressed:
        put("message_record", "fixture-compressed", compressed)
    put("message_record", "fixture-three-records", b"".join(run))
    if blank:
        put("message_record", "fixture-blank-marker", blank)
    batch = [f for rs in by_topic.values() for _, f in rs][:3]
    put("message_batch", "fixture-three-messages", b"".join(batch_item(f["flag"], f["body"][:200], f["props"]) for f in batch))
    bt = [f for _, f in by_topic.get("BatchTest", [])]
    if bt:
        put("message_batch", "fixture-batchtest", b"".join(batch_item(f["flag"], f["body"], f["props"]) for f in bt))
    put("message_batch", "one-empty-body", batch_item(0, b"", b"KEYS\x01k\x02"))
    # HA stream, master -> slave: the first commit-log bytes as frames (offset, size, body), with a heartbeat.
    cl = open(sorted(glob.glob(os.path.join(store, "commitlog", "*")))[0], "rb").read()
    frames = struct.pack(">qi", 0, 0) + struct.pack(">qi", 0, 1500) + cl[:1500] + struct.pack(">qi", 1500, 700) + cl[1500:2200]
    put("ha_slave_stream", "fixture-commitlog-frames", b"\x05" + frames)
    for name in ("topics.json", "subscriptionGroup.json", "consumerOffset.json", "delayOffset.json"):
        put("fastjson", "fixture-" + name, open(os.path.join(store, "config", name), "rb").read())
    return [f for rs in by_topic.values() for _, f in rs]


# ---- remoting frames (PROTOCOL.md §1) -------------------------------------------------------
def trace_streams(trace):
    """Per (pid, fd) byte streams of reads and writes; a close ends a stream."""
    streams, live = [], {}
    pat = re.compile(r'^(\d+)\s+(read|write|recvfrom|sendto|close|writev|sendmsg|readv|recvmsg)\((\d+)(.*)$')
    for line in open(trace, errors="replace"):
        m = pat.match(line)
        if not m:
            continue
        pid, call, fd, rest = m.groups()
        key = (pid, fd)
        if call == "close":
            for d in ("in", "out"):
                if (key, d) in live:
                    streams.append(live.pop((key, d)))
            continue
        direction = "in" if call in ("read", "recvfrom", "readv", "recvmsg") else "out"
        ret = re.search(r"\)\s*=\s*(-?\d+)", rest)
        if not ret or int(ret.group(1)) <= 0:
            continue
        chunks = re.findall(r'"((?:\\x[0-9a-f]{2})+)"', rest)
        data = b"".join(bytes.fromhex(c.replace("\\x", "")) for c in chunks)[: int(ret.group(1))]
        live.setdefault((key, direction), bytearray()).extend(data)
    streams.extend(live.values())
    return streams


def frames_of(stream):
    pos, out = 0, []
    while pos + 8 <= len(stream):
        total = struct.unpack(">i", stream[pos:pos + 4])[0]
        word = struct.unpack(">I", stream[pos + 4:pos + 8])[0]
        if total < 4 or total > 1 << 24 or (word >> 24) > 1 or pos + 4 + total > len(stream):
            break
        out.append(bytes(stream[pos + 4:pos + 4 + total]))
        pos += 4 + total
    return out


LANGS = ["JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY", "OTHER", "HTTP", "GO", "PHP", "OMS", "RUST"]


def to_rocketmq(frame):
    """The same command with a ROCKETMQ binary header (PROTOCOL.md §1.4)."""
    hlen = struct.unpack(">I", frame[:4])[0] & 0xFFFFFF
    h = json.loads(frame[4:4 + hlen])
    body = frame[4 + hlen:]
    remark = (h.get("remark") or "").encode()
    ext = b"".join(struct.pack(">h", len(k.encode())) + k.encode() + struct.pack(">i", len(str(v).encode())) + str(v).encode()
                   for k, v in (h.get("extFields") or {}).items())
    lang = h.get("language", "JAVA")
    hdr = struct.pack(">hBhii", h.get("code", 0), LANGS.index(lang) if lang in LANGS else 7, h.get("version", 0),
                      h.get("opaque", 0), h.get("flag", 0))
    hdr += struct.pack(">i", len(remark)) + remark + struct.pack(">i", len(ext)) + ext
    return struct.pack(">I", (1 << 24) | len(hdr)) + hdr + body


def frame_seeds(trace):
    seen, kept = set(), 0
    for stream in trace_streams(trace):
        for fr in frames_of(stream):
            hlen = struct.unpack(">I", fr[:4])[0] & 0xFFFFFF
            try:
                h = json.loads(fr[4:4 + hlen])
            except ValueError:
                continue
            key = (h.get("code"), h.get("flag", 0) & 1)
            if key in seen or len(fr) > 6000:
                continue
            seen.add(key)
            name = "captured-%s-code%s" % ("response" if key[1] else "request", key[0])
            put("remoting_frame", name, fr)
            put("remoting_frame", name + "-rocketmq", to_rocketmq(fr))
            kept += 1
            if h.get("code") == 34 and not key[1]:
                put("heartbeat", "captured-ali-ons", fr[4 + hlen:])
            if h.get("code") == 103 and not key[1]:
                put("register_body", "captured-register-json", b"\x00" + fr[4 + hlen:])
    return kept


# ---- inputs without a captured source -------------------------------------------------------
SQL = [
    "a > 5 AND b = 'x'", "color IN ('red', 'blue') OR price BETWEEN 10 AND 20",
    "a IS NOT NULL AND NOT (b <> 'c')", "x NOT BETWEEN -1.5 AND 3e2", "TAGS = 'TagA' -- comment",
    "/* c */ ((a = TRUE) OR b IS NULL)", "s NOT IN ('it''s', '')", "a < -9223372036854775808",
    "a <= 1.7976931348623157E308 AND b >= 4.9E-324", "n = 9223372036854775807",
]
TAGS = ["*", "TagA || TagB", " TagA ||  || TagC ", "||", "Aa || BB", "", "中文 || タグ"]
PROPS = b"a\x016\x02b\x01x\x02color\x01red\x02price\x0115\x02TAGS\x01TagA\x02n\x019223372036854775807\x02"


def literal_seeds():
    for i, s in enumerate(SQL):
        put("sql92", "expr-%d" % i, s.encode() + b"\x00" + PROPS)
    for i, t in enumerate(TAGS):
        put("tag_expression", "tags-%d" % i, t.encode() + b"\x00TagA")
    put("properties", "typical", PROPS)
    put("properties", "duplicates-and-empty", b"k\x01v1\x02k\x01v2\x02\x01x\x02y\x01\x02z")
    put("ha_master_stream", "reports", b"\x03" + b"".join(struct.pack(">q", v) for v in (0, 4096, 655360, 706487)))
    put("ha_slave_stream", "heartbeats", b"\x01" + struct.pack(">qi", 655360, 0) * 3)
    topics = {"topicConfigTable": {"TopicTest": {"topicName": "TopicTest", "readQueueNums": 4, "writeQueueNums": 4,
                                                 "perm": 6, "topicFilterType": "SINGLE_TAG", "topicSysFlag": 0, "order": False}},
              "dataVersion": {"timestamp": 1700000000000, "counter": 3}}
    body = dict(topicConfigSerializeWrapper=topics, filterServerList=[])
    put("register_body", "json-body", b"\x00" + json.dumps(body).encode())
    put("register_body", "bare-wrapper", b"\x02" + json.dumps(topics).encode())
    put("register_body", "data-version", b"\x03" + json.dumps(topics["dataVersion"]).encode())
    put("register_body", "compressed-body", b"\x01" + compressed_register_body())
    hb = {"clientID": "127.0.0.1@1234#1", "producerDataSet": [{"groupName": "CLIENT_INNER_PRODUCER"}],
          "consumerDataSet": [{"groupName": "g", "consumeType": "CONSUME_PASSIVELY", "messageModel": "CLUSTERING",
                               "consumeFromWhere": "CONSUME_FROM_LAST_OFFSET", "unitMode": False,
                               "subscriptionDataSet": [{"topic": "T", "subString": "TagA || TagB", "tagsSet": ["TagA", "TagB"],
                                                        "codeSet": [2598919, 2598920], "subVersion": 1, "expressionType": "TAG",
                                                        "classFilterMode": False},
                                                       {"topic": "S", "subString": "a > 5", "expressionType": "SQL92"}]}]}
    put("heartbeat", "java-shape", json.dumps(hb))
    put("fastjson", "fastjson-keys", '{0:"10.0.0.1:10911",{"brokerName":"b","queueId":0,"topic":"t"}:12,\'s\':[1,2,],}')


def compressed_register_body():
    """RegisterBrokerBody.encode(true) (PROTOCOL.md §3.2): zlib'd binary topic list + data version."""
    dv = json.dumps({"timestamp": 1700000000000, "counter": 3}).encode()
    tc = "TopicTest 4 4 6 0 SINGLE_TAG".encode()  # TopicConfig.encode(): space-separated
    raw = struct.pack(">i", len(dv)) + dv + struct.pack(">i", 1) + struct.pack(">i", len(tc)) + tc + struct.pack(">i", 0)
    return zlib.compress(raw)


def ha_seeds():
    """Raw HA bytes a Java 4.9.8 master and slave exchanged (test/reference/ha/), behind a read-cut byte."""
    ref = os.path.join(ROOT, "test", "reference", "ha", "java-4.9.8")
    put("ha_master_stream", "java-sync-master-s2m", b"\x07" + open(os.path.join(ref, "sync-master.s2m.bin"), "rb").read())
    for name in ("sync-master", "late-slave"):
        put("ha_slave_stream", "java-%s-m2s" % name, b"\x02" + open(os.path.join(ref, name + ".m2s.head.bin"), "rb").read())


def config_seeds(fixtures):
    for path in glob.glob(os.path.join(fixtures, "seed-configs", "*.properties")):  # a RocketMQ 4.4 user's broker.conf files
        put("config_properties", "rocketmq-user-" + os.path.basename(path), open(path, "rb").read())
    for path in glob.glob(os.path.join(ROOT, "config", "**", "*"), recursive=True):
        if os.path.getsize(path) > 12000 or not os.path.isfile(path):
            continue
        name = os.path.relpath(path, os.path.join(ROOT, "config")).replace("/", "-")
        if path.endswith(".toml"):
            put("config_toml", name, open(path, "rb").read())
        elif path.endswith((".properties", ".conf")):
            put("config_properties", name, open(path, "rb").read())


if __name__ == "__main__":
    fixtures = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(os.path.join(fixtures, "rocketmq-4.9.8-store.tar.gz")) as tar:
            tar.extractall(tmp)
        store_seeds(os.path.join(tmp, "rocketmq-4.9.8-store"))
    literal_seeds()
    ha_seeds()
    config_seeds(fixtures)
    if len(sys.argv) > 2:
        print("remoting frames kept:", frame_seeds(sys.argv[2]))
