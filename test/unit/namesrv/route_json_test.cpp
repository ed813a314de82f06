#include <doctest/doctest.h>

#include <zlib.h>

#include "common/bytes.h"
#include "roles/namesrv/register_body.h"
#include "roles/namesrv/route_data.h"

using namespace rmq::namesrv;

TEST_CASE("route JSON: fastjson form with integer keys vs standard form") {
  TopicRouteData r;
  r.queueDatas.push_back(QueueData{"broker-a", 4, 4, 6, 0});
  r.brokerDatas.push_back(BrokerData{"DefaultCluster", "broker-a", {{0, "10.0.0.1:10911"}, {1, "10.0.0.2:10911"}}});
  CHECK(encodeTopicRouteData(r, false) ==
        "{\"brokerDatas\":[{\"brokerAddrs\":{0:\"10.0.0.1:10911\",1:\"10.0.0.2:10911\"},\"brokerName\":\"broker-a\","
        "\"cluster\":\"DefaultCluster\"}],\"filterServerTable\":{},\"queueDatas\":[{\"brokerName\":\"broker-a\","
        "\"perm\":6,\"readQueueNums\":4,\"topicSysFlag\":0,\"writeQueueNums\":4}]}");
  auto standard = encodeTopicRouteData(r, true);
  CHECK(standard.find("\"brokerAddrs\":{\"0\":\"10.0.0.1:10911\",\"1\":\"10.0.0.2:10911\"}") != std::string::npos);

  r.brokerDatas[0].cluster = "集群";
  r.orderTopicConf = "broker-a:4";
  auto escaped = encodeTopicRouteData(r, true);
  CHECK(escaped.find("\"cluster\":\"\\u96C6\\u7FA4\"") != std::string::npos);
  CHECK(escaped.find("\"orderTopicConf\":\"broker-a:4\",\"queueDatas\"") != std::string::npos);
  CHECK(encodeTopicRouteData(r, false).find("\"cluster\":\"集群\"") != std::string::npos);
}

TEST_CASE("topic list, KV table, data version JSON") {
  CHECK(encodeTopicList({"A", "B"}) == "{\"topicList\":[\"A\",\"B\"]}");
  CHECK(encodeTopicList({"c"}, std::string("x:1")) == "{\"brokerAddr\":\"x:1\",\"topicList\":[\"c\"]}");
  CHECK(encodeKvTable({{"k", "v"}}) == "{\"table\":{\"k\":\"v\"}}");
  CHECK(encodeDataVersion({17, 3}) == "{\"counter\":3,\"timestamp\":17}");
  CHECK(encodeDataVersion({17, 3, 0}) == "{\"counter\":3,\"stateVersion\":0,\"timestamp\":17}");
  CHECK(encodeDataVersion({17, 3, 8}) == "{\"counter\":3,\"stateVersion\":8,\"timestamp\":17}");
}

TEST_CASE("RegisterBrokerBody: stateVersion (5.x / failover brokers) is read when present, absent otherwise") {
  auto with = decodeRegisterBrokerBody(
      "{\"filterServerList\":[],\"topicConfigSerializeWrapper\":{\"dataVersion\":{\"counter\":2,"
      "\"stateVersion\":11,\"timestamp\":5},\"topicConfigTable\":{}}}",
      false);
  REQUIRE(with);
  CHECK(with->dataVersion.stateVersion == 11);
  CHECK(with->dataVersion.counter == 2);
  auto without = decodeRegisterBrokerBody(
      "{\"topicConfigSerializeWrapper\":{\"dataVersion\":{\"counter\":2,\"timestamp\":5}}}", false);
  REQUIRE(without);
  CHECK_FALSE(without->dataVersion.stateVersion.has_value());
  auto dv = decodeDataVersion("{\"counter\":1,\"stateVersion\":\"3\",\"timestamp\":2}");
  REQUIRE(dv);
  CHECK(dv->stateVersion == 3);
}

TEST_CASE("RegisterBrokerBody JSON and bare wrapper decode") {
  std::string json =
      "{\"filterServerList\":[\"f:1\"],\"topicConfigSerializeWrapper\":{\"dataVersion\":{\"counter\":12,"
      "\"timestamp\":1700000000000},\"topicConfigTable\":{\"TopicTest\":{\"order\":false,\"perm\":6,"
      "\"readQueueNums\":4,\"topicFilterType\":\"SINGLE_TAG\",\"topicName\":\"TopicTest\",\"topicSysFlag\":1,"
      "\"writeQueueNums\":2}}}}";
  auto b = decodeRegisterBrokerBody(json, false);
  REQUIRE(b);
  CHECK(b->dataVersion == DataVersion{1700000000000, 12});
  REQUIRE(b->topics.size() == 1);
  CHECK(b->topics[0].topicName == "TopicTest");
  CHECK(b->topics[0].readQueueNums == 4);
  CHECK(b->topics[0].writeQueueNums == 2);
  CHECK(b->topics[0].topicSysFlag == 1);
  CHECK(*b->filterServerList == std::vector<std::string>{"f:1"});

  auto w = decodeTopicConfigWrapper("{\"dataVersion\":{\"counter\":1,\"timestamp\":2},\"topicConfigTable\":{}}");
  REQUIRE(w);
  CHECK(w->dataVersion == DataVersion{2, 1});
  CHECK_FALSE(w->filterServerList.has_value());

  CHECK_FALSE(decodeRegisterBrokerBody("{not json", false));
}

TEST_CASE("compressed RegisterBrokerBody decode and crc32") {
  std::string raw;
  auto block = [&](std::string_view s) {
    rmq::putBE32(raw, static_cast<uint32_t>(s.size()));
    raw.append(s);
  };
  block("{\"counter\":5,\"timestamp\":9}");
  rmq::putBE32(raw, 2);
  block("TopicA 8 4 6 SINGLE_TAG");
  block("TopicB 1 1 2 MULTI_TAG");
  block("[]");
  uLongf size = compressBound(raw.size());
  std::string z(size, '\0');
  REQUIRE(compress2(reinterpret_cast<Bytef*>(z.data()), &size, reinterpret_cast<const Bytef*>(raw.data()), raw.size(),
                    Z_BEST_COMPRESSION) == Z_OK);
  z.resize(size);
  auto b = decodeRegisterBrokerBody(z, true);
  REQUIRE_MESSAGE(b, (b ? "" : b.error().message));
  CHECK(b->dataVersion == DataVersion{9, 5});
  REQUIRE(b->topics.size() == 2);
  CHECK(b->topics[0].topicName == "TopicA");
  CHECK(b->topics[0].readQueueNums == 8);
  CHECK(b->topics[0].writeQueueNums == 4);
  CHECK(b->topics[1].perm == 2);
  CHECK(b->filterServerList->empty());

  CHECK_FALSE(decodeRegisterBrokerBody(z.substr(0, z.size() / 2), true));
  CHECK_FALSE(decodeRegisterBrokerBody("not zlib", true));

  // java.util.zip.CRC32 of "123456789" is 0xCBF43926; & 0x7FFFFFFF = 0x4BF43926.
  CHECK(rocketmqCrc32("123456789") == 0x4BF43926);
}
