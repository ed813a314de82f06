// ClientInstance::refreshRouteAfterFailure against a fake name server on 127.0.0.1: concurrent
// failures share one fetch, a second failure inside the interval uses the cache, a later one
// fetches the new route.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "client/client_instance.h"
#include "unit/client/fake_namesrv.h"

using namespace rmq;
using namespace rmq::client;
using rmq::client::test::FakeNamesrv;

namespace {

// Polls `cond` every 10 ms for up to 5 s.
bool eventually(const std::function<bool()>& cond) {
  for (int i = 0; i < 500; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}

}  // namespace

TEST_CASE("route refresh after a failed send: shared by concurrent failures, at most once per interval") {
  FakeNamesrv ns;
  ns.setBrokers({{0, "127.0.0.1:1"}});
  ns.routeDelay = std::chrono::milliseconds(150);  // the fetch is still under way when the others fail
  ClientConfig cfg;
  cfg.namesrvAddr = ns.fx.addr();
  cfg.clientIp = "127.0.0.1";
  cfg.routeRefreshAfterFailureInterval = std::chrono::milliseconds(1500);
  auto inst = ClientInstance::create(cfg, "127.0.0.1@refresh");
  REQUIRE(inst->start().ok());

  std::atomic<int> done{0}, okWithMaster{0};
  for (int i = 0; i < 5; ++i) {
    inst->spawn([](ClientInstance* self, std::atomic<int>* d, std::atomic<int>* good) -> asio::awaitable<void> {
      auto r = co_await self->refreshRouteAfterFailure("T");
      if (r && r->brokerDatas.size() == 1 && r->brokerDatas[0].brokerAddrs.at(0) == "127.0.0.1:1") ++*good;
      ++*d;
    }(inst.get(), &done, &okWithMaster));
  }
  REQUIRE(eventually([&] { return done == 5; }));
  CHECK(okWithMaster == 5);
  CHECK(ns.routeRequests == 1);
  CHECK(inst->routeRefreshesAfterFailure() == 1);
  CHECK(inst->masterAddr("b") == "127.0.0.1:1");

  // The group's master moves. A failure right after the fetch gets the cached route, no request.
  ns.setBrokers({{0, "127.0.0.1:2"}});
  auto cached = inst->runSync(inst->refreshRouteAfterFailure("T"));
  REQUIRE(cached.ok());
  CHECK(cached->brokerDatas[0].brokerAddrs.at(0) == "127.0.0.1:1");
  CHECK(ns.routeRequests == 1);
  // Once the interval has passed a failure fetches again and sees the new master.
  REQUIRE(eventually([&] {
    auto r = inst->runSync(inst->refreshRouteAfterFailure("T"));
    return r.ok() && inst->masterAddr("b") == "127.0.0.1:2";
  }));
  CHECK(inst->routeRefreshesAfterFailure() == ns.routeRequests.load());
  // Another topic has its own interval.
  REQUIRE(inst->runSync(inst->refreshRouteAfterFailure("U")).ok());
  CHECK(inst->routeRefreshesAfterFailure() == ns.routeRequests.load());
  inst->shutdown();
}
