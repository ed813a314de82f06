#pragma once
// A fake name server on 127.0.0.1 for client unit tests: its route for every topic is one broker
// "b" (cluster "C", one read / write queue) whose nodes are `brokers` (id -> addr); it counts the
// route requests and can answer them late (routeDelay).
#include <doctest/doctest.h>

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <chrono>
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
          ++routeRequests;
          if (routeDelay.count() > 0) {
            asio::steady_timer timer(co_await asio::this_coro::executor, routeDelay);
            co_await timer.async_wait(asio::use_awaitable);
          }
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
  std::atomic<int> routeRequests{0};             // GET_ROUTEINFO_BY_TOPIC requests answered
  std::chrono::milliseconds routeDelay{0};       // set before use: each route answer waits this long
  net::test::ServerFixture fx;
};

}  // namespace rmq::client::test
