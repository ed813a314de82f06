// Compatibility with a store written by Apache RocketMQ 4.9.8 (../shared/fixtures): every manifest
// message by queue offset, offset msgId and key, byte-exact; our encoder and dispatcher reproduce
// the Java bytes (records, consume queues).
#include <doctest/doctest.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/bytes.h"
#include "common/json.h"
#include "common/message_id.h"
#include "java_fixture.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::store;
using namespace rmq::store::test;
namespace fs = std::filesystem;

namespace {
std::string base64Decode(std::string_view in) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    auto p = kAlphabet.find(c);
    if (p == std::string::npos) continue;
    acc = (acc << 6) | static_cast<uint32_t>(p);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

StoreConfig fixtureConfig(const std::string& root) { return rmq::test::javaFixtureConfig(root); }
HostAddress fixtureHost() { return rmq::test::javaFixtureHost(); }

// Unpacks the fixture into `dir`; returns the store root, or "" when the fixtures are absent.
std::string unpackFixture(const TempDir& dir) {
  std::string root = rmq::test::unpackJavaFixture(dir.path);
  if (root.empty()) MESSAGE("fixtures not found under " << rmq::test::javaFixtureDir() << ": skipping the Java store compatibility test");
  return root;
}
}  // namespace

TEST_CASE("Java 4.9.8 store: every manifest message by queue offset, msgId and key") {
  TempDir dir;
  std::string root = unpackFixture(dir);
  if (root.empty()) return;
  rapidjson::Document manifest;
  REQUIRE(json::parse(rmq::test::gunzipFile(rmq::test::javaFixtureManifest()), manifest).ok());

  MessageStore store(fixtureConfig(root), fixtureHost());
  auto opened = store.open();
  REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
  store.start();

  for (auto& q : manifest["queues"].GetArray()) {
    std::string topic = q["topic"].GetString();
    int qid = q["queueId"].GetInt();
    CAPTURE(topic);
    CAPTURE(qid);
    CHECK(store.minOffsetInQueue(topic, qid) == q["minOffset"].GetInt64());
    CHECK(store.maxOffsetInQueue(topic, qid) == q["maxOffset"].GetInt64());
  }

  int checked = 0;
  for (auto& m : manifest["messages"].GetArray()) {
    std::string topic = m["topic"].GetString();
    int qid = m["queueId"].GetInt();
    int64_t qoff = m["queueOffset"].GetInt64();
    CAPTURE(topic);
    CAPTURE(qoff);
    auto g = store.getMessages(topic, qid, qoff, 1, 1 << 30, nullptr);
    REQUIRE((g.status == GetStatus::FOUND));
    REQUIRE(g.records.size() == 1);
    auto raw = decodeMessage(g.records[0], false);
    auto msg = decodeMessage(g.records[0], true);
    REQUIRE(raw.ok());
    REQUIRE(msg.ok());
    CHECK(msg->commitLogOffset == m["commitLogOffset"].GetInt64());
    CHECK(msg->sysFlag == m["sysFlag"].GetInt());
    CHECK(msg->bornTimestamp == m["bornTimestamp"].GetInt64());
    CHECK(msg->storeTimestamp == m["storeTimestamp"].GetInt64());
    CHECK(msg->reconsumeTimes == m["reconsumeTimes"].GetInt());
    CHECK(msg->bodyCRC == m["bodyCRC"].GetInt());
    CHECK(crc32Masked(raw->body) == msg->bodyCRC);
    CHECK(msg->offsetMsgId() == m["offsetMsgId"].GetString());
    CHECK(msg->body == base64Decode(m["bodyBase64"].GetString()));
    std::map<std::string, std::string> expectProps, gotProps;
    for (auto& p : m["properties"].GetObject()) expectProps[p.name.GetString()] = p.value.GetString();
    for (auto& [k, v] : msg->properties) gotProps[k] = v;
    CHECK(gotProps == expectProps);
    // By offset msgId: the very same bytes.
    auto byId = store.lookMessageByMsgId(m["offsetMsgId"].GetString());
    CHECK(byId.bytes == g.records[0]);
    // Our encoder reproduces the Java record byte for byte.
    CHECK(encodeMessageExt(raw.value()) == std::string(g.records[0]));
    // By key (KEYS words and UNIQ_KEY), through the Java-written index file.
    if (auto* uniq = msg->property(prop::UNIQ_KEY)) {
      auto q = store.queryMessage(topic, *uniq, 32, 0, INT64_MAX);
      bool found = false;
      for (auto& r : q.records) found |= r == g.records[0];
      CHECK(found);
    }
    ++checked;
  }
  CHECK(checked == 1913);

  for (auto& kq : manifest["keyQueries"].GetArray()) {
    std::string topic = kq["topic"].GetString(), key = kq["key"].GetString();
    CAPTURE(key);
    auto q = store.queryMessage(topic, key, 32, 0, INT64_MAX);
    std::set<int64_t> got, expect;
    for (auto& r : q.records) got.insert(decodeMessage(r, false)->commitLogOffset);
    for (auto& o : kq["commitLogOffsets"].GetArray()) expect.insert(o.GetInt64());
    CHECK(got == expect);
    CHECK((kq["responseCode"].GetInt() == 22) == q.records.empty());
  }

  // Config JSON files (fastjson: unquoted int keys) parse and hold what the README says.
  for (auto name : {"topics.json", "consumerOffset.json", "subscriptionGroup.json", "delayOffset.json"}) {
    rapidjson::Document doc;
    CHECK_MESSAGE(json::parse(readFile(root + "/config/" + name), doc).ok(), name);
  }
  rapidjson::Document offsets;
  REQUIRE(json::parse(readFile(root + "/config/consumerOffset.json"), offsets).ok());
  auto& table = offsets["offsetTable"]["TopicTest@please_rename_unique_group_name_4"];
  for (auto& e : table.GetObject()) CHECK(e.value.GetInt64() == 250);

  // Appends continue the Java files: next physical offset and queue offset.
  int64_t end = store.maxPhyOffset();
  TestMessage more("FixtureA", 0, "appended by rmqnode", "TagA", "fa-new");
  auto r = store.append(more.m);
  REQUIRE(r.ok());
  CHECK(r.physicalOffset == end);
  CHECK(r.queueOffset == 150);
  store.shutdown();
  MessageStore again(fixtureConfig(root), fixtureHost());
  REQUIRE(again.open().ok());
  auto g = again.getMessages("FixtureA", 0, 150, 32, 1 << 30, nullptr);
  REQUIRE(g.records.size() == 1);
  CHECK(decodeMessage(g.records[0])->body == "appended by rmqnode");
  CHECK(again.queryMessage("FixtureA", "fa-new", 32, 0, INT64_MAX).records.size() == 1);
  CHECK(again.queryMessage("FixtureA", "fa-5", 32, 0, INT64_MAX).records.size() == 1);
}

TEST_CASE("Java 4.9.8 store: our dispatcher rebuilds byte-identical consume queues") {
  TempDir dir;
  std::string root = unpackFixture(dir);
  if (root.empty()) return;
  std::map<std::string, std::string> javaCq;
  for (auto& e : fs::recursive_directory_iterator(root + "/consumequeue"))
    if (e.is_regular_file()) javaCq[fs::relative(e.path(), root + "/consumequeue").string()] = readFile(e.path());
  fs::remove_all(root + "/consumequeue");
  fs::remove_all(root + "/index");
  {
    MessageStore store(fixtureConfig(root), fixtureHost());
    REQUIRE(store.open().ok());  // no CQ: recovery re-dispatches the whole commit log
    store.start();
    CHECK(store.queryMessage("TopicTestjjj", "KEY7", 32, 0, INT64_MAX).records.size() == 1);
    store.shutdown();
  }
  REQUIRE_FALSE(javaCq.empty());
  for (auto& [rel, bytes] : javaCq) {
    CAPTURE(rel);
    std::string ours = readFile(root + "/consumequeue/" + rel);
    REQUIRE(ours.size() == bytes.size());
    // Compare the written units (Java's file tail is zeros, so is ours).
    CHECK(ours == bytes);
  }
}
