// Frame codec: byte-exact fixtures from PROTOCOL.md §1 and round trips for both header types.
#include <doctest/doctest.h>

#include <string>

#include "common/bytes.h"
#include "net/frame_codec.h"

using namespace rmq;
using namespace rmq::net;

namespace {
std::string be32(uint32_t v) { std::string s; putBE32(s, v); return s; }
std::string be16(uint16_t v) { std::string s; putBE16(s, v); return s; }
}  // namespace

TEST_CASE("JSON header: exact fastjson text with extFields and escaped control chars") {
  RemotingCommand cmd;
  cmd.code = 310;
  cmd.opaque = 17;
  cmd.extFields.set("a", "PG");
  cmd.extFields.set("b", "TopicTest");
  cmd.extFields.set("i", std::string("KEYS\x01k1\x02UNIQ_KEY\x01u\"q\\\n\x7f"));
  std::string header;
  encodeJsonHeader(cmd, header);
  CHECK(header ==
        "{\"code\":310,\"extFields\":{\"a\":\"PG\",\"b\":\"TopicTest\","
        "\"i\":\"KEYS\\u0001k1\\u0002UNIQ_KEY\\u0001u\\\"q\\\\\\n\\u007F\"},"
        "\"flag\":0,\"language\":\"JAVA\",\"opaque\":17,\"serializeTypeCurrentRPC\":\"JSON\",\"version\":407}");
}

TEST_CASE("JSON header: null remark and empty extFields are omitted; remark present when set") {
  auto resp = RemotingCommand::response(3, std::string(" request type 9999 not supported"));
  resp.opaque = 5;
  resp.language = LanguageCode::GO;
  std::string header;
  encodeJsonHeader(resp, header);
  CHECK(header ==
        "{\"code\":3,\"flag\":1,\"language\":\"GO\",\"opaque\":5,"
        "\"remark\":\" request type 9999 not supported\",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":407}");
}

TEST_CASE("Frame layout: total length, header-length word, header, body") {
  RemotingCommand cmd;
  cmd.code = 105;
  cmd.opaque = 1;
  cmd.body = "xyz";
  std::string frame = encodeFrame(cmd);
  std::string header;
  encodeJsonHeader(cmd, header);
  CHECK(frame == be32(4 + header.size() + 3) + be32(header.size()) + header + "xyz");
}

TEST_CASE("ROCKETMQ header: exact bytes of a small request") {
  RemotingCommand cmd;
  cmd.code = 11;
  cmd.language = LanguageCode::CPP;
  cmd.version = 407;
  cmd.opaque = 0x01020304;
  cmd.flag = kFlagOneway;
  cmd.remark = "hi";
  cmd.extFields.set("k", "vv");
  cmd.serializeType = SerializeType::RocketMQ;
  std::string expectHeader = be16(11) + std::string("\x01", 1) + be16(407) + be32(0x01020304) + be32(2) +
                             be32(2) + "hi" + be32(2 + 1 + 4 + 2) + be16(1) + "k" + be32(2) + "vv";
  std::string header;
  encodeRocketMQHeader(cmd, header);
  CHECK(header == expectHeader);
  CHECK(encodeFrame(cmd) == be32(4 + expectHeader.size()) + be32((1u << 24) | expectHeader.size()) + expectHeader);
}

TEST_CASE("Round trip, both serialize types, with body segments") {
  for (auto type : {SerializeType::Json, SerializeType::RocketMQ}) {
    CAPTURE(static_cast<int>(type));
    RemotingCommand cmd = RemotingCommand::request(310);
    cmd.serializeType = type;
    cmd.language = LanguageCode::RUST;
    cmd.version = 399;
    cmd.opaque = -7;
    cmd.flag = kFlagOneway;
    cmd.remark = "r\x01\xc3\xa9";
    cmd.extFields.set("topic", "T");
    cmd.extFields.set("properties", std::string("A\x01" "1\x02" "B\x01" "2"));
    cmd.extFields.set("queueId", int64_t{-1});
    cmd.body = "head-";
    std::string seg1 = "seg1", seg2 = "segment-two";
    cmd.bodySegments = {{seg1.data(), seg1.size()}, {seg2.data(), seg2.size()}};
    CHECK(cmd.bodySize() == 5 + 4 + 11);
    std::string frame = encodeFrame(cmd);
    REQUIRE(loadBE32(frame.data()) == frame.size() - 4);
    auto dec = decodeFrame(std::string_view(frame).substr(4));
    REQUIRE(dec.ok());
    CHECK(dec->code == 310);
    CHECK(dec->serializeType == type);
    CHECK(dec->language == LanguageCode::RUST);
    CHECK(dec->version == 399);
    CHECK(dec->opaque == -7);
    CHECK(dec->isOneway());
    CHECK(dec->remark == cmd.remark);
    CHECK(dec->extFields.size() == 3);
    CHECK(dec->extFields.get("properties") == cmd.extFields.get("properties"));
    CHECK(dec->extFields.getInt("queueId") == -1);
    CHECK(dec->body == "head-seg1segment-two");
  }
}

TEST_CASE("ROCKETMQ decode: empty strings are null") {
  RemotingCommand cmd;
  cmd.serializeType = SerializeType::RocketMQ;
  cmd.remark = "";
  cmd.extFields.set("empty", "");
  cmd.extFields.set("full", "x");
  std::string frame = encodeFrame(cmd);
  auto dec = decodeFrame(std::string_view(frame).substr(4));
  REQUIRE(dec.ok());
  CHECK(!dec->remark.has_value());
  CHECK(!dec->extFields.contains("empty"));
  CHECK(dec->extFields.get("full") == "x");
}

TEST_CASE("JSON decode: unknown language name, unknown properties, numbers in extFields") {
  std::string header =
      R"({"code":34,"extFields":{"n":5,"s":"x","b":true,"z":null},"flag":2,"language":"KOTLIN",)"
      R"("nested":{"a":[1,{"b":2}]},"opaque":9,"serializeTypeCurrentRPC":"JSON","version":413})";
  std::string frame = be32(header.size()) + header + "BODY";
  auto dec = decodeFrame(frame);
  REQUIRE(dec.ok());
  CHECK(dec->code == 34);
  CHECK(dec->language == LanguageCode::OTHER);
  CHECK(dec->opaque == 9);
  CHECK(dec->version == 413);
  CHECK(dec->isOneway());
  CHECK(!dec->remark);
  CHECK(dec->extFields.get("n") == "5");
  CHECK(dec->extFields.get("s") == "x");
  CHECK(dec->extFields.get("b") == "true");
  CHECK(!dec->extFields.contains("z"));
  CHECK(dec->body == "BODY");
}

TEST_CASE("Bad frames decode to errors") {
  std::string header = R"({"code":1,"flag":0,"opaque":1})";
  SUBCASE("bad serialize type") {
    auto r = decodeFrame(be32((2u << 24) | header.size()) + header);
    REQUIRE(!r.ok());
    CHECK(r.error().message.find("serialize type") != std::string::npos);
  }
  SUBCASE("header length larger than frame") {
    auto r = decodeFrame(be32(header.size() + 1) + header);
    REQUIRE(!r.ok());
    CHECK(r.error().message.find("header length") != std::string::npos);
  }
  SUBCASE("too short") { CHECK(!decodeFrame("ab").ok()); }
  SUBCASE("malformed JSON") {
    std::string bad = R"({"code":1,"flag")";
    CHECK(!decodeFrame(be32(bad.size()) + bad).ok());
    std::string notObj = "[1,2]";
    CHECK(!decodeFrame(be32(notObj.size()) + notObj).ok());
  }
  SUBCASE("truncated binary header") {
    RemotingCommand cmd;
    cmd.serializeType = SerializeType::RocketMQ;
    cmd.remark = "remark";
    cmd.extFields.set("key", "value");
    std::string h;
    encodeRocketMQHeader(cmd, h);
    for (size_t cut = 0; cut < h.size(); ++cut) {
      CAPTURE(cut);
      std::string t = h.substr(0, cut);
      CHECK(!decodeFrame(be32((1u << 24) | t.size()) + t).ok());
    }
  }
  SUBCASE("remark or ext length beyond header") {
    std::string h = be16(1) + std::string("\0", 1) + be16(1) + be32(1) + be32(0) + be32(1000) + "x";
    auto r = decodeFrame(be32((1u << 24) | h.size()) + h);
    REQUIRE(!r.ok());
    CHECK(r.error().message.find("remark length") != std::string::npos);
    std::string h2 = be16(1) + std::string("\0", 1) + be16(1) + be32(1) + be32(0) + be32(0) + be32(500);
    auto r2 = decodeFrame(be32((1u << 24) | h2.size()) + h2);
    REQUIRE(!r2.ok());
    CHECK(r2.error().message.find("extFields length") != std::string::npos);
  }
}

TEST_CASE("ExtFields typed getters and language names") {
  ExtFields f;
  f.set("a", "42");
  f.set("b", "+7");
  f.set("c", "x1");
  f.set("t", "TRUE");
  f.set("u", "yes");
  f.set("a", "43");  // replaces
  CHECK(f.size() == 5);
  CHECK(f.getInt("a") == 43);
  CHECK(f.getInt("b") == 7);
  CHECK(!f.getInt("c"));
  CHECK(!f.getInt("missing"));
  CHECK(f.getBool("t") == true);
  CHECK(f.getBool("u") == false);
  CHECK(!f.getBool("missing"));
  f.erase("a");
  CHECK(!f.contains("a"));
  CHECK(std::string(languageName(LanguageCode::DOTNET)) == "DOTNET");
  CHECK(languageFromName("RUST") == LanguageCode::RUST);
  CHECK(!languageFromName("rust"));
  auto r1 = RemotingCommand::request(10), r2 = RemotingCommand::request(10);
  CHECK(r2.opaque != r1.opaque);
  CHECK(!r1.isResponse());
  CHECK(RemotingCommand::response(0).isResponse());
}

TEST_CASE("JSON decode: whitespace is fine, bytes after the object are not") {
  std::string pretty = "{\n\t\"code\" : 11,\n\t\"opaque\" : 3\n}\n";
  auto ok = decodeFrame(be32(pretty.size()) + pretty);
  REQUIRE(ok.ok());
  CHECK(ok->code == 11);
  CHECK(ok->opaque == 3);
  std::string nul = std::string("{\"code\":11}") + std::string("\0x", 2);
  CHECK(!decodeFrame(be32(nul.size()) + nul).ok());
  std::string twoValues = "{\"code\":11}{}";
  CHECK(!decodeFrame(be32(twoValues.size()) + twoValues).ok());
}
