// common/json.h: fastjson quirks in both directions (PROTOCOL.md §3.1).
#include <doctest/doctest.h>

#include "common/json.h"

using namespace rmq;

TEST_CASE("json::parse accepts unquoted integer keys") {
  rapidjson::Document doc;
  REQUIRE(json::parse(R"({"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"},"n":-1})", doc).ok());
  auto& addrs = doc["brokerAddrs"];
  REQUIRE(addrs.IsObject());
  CHECK(std::string(addrs["0"].GetString()) == "10.0.0.1:10911");
  CHECK(std::string(addrs["1"].GetString()) == "10.0.0.2:10911");
  CHECK(json::getInt64(doc, "n") == -1);
}

TEST_CASE("json::parse turns object keys into their compact JSON text") {
  rapidjson::Document doc;
  std::string text =
      "{\"offsetTable\":{{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"t\"}:12,\n"
      "  { \"brokerName\" : \"b\", \"queueId\" : 1, \"topic\" : \"t\\u0001\" } : {\"x\":[1,{2:3}]}},"
      "\"arr\":[{'s':'it\\'s \"q\"'},],}";
  auto r = json::parse(text, doc);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  auto& table = doc["offsetTable"];
  REQUIRE(table.MemberCount() == 2);
  auto it = table.MemberBegin();
  CHECK(json::keyView(it->name) == R"({"brokerName":"b","queueId":0,"topic":"t"})");
  CHECK(it->value.GetInt() == 12);
  ++it;
  CHECK(json::keyView(it->name) == "{\"brokerName\":\"b\",\"queueId\":1,\"topic\":\"t\\u0001\"}");
  CHECK(it->value["x"][1]["2"].GetInt() == 3);
  CHECK(std::string(doc["arr"][0]["s"].GetString()) == "it's \"q\"");
  auto mq = json::parseMessageQueueKey(json::keyView(it->name));
  REQUIRE(mq);
  CHECK(mq->topic == std::string("t\x01"));
  CHECK(mq->brokerName == "b");
  CHECK(mq->queueId == 1);
}

TEST_CASE("json::parse handles empty containers before further keys") {
  rapidjson::Document doc;
  REQUIRE(json::parse(R"({"a":{},"b":[],"c":{"d":{}},"e":[{},{1:2}],"f":1})", doc).ok());
  CHECK(doc["f"].GetInt() == 1);
  CHECK(doc["e"][1]["1"].GetInt() == 2);
}

TEST_CASE("json::parse reports errors") {
  rapidjson::Document doc;
  auto r = json::parse(R"({"a":)", doc);
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("offset") != std::string::npos);
  CHECK(!json::parse(R"({"a":1} trailing)", doc).ok());
  CHECK(!json::parse(R"({{"a":1:2})", doc).ok());
}

TEST_CASE("json writers emit integer and MessageQueue keys like fastjson") {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("offsetTable");
  w.StartObject();
  json::writeMessageQueueKey(w, {"TopicTest", "broker-a", 3});
  w.StartObject();
  w.Key("brokerOffset");
  w.Int64(12);
  w.EndObject();
  w.EndObject();
  w.Key("brokerAddrs");
  w.StartObject();
  json::writeIntKey(w, 0);
  w.String("1.2.3.4:10911");
  json::writeIntKey(w, -5);
  w.Int(1);
  w.EndObject();
  w.Key("s");
  w.String("a\x01\"\n");
  w.EndObject();
  std::string text(buf.GetString(), buf.GetSize());
  CHECK(text ==
        "{\"offsetTable\":{{\"brokerName\":\"broker-a\",\"queueId\":3,\"topic\":\"TopicTest\"}:{\"brokerOffset\":12}},"
        "\"brokerAddrs\":{0:\"1.2.3.4:10911\",-5:1},\"s\":\"a\\u0001\\\"\\n\"}");

  // And back: the same text parses, keys come back as the text the writer used.
  rapidjson::Document doc;
  REQUIRE(json::parse(text, doc).ok());
  auto key = json::messageQueueKeyText({"TopicTest", "broker-a", 3});
  REQUIRE(doc["offsetTable"].HasMember(key.c_str()));
  CHECK(doc["offsetTable"][key.c_str()]["brokerOffset"].GetInt() == 12);
  CHECK(std::string(doc["brokerAddrs"]["0"].GetString()) == "1.2.3.4:10911");
  CHECK(doc["brokerAddrs"]["-5"].GetInt() == 1);
  CHECK(std::string(doc["s"].GetString()) == "a\x01\"\n");
}

TEST_CASE("json::appendQuoted escapes like fastjson") {
  std::string out;
  json::appendQuoted(out, std::string("x\x00\x1f\t\b\f\r\\/\x7f\xc3\xa9", 12));
  CHECK(out == "\"x\\u0000\\u001F\\t\\b\\f\\r\\\\/\\u007F\xc3\xa9\"");
}

TEST_CASE("json tolerant getters") {
  rapidjson::Document doc;
  REQUIRE(json::parse(R"({"a":"12","b":true,"c":"true","d":"x","e":7})", doc).ok());
  CHECK(json::getInt64(doc, "a") == 12);
  CHECK(json::getInt64(doc, "e") == 7);
  CHECK(!json::getInt64(doc, "d"));
  CHECK(json::getBool(doc, "b") == true);
  CHECK(json::getBool(doc, "c") == true);
  CHECK(json::getString(doc, "d") == std::string_view("x"));
  CHECK(!json::getString(doc, "e"));
  CHECK(!json::getString(doc, "missing"));
}
