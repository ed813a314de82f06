// Query and statistics codes: QUERY_MESSAGE, VIEW_MESSAGE_BY_ID, QUERY_CONSUME_QUEUE,
// GET_TOPIC_STATS_INFO, GET_CONSUME_STATS, GET_BROKER_CONSUME_STATS, QUERY_CONSUME_TIME_SPAN,
// QUERY_TOPIC_CONSUME_BY_WHO, GET_BROKER_RUNTIME_INFO, CLONE_GROUP_OFFSET, QUERY_CORRECTION_OFFSET.
#include <doctest/doctest.h>
#include <sys/statvfs.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "broker_calls.h"
#include "common/json.h"
#include "common/message_id.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::test;

namespace {

// MessageQueue-keyed object (fastjson object keys) -> queueId -> value object.
std::map<int, const rapidjson::Value*> byQueue(const rapidjson::Value& table, const std::string& topic) {
  std::map<int, const rapidjson::Value*> out;
  for (auto& m : table.GetObject()) {
    auto mq = rmq::json::parseMessageQueueKey(rmq::json::keyView(m.name));
    REQUIRE(mq);
    CHECK(mq->brokerName == "broker-a");
    if (mq->topic == topic) out[mq->queueId] = &m.value;
  }
  return out;
}

void commit(TestClient& c, const std::string& addr, const std::string& group, const std::string& topic, int q,
            int64_t offset) {
  REQUIRE(invoke(c, addr, request(RequestCode::UPDATE_CONSUMER_OFFSET,
                                {{"consumerGroup", group}, {"topic", topic}, {"queueId", std::to_string(q)},
                                 {"commitOffset", std::to_string(offset)}})).code == 0);
}

}  // namespace

TEST_CASE("admin queries: by key through the index, by offset id, consume queue units") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "QueryTopic", 2);
  std::vector<std::string> ids;
  std::vector<SendSpec> sends;
  for (int i = 0; i < 3; ++i)
    sends.push_back({.topic = "QueryTopic", .body = "body-" + std::to_string(i), .keys = i < 2 ? "orderKey" : "otherKey",
                     .queueId = i % 2});
  for (auto& answer : sendDispatched(c, addr, sends)) ids.push_back(std::string(answer.extFields.get("msgId")));
  auto byKey = [&](const std::string& key) {
    return invoke(c, addr, request(RequestCode::QUERY_MESSAGE,
                                 {{"topic", "QueryTopic"}, {"key", key}, {"maxNum", "32"}, {"beginTimestamp", "0"},
                                  {"endTimestamp", std::to_string(INT64_MAX)}}));
  };
  CHECK(eventually([&] { return pulledMessages(byKey("orderKey")).size() == 2; }, std::chrono::seconds(5)));
  auto found = byKey("orderKey");
  CHECK(found.code == 0);
  CHECK(extInt(found, "indexLastUpdateTimestamp") > 0);
  auto msgs = pulledMessages(found);
  REQUIRE(msgs.size() == 2);
  std::set<std::string> bodies{msgs[0].body, msgs[1].body};
  CHECK(bodies == std::set<std::string>{"body-0", "body-1"});
  auto none = byKey("absentKey");
  CHECK(none.code == ResponseCode::QUERY_NOT_FOUND);
  CHECK(invoke(c, addr, request(RequestCode::QUERY_MESSAGE, {{"topic", "QueryTopic"}})).code == ResponseCode::SYSTEM_ERROR);

  auto id = parseOffsetMsgId(ids[2]);
  REQUIRE(id);
  auto view = invoke(c, addr, request(RequestCode::VIEW_MESSAGE_BY_ID, {{"offset", std::to_string(id->commitLogOffset)}}));
  REQUIRE(view.code == 0);
  auto viewed = pulledMessages(view);
  REQUIRE(viewed.size() == 1);
  CHECK(viewed[0].body == "body-2");
  CHECK(viewed[0].topic == "QueryTopic");
  CHECK(invoke(c, addr, request(RequestCode::VIEW_MESSAGE_BY_ID, {{"offset", "999999999"}})).code ==
        ResponseCode::SYSTEM_ERROR);

  auto cq = parseBody(invoke(c, addr, request(RequestCode::QUERY_CONSUME_QUEUE,
                                            {{"topic", "QueryTopic"}, {"queueId", "0"}, {"index", "0"}, {"count", "10"},
                                             {"consumerGroup", "cg"}})));
  CHECK(cq["maxQueueIndex"].GetInt64() == 2);
  CHECK(cq["minQueueIndex"].GetInt64() == 0);
  REQUIRE(cq["queueData"].Size() == 2);
  auto first = parseOffsetMsgId(ids[0]);
  CHECK(cq["queueData"][0]["physicOffset"].GetInt64() == first->commitLogOffset);
  CHECK(invoke(c, addr, request(RequestCode::QUERY_CONSUME_QUEUE, {{"topic", "QueryTopic"}, {"queueId", "9"}})).code ==
        ResponseCode::SYSTEM_ERROR);
}

TEST_CASE("admin stats: topic stats, consume stats, time span, consumers of a topic, clone, correction") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "StatsTopic", 2);
  std::vector<SendSpec> sends;
  for (int i = 0; i < 5; ++i) sends.push_back({.topic = "StatsTopic", .queueId = i < 3 ? 0 : 1});
  sendDispatched(c, addr, sends);
  auto stats = parseBody(invoke(c, addr, request(RequestCode::GET_TOPIC_STATS_INFO, {{"topic", "StatsTopic"}})));
  auto queues = byQueue(stats["offsetTable"], "StatsTopic");
  REQUIRE(queues.size() == 2);
  CHECK((*queues[0])["maxOffset"].GetInt64() == 3);
  CHECK((*queues[1])["maxOffset"].GetInt64() == 2);
  CHECK((*queues[0])["minOffset"].GetInt64() == 0);
  CHECK((*queues[0])["lastUpdateTimestamp"].GetInt64() > 0);
  CHECK(invoke(c, addr, request(RequestCode::GET_TOPIC_STATS_INFO, {{"topic", "NoSuchTopic"}})).code ==
        ResponseCode::TOPIC_NOT_EXIST);

  commit(c, addr, "cg_stats", "StatsTopic", 0, 1);
  commit(c, addr, "cg_stats", "StatsTopic", 1, 2);
  auto cs = parseBody(invoke(c, addr, request(RequestCode::GET_CONSUME_STATS, {{"consumerGroup", "cg_stats"}})));
  auto cq = byQueue(cs["offsetTable"], "StatsTopic");
  REQUIRE(cq.size() == 2);
  CHECK((*cq[0])["brokerOffset"].GetInt64() == 3);
  CHECK((*cq[0])["consumerOffset"].GetInt64() == 1);
  CHECK((*cq[1])["consumerOffset"].GetInt64() == 2);
  CHECK((*cq[0])["lastTimestamp"].GetInt64() > 0);
  CHECK(cs.HasMember("consumeTps"));

  auto span = parseBody(invoke(c, addr, request(RequestCode::QUERY_CONSUME_TIME_SPAN,
                                              {{"topic", "StatsTopic"}, {"group", "cg_stats"}})));
  REQUIRE(span["consumeTimeSpanSet"].Size() == 2);
  auto& s0 = span["consumeTimeSpanSet"][0];
  CHECK(s0["minTimeStamp"].GetInt64() > 0);
  CHECK(s0["maxTimeStamp"].GetInt64() >= s0["minTimeStamp"].GetInt64());
  CHECK(std::string(s0["messageQueue"]["topic"].GetString()) == "StatsTopic");
  CHECK(s0["delayTime"].GetInt64() >= 0);

  auto who = parseBody(invoke(c, addr, request(RequestCode::QUERY_TOPIC_CONSUME_BY_WHO, {{"topic", "StatsTopic"}})));
  REQUIRE(who["groupList"].Size() == 1);
  CHECK(std::string(who["groupList"][0].GetString()) == "cg_stats");

  REQUIRE(invoke(c, addr, request(RequestCode::CLONE_GROUP_OFFSET,
                                {{"srcGroup", "cg_stats"}, {"destGroup", "cg_clone"}, {"topic", "StatsTopic"},
                                 {"offline", "true"}})).code == 0);
  auto q = invoke(c, addr, request(RequestCode::QUERY_CONSUMER_OFFSET,
                                 {{"consumerGroup", "cg_clone"}, {"topic", "StatsTopic"}, {"queueId", "1"}}));
  CHECK(q.code == 0);
  CHECK(extInt(q, "offset") == 2);

  commit(c, addr, "cg_clone", "StatsTopic", 0, 3);  // cg_stats stays behind on queue 0
  auto corr = invoke(c, addr, request(RequestCode::QUERY_CORRECTION_OFFSET,
                                    {{"topic", "StatsTopic"}, {"compareGroup", "cg_clone"}, {"filterGroups", ""}}));
  REQUIRE(corr.code == 0);
  CHECK(bodyOf(corr) == "{\"correctionOffsets\":{0:1,1:2}}");

  // Broker-wide consume stats (Java's fetchAllConsumeStatsInBroker): one entry per subscription
  // group (the heartbeat creates cg_stats), a ConsumeStats per topic it has offsets for.
  REQUIRE(invoke(c, addr, heartbeatRequest("127.0.0.1@stats", "cg_stats", {"StatsTopic"})).code == 0);
  auto brokerStats = [&] {
    return parseBody(invoke(c, addr, request(RequestCode::GET_BROKER_CONSUME_STATS, {{"isOrder", "false"}})));
  };
  auto statsOf = [](const rapidjson::Document& d, const char* group) -> const rapidjson::Value* {
    for (const auto& entry : d["consumeStatsList"].GetArray())
      if (entry.HasMember(group)) return &entry[group];
    return nullptr;
  };
  auto bcs = brokerStats();
  CHECK(std::string(bcs["brokerAddr"].GetString()) == addr);
  CHECK(bcs["totalDiff"].GetInt64() == 2);  // (3-1) + (2-2)
  auto* mine = statsOf(bcs, "cg_stats");
  REQUIRE(mine != nullptr);
  CHECK(mine->Size() == 1);
  CHECK(statsOf(bcs, "cg_clone") == nullptr);  // offsets only: not a subscription group

  // A committed offset past the queue's end: Java reports the raw offsets and a negative total
  // (mqadmin brokerConsumeStats prints "Diff Total: -6"; test/reference/lag).
  commit(c, addr, "cg_stats", "StatsTopic", 1, 10);
  bcs = brokerStats();
  CHECK(bcs["totalDiff"].GetInt64() == -6);  // (3-1) + (2-10)
  auto cs2 = parseBody(invoke(c, addr, request(RequestCode::GET_CONSUME_STATS, {{"consumerGroup", "cg_stats"}})));
  auto cq2 = byQueue(cs2["offsetTable"], "StatsTopic");
  REQUIRE(cq2.size() == 2);
  CHECK((*cq2[1])["brokerOffset"].GetInt64() == 2);
  CHECK((*cq2[1])["consumerOffset"].GetInt64() == 10);  // raw, as Java
}

TEST_CASE("admin consume stats: GET_CONSUME_STATS walks the read queues, GET_BROKER_CONSUME_STATS the write queues") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  auto create = createTopicRequest("RwTopic", 4);
  create.extFields.set("readQueueNums", "2");  // Java 4.9.8 AdminBrokerProcessor: getReadQueueNums / getWriteQueueNums
  REQUIRE(invoke(c, addr, create).code == 0);
  for (int q = 0; q < 4; ++q) commit(c, addr, "cg_rw", "RwTopic", q, 0);
  REQUIRE(invoke(c, addr, heartbeatRequest("127.0.0.1@rw", "cg_rw", {"RwTopic"})).code == 0);
  auto cs = parseBody(invoke(c, addr, request(RequestCode::GET_CONSUME_STATS, {{"consumerGroup", "cg_rw"}})));
  CHECK(byQueue(cs["offsetTable"], "RwTopic").size() == 2);
  auto bcs = parseBody(invoke(c, addr, request(RequestCode::GET_BROKER_CONSUME_STATS, {{"isOrder", "false"}})));
  size_t brokerWide = 0;
  for (const auto& entry : bcs["consumeStatsList"].GetArray()) {
    if (!entry.HasMember("cg_rw")) continue;
    for (const auto& stats : entry["cg_rw"].GetArray()) brokerWide += byQueue(stats["offsetTable"], "RwTopic").size();
  }
  CHECK(brokerWide == 4);
}

TEST_CASE("admin runtime info: KVTable with the keys mqadmin brokerStatus and clusterList read") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "RtTopic", 1);
  SendSpec s;
  s.topic = "RtTopic";
  sendOk(c, addr, s);
  auto info = parseBody(invoke(c, addr, request(RequestCode::GET_BROKER_RUNTIME_INFO, {})));
  auto& t = info["table"];
  for (auto key : {"brokerVersion", "brokerVersionDesc", "msgPutTotalTodayNow", "msgGetTotalTodayNow",
                   "msgPutTotalTodayMorning", "msgGetTotalYesterdayMorning", "putTps", "getTransferedTps",
                   "commitLogMinOffset", "commitLogMaxOffset", "commitLogDiskRatio", "bootTimestamp", "runtime",
                   "earliestMessageTimeStamp", "dispatchBehindBytes"}) {
    CHECK_MESSAGE(t.HasMember(key), key);
  }
  CHECK(std::string(t["brokerVersionDesc"].GetString()) == "V4_9_7");
  for (auto& m : t.GetObject()) {  // Java lists a delay level only once it delivered
    CHECK_MESSAGE(std::string(m.name.GetString()).rfind("scheduleMessageOffset_", 0) != 0, m.name.GetString());
  }
  CHECK(std::stoll(t["commitLogMaxOffset"].GetString()) > 0);
  std::string putTps = t["putTps"].GetString();
  CHECK(std::count(putTps.begin(), putTps.end(), ' ') == 2);
  double ratio = std::stod(t["commitLogDiskRatio"].GetString());
  CHECK(ratio > 0.0);
  CHECK(ratio <= 1.0);
  // Java 4.9.8's UtilAll.getDiskPartitionSpaceUsedPercent: used / (used + usable), rounded up to
  // a hundredth (1 - free/total under-reports a file system with reserved blocks).
  struct statvfs st {};
  REQUIRE(::statvfs(node.proc.dir().c_str(), &st) == 0);
  uint64_t used = (st.f_blocks - st.f_bfree) * st.f_frsize, usable = st.f_bavail * st.f_frsize;
  uint64_t percent = used * 100 / (used + usable) + (used * 100 % (used + usable) != 0 ? 1 : 0);
  CHECK(std::abs(ratio - static_cast<double>(percent) / 100.0) <= 0.011);  // the disk may move meanwhile
  // The keys rocketmq-exporter parses without a null check (BrokerRuntimeStats), in Java's formats.
  std::string capacity = t["commitLogDirCapacity"].GetString();
  CHECK_MESSAGE(std::regex_match(capacity, std::regex(R"(Total : [0-9.]+ [KMGTPE]?i?B, Free : [0-9.]+ [KMGTPE]?i?B\.)")),
                capacity);
  std::string toFlush = t["remainHowManyDataToFlush"].GetString();
  CHECK_MESSAGE(std::regex_match(toFlush, std::regex(R"([0-9]+ B|[0-9]+\.[0-9] [KMGTPE]iB)")), toFlush);
  CHECK(std::string(t["putMessageDistributeTime"].GetString()) == "null");  // no whole minute yet
  CHECK(std::string(t["putLatency99"].GetString()) == "0.00");
  CHECK(std::string(t["putMessageFailedTimes"].GetString()) == "0");
  CHECK(t.HasMember("putLatency999"));
  CHECK_FALSE(t.HasMember("remainHowManyDataToCommit"));  // Java: only with transientStorePoolEnable
  CHECK(eventually([&] {
    auto again = parseBody(invoke(c, addr, request(RequestCode::GET_BROKER_RUNTIME_INFO, {})));
    return std::stoll(again["table"]["msgPutTotalTodayNow"].GetString()) >= 1;
  }, std::chrono::seconds(5)));
}

TEST_CASE("admin runtime info: pulls show up in the get totals and get TPS figures") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "RtGetTopic", 1);
  sendDispatched(c, addr, {{.topic = "RtGetTopic", .body = "get-0"}, {.topic = "RtGetTopic", .body = "get-1"},
                           {.topic = "RtGetTopic", .body = "get-2"}});
  REQUIRE(pullMessages(c, addr, {.group = "cg_admin", .topic = "RtGetTopic"}).size() == 3);  // one found pull, 3 messages
  CHECK(pullMessages(c, addr, {.group = "cg_admin", .topic = "RtGetTopic", .offset = 3}).empty());  // one miss (nothing new)
  // The sampler reads the counters once a second; wait until it has seen both pulls.
  rapidjson::Document last;
  CHECK(eventually([&] {
    last = parseBody(invoke(c, addr, request(RequestCode::GET_BROKER_RUNTIME_INFO, {})));
    auto& t = last["table"];
    return std::stoll(t["msgGetTotalTodayNow"].GetString()) == 3 && std::stod(t["getMissTps"].GetString()) > 0 &&
           std::stod(t["getFoundTps"].GetString()) > 0;
  }, std::chrono::seconds(8)));
  auto& t = last["table"];
  CHECK(std::stoll(t["msgGetTotalTodayNow"].GetString()) == 3);
  CHECK(std::stod(t["getTransferedTps"].GetString()) > 0);
  CHECK(std::stod(t["getTotalTps"].GetString()) >= std::stod(t["getFoundTps"].GetString()));
  // The pulling group's consume TPS (messages it pulled per second over the last minute).
  auto consumeTps = [&] {
    auto stats = parseBody(invoke(c, addr, request(RequestCode::GET_CONSUME_STATS,
                                                 {{"consumerGroup", "cg_admin"}, {"topic", "RtGetTopic"}})));
    return stats["consumeTps"].GetDouble();
  };
  CHECK(eventually([&] { return consumeTps() > 0; }, std::chrono::seconds(5)));
  auto otherGroup = parseBody(invoke(c, addr, request(RequestCode::GET_CONSUME_STATS,
                                                    {{"consumerGroup", "cg_idle"}, {"topic", "RtGetTopic"}})));
  CHECK(otherGroup["consumeTps"].GetDouble() == 0.0);
}

TEST_CASE("admin offset moved: a pull answered PULL_OFFSET_MOVED stores an OFFSET_MOVED_EVENT message") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "MovedTopic", 1);
  sendDispatched(c, addr, {{.topic = "MovedTopic"}, {.topic = "MovedTopic"}});
  PullSpec p;
  p.group = "cg_moved";
  p.topic = "MovedTopic";
  p.offset = 50;
  auto moved = invoke(c, addr, pullRequest(p));
  REQUIRE(moved.code == ResponseCode::PULL_OFFSET_MOVED);
  int64_t offsetNew = extInt(moved, "nextBeginOffset");
  REQUIRE(dispatched(c, addr, "OFFSET_MOVED_EVENT", 0, 1));
  auto events = pullMessages(c, addr, {.topic = "OFFSET_MOVED_EVENT"});
  REQUIRE(events.size() == 1);
  CHECK(events[0].tags() == "cg_moved");
  rapidjson::Document ev;
  ev.Parse(events[0].body.data(), events[0].body.size());
  REQUIRE(ev.IsObject());
  CHECK(std::string(ev["consumerGroup"].GetString()) == "cg_moved");
  CHECK(std::string(ev["messageQueue"]["topic"].GetString()) == "MovedTopic");
  CHECK(std::string(ev["messageQueue"]["brokerName"].GetString()) == "broker-a");
  CHECK(ev["messageQueue"]["queueId"].GetInt() == 0);
  CHECK(ev["offsetRequest"].GetInt64() == 50);
  CHECK(ev["offsetNew"].GetInt64() == offsetNew);
  // A pull that is merely at the end (PULL_NOT_FOUND) writes no event.
  p.offset = 2;
  CHECK(invoke(c, addr, pullRequest(p)).code == ResponseCode::PULL_NOT_FOUND);
  CHECK(pullMessages(c, addr, {.topic = "OFFSET_MOVED_EVENT", .offset = 1}).empty());
}
