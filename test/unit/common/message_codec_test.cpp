#include <doctest/doctest.h>

#include "common/bytes.h"
#include "common/message_codec.h"
#include "common/message_id.h"

#include <chrono>

using namespace rmq;

namespace {
MessageExt sampleMessage(bool v6) {
  MessageExt m;
  m.topic = "TopicTest";
  m.flag = 7;
  m.body = "hello body";
  m.putProperty(prop::TAGS, "TagA");
  m.putProperty(prop::KEYS, "k1 k2");
  m.queueId = 3;
  m.queueOffset = 42;
  m.commitLogOffset = 123456;
  m.sysFlag = 0;
  m.bornTimestamp = 1700000000000;
  m.storeTimestamp = 1700000000123;
  HostAddress::parse(v6 ? "[::1]:5555" : "10.1.2.3:5555", m.bornHost);
  HostAddress::parse("127.0.0.1:10911", m.storeHost);
  m.reconsumeTimes = 2;
  m.preparedTransactionOffset = 99;
  m.bodyCRC = crc32Masked(m.body);
  return m;
}
}  // namespace

TEST_CASE("crc32Masked and javaStringHash match Java") {
  CHECK(crc32Masked("123456789") == 0x4BF43926);  // 0xCBF43926 & 0x7FFFFFFF
  CHECK(javaStringHash("") == 0);
  CHECK(javaStringHash("hello") == 99162322);
  CHECK(javaStringHash("TagA") == 2598919);
  CHECK(javaStringHash("\xC3\xA9") == 0xE9);                 // é: one UTF-16 unit
  CHECK(javaStringHash("\xF0\x9F\x98\x80") == 1772899);      // 😀: two surrogates
  CHECK(javaStringHash("polygenelubricants") == static_cast<int32_t>(0x80000000));  // wraps negative
  CHECK(javaStringLength("a\xF0\x9F\x98\x80") == 3);
}

TEST_CASE("properties string follows Java's rules") {
  Properties p{{"TAGS", "TagA"}, {"KEYS", "a b"}};
  std::string s = encodeProperties(p);
  CHECK(s == "TAGS\x01TagA\x02KEYS\x01" "a b");
  CHECK(decodeProperties(s) == p);
  CHECK(encodeProperties({}).empty());
  // short items, empty keys or values are ignored; value may contain 0x01
  auto d = decodeProperties(std::string("a\x01\x02\x01v\x02k\x01v\x01w\x02x", 13));
  REQUIRE(d.size() == 1);
  CHECK(d[0].first == "k");
  CHECK(d[0].second == "v\x01w");
  CHECK(findEncodedProperty(s, "KEYS") == "a b");
  CHECK_FALSE(findEncodedProperty(s, "UNIQ_KEY").has_value());
}

TEST_CASE("record encode/parse round trip, IPv4 and IPv6") {
  for (bool v6 : {false, true}) {
    MessageExt m = sampleMessage(v6);
    std::string rec = encodeMessageExt(m);
    CHECK(rec.size() == (v6 ? 91 + 12 : 91) + m.body.size() + m.topic.size() + encodeProperties(m.properties).size());
    CHECK(static_cast<int32_t>(loadBE32(rec.data() + 4)) == kMessageMagicV1);
    RecordView v;
    REQUIRE(parseRecord(rec.data(), rec.size(), v, true) == RecordParse::Ok);
    CHECK(v.topic == "TopicTest");
    CHECK(v.bornHost.v6 == v6);
    CHECK(((v.sysFlag & sysflag::BORNHOST_V6) != 0) == v6);
    auto back = decodeMessage(rec);
    REQUIRE(back.ok());
    CHECK(back->body == m.body);
    CHECK(back->properties == m.properties);
    CHECK(back->queueOffset == 42);
    CHECK(back->commitLogOffset == 123456);
    CHECK(back->preparedTransactionOffset == 99);
    CHECK(back->bornHost == m.bornHost);
    CHECK(back->storeHost == m.storeHost);
    CHECK(back->storeSize == static_cast<int32_t>(rec.size()));
    CHECK(encodeMessageExt(back.value()) == rec);
    // truncated and corrupted inputs
    CHECK(parseRecord(rec.data(), rec.size() - 1, v, true) == RecordParse::Truncated);
    std::string bad = rec;
    bad[bad.size() - 30] ^= 1;  // inside the body or topic
    std::string badBody = rec;
    badBody[rec.find("hello body")] ^= 1;
    CHECK(parseRecord(badBody.data(), badBody.size(), v, true) == RecordParse::Corrupt);
    CHECK(parseRecord(badBody.data(), badBody.size(), v, false) == RecordParse::Ok);
    std::string badMagic = rec;
    badMagic[5] ^= 1;
    CHECK(parseRecord(badMagic.data(), badMagic.size(), v, false) == RecordParse::Corrupt);
  }
  char blank[8];
  storeBE32(blank, 100);
  storeBE32(blank + 4, static_cast<uint32_t>(kBlankMagic));
  RecordView v;
  CHECK(parseRecord(blank, 8, v, true) == RecordParse::Blank);
}

TEST_CASE("decodeMessages splits a pull body and inflates compressed bodies") {
  MessageExt a = sampleMessage(false), b = sampleMessage(false);
  std::string plain(10000, 'x');
  b.body = zlibCompress(plain);
  b.sysFlag = sysflag::COMPRESSED | sysflag::COMPRESSION_ZLIB;
  b.bodyCRC = crc32Masked(b.body);
  std::string bytes = encodeMessageExt(a) + encodeMessageExt(b);
  auto all = decodeMessages(bytes, true);
  REQUIRE(all.ok());
  REQUIRE(all->size() == 2);
  CHECK((*all)[1].body == plain);
  auto raw = decodeMessages(bytes, false);
  REQUIRE(raw.ok());
  CHECK((*raw)[1].body == b.body);
  CHECK_FALSE(decodeMessages(bytes.substr(0, bytes.size() - 3)).ok());
  CHECK_FALSE(zlibInflate("not zlib").ok());
}

TEST_CASE("batch body round trip and malformed batches") {
  std::vector<Message> msgs(3);
  for (int i = 0; i < 3; ++i) {
    msgs[i].body = std::string(i * 10, 'a' + i);
    msgs[i].flag = i;
    msgs[i].putProperty(prop::KEYS, "OrderID00" + std::to_string(i));
  }
  std::string body = encodeBatch(msgs);
  auto items = decodeBatch(body);
  REQUIRE(items.ok());
  REQUIRE(items->size() == 3);
  CHECK((*items)[2].body == msgs[2].body);
  CHECK((*items)[1].flag == 1);
  CHECK(decodeProperties((*items)[0].properties) == msgs[0].properties);
  CHECK_FALSE(decodeBatch(body.substr(0, body.size() - 1)).ok());
  std::string wrong = body;
  storeBE32(wrong.data(), 5);
  CHECK_FALSE(decodeBatch(wrong).ok());
}

TEST_CASE("offset msgId create/parse, IPv4 and IPv6") {
  HostAddress h;
  REQUIRE(HostAddress::parse("127.0.0.1:10911", h));
  std::string id = createOffsetMsgId(h, 0x1234);
  CHECK(id == "7F00000100002A9F0000000000001234");
  auto p = parseOffsetMsgId(id);
  REQUIRE(p.has_value());
  CHECK(p->storeHost == h);
  CHECK(p->commitLogOffset == 0x1234);
  HostAddress h6;
  REQUIRE(HostAddress::parse("[fe80::1]:10911", h6));
  std::string id6 = createOffsetMsgId(h6, 77);
  CHECK(id6.size() == 56);
  auto p6 = parseOffsetMsgId(id6);
  REQUIRE(p6.has_value());
  CHECK(p6->storeHost == h6);
  CHECK(p6->commitLogOffset == 77);
  CHECK_FALSE(parseOffsetMsgId("XYZ").has_value());
  CHECK_FALSE(parseOffsetMsgId(std::string(32, 'G')).has_value());
  CHECK(h.toString() == "127.0.0.1:10911");
  CHECK(h6.toString() == "[fe80::1]:10911");
  HostAddress bad;
  CHECK_FALSE(HostAddress::parse("1.2.3:4", bad));
}

TEST_CASE("UNIQ_KEY generator: upper-case hex, unique, time recoverable") {
  UniqIdGenerator gen(HostAddress::ipv4(0x0A000001, 0));
  std::string a = gen.next(), b = gen.next();
  CHECK(a.size() == 32);
  CHECK(a != b);
  CHECK(a.substr(0, 8) == "0A000001");
  for (char c : a) CHECK(((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F')));
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch()).count();
  int64_t t = uniqIdNearlyTime(a);
  CHECK(t <= now);
  CHECK(t > now - 10000);
}

TEST_CASE("duplicated property names: kept for byte-exact re-encoding, last one wins") {
  std::string s = "WAIT\x01true\x02TAGS\x01T\x02WAIT\x01" "false";
  auto p = decodeProperties(s);
  CHECK(p.size() == 3);
  CHECK(encodeProperties(p) == s);
  CHECK(*findProperty(p, "WAIT") == "false");
  CHECK(findEncodedProperty(s, "WAIT") == "false");
  setProperty(p, "WAIT", "x");
  CHECK(*findProperty(p, "WAIT") == "x");
  CHECK(eraseProperty(p, "WAIT"));
  CHECK(p.size() == 1);
}

TEST_CASE("folded CRC32 equals zlib for every length and alignment") {
  std::string data(70000, '\0');
  uint32_t x = 12345;
  for (auto& c : data) {
    x = x * 1103515245 + 12345;
    c = static_cast<char>(x >> 16);
  }
  for (size_t len = 0; len < 700; ++len)
    for (size_t off : {0, 1, 7}) {
      std::string_view v(data.data() + off, len);
      REQUIRE(crc32Masked(v) == crc32MaskedZlib(v));
    }
  for (size_t len : {4096, 4097, 65536, 69993})
    CHECK(crc32Masked(std::string_view(data.data() + 3, len)) == crc32MaskedZlib(std::string_view(data.data() + 3, len)));
  CHECK(crc32Ieee("123456789") == 0xCBF43926u);
}
