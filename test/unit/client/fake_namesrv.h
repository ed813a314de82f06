#pragma once
// A fake name server on 127.0.0.1 for client unit tests: its route for every topic is one broker
// "b" (cluster "C", one read / write queue) whose nodes are `brokers` (id -> addr).
#include <doctest/doctest.h>

#include <map>
#include <mutex>
#include <string>

#include "common/request_code.h"
#include "common/response_code.h"
#include "unit/net/net_test_util.h"

namespace rmq::client::test {

struct FakeNamesrv {
  FakeNamesrv() {
    fx.dispatcher->registerProcessor(
        RequestCode::GET_ROUTEINFO_BY_TOPIC,
        [this](net::ConnectionPtr, net::RemotingCommand) -> asio::awaitable<std::optional<net::RemotingCommand>> {
          std::string addrs;
          {
            std::lock_guard lk(mu);
            for (auto& [id, a] : brokers) addrs += (addrs.empty() ? "" : ",") + std::to_string(id) + ":\"" + a + "\"";
          }
          auto resp = net::RemotingCommand::response(ResponseCode::SUCCESS);
          resp.body = R"({"brokerDatas":[{"brokerAddrs":{)" + addrs +
                      R"(},"brokerName":"b","cluster":"C"}],"queueDatas":[{"brokerName":"b","perm":6,)"
                      R"("readQueueNums":1,"writeQueueNums":1,"topicSysFlag":0}]})";
          co_return resp;
        });
    REQUIRE(fx.start());
  }
  void setBrokers(std::map<int64_t, std::string> b) {
    std::lock_guard lk(mu);
    brokers = std::move(b);
  }
  std::mutex mu;
  std::map<int64_t, std::string> brokers;
  net::test::ServerFixture fx;
};

}  // namespace rmq::client::test
