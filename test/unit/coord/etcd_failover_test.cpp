// EtcdClient's endpoint failover: a three-member etcd cluster, and endpoints that never answer.
#include <doctest/doctest.h>

#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <chrono>
#include <thread>

#include "coord/etcd_client.h"
#include "coord_test_util.h"
#include "etcd_cluster.h"

using namespace rmq::coord;
using rmq::coord::test::runOn;
using Clock = std::chrono::steady_clock;

namespace {

// A port that accepts TCP connections (the kernel completes them in the backlog) and never
// answers: a member that hangs.
struct BlackHole {
  BlackHole() : acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    acceptor.listen(16);
  }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()); }
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor;
};

long long msSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

}  // namespace

TEST_CASE("etcd client failover: with the member the client uses killed, the next call goes through another") {
  rmq::test::EtcdCluster etcd(3);
  etcd.start();
  auto leader = etcd.leader();
  REQUIRE(leader);
  // The client starts on a follower: killing it leaves a quorum with its leader, so the next call
  // must succeed in its one round over the endpoints.
  const size_t used = (*leader + 1) % 3;
  std::vector<std::string> endpoints{etcd.endpoint(used), etcd.endpoint((used + 1) % 3), etcd.endpoint((used + 2) % 3)};
  asio::io_context io;
  EtcdClient client(io.get_executor(), EtcdOptions{.endpoints = endpoints});
  REQUIRE(runOn(io, client.put("/rmq/failover", "before")));
  CHECK(client.currentEndpoint() == etcd.endpoint(used));

  etcd.kill(used);
  auto after = runOn(io, client.range("/rmq/failover"));
  REQUIRE_MESSAGE(after, after.error().message);
  REQUIRE(after->size() == 1);
  CHECK((*after)[0].value == "before");
  CHECK(client.currentEndpoint() != etcd.endpoint(used));
  REQUIRE(runOn(io, client.put("/rmq/failover", "after")));

  // The killed member comes back and catches up; the client stays where it is until that fails.
  const std::string current = client.currentEndpoint();
  REQUIRE(etcd.restart(used));
  CHECK(runOn(io, client.range("/rmq/failover"))->at(0).value == "after");
  CHECK(client.currentEndpoint() == current);
}

TEST_CASE("etcd client failover: with the leader killed, calls succeed again once the others elect one") {
  rmq::test::EtcdCluster etcd(3);
  etcd.start();
  auto leader = etcd.leader();
  REQUIRE(leader);
  std::vector<std::string> endpoints{etcd.endpoint(*leader), etcd.endpoint((*leader + 1) % 3),
                                     etcd.endpoint((*leader + 2) % 3)};
  asio::io_context io;
  EtcdClient client(io.get_executor(), EtcdOptions{.endpoints = endpoints, .requestTimeout = std::chrono::milliseconds(500)});
  REQUIRE(runOn(io, client.put("/rmq/leader", "1")));
  etcd.kill(*leader);
  bool written = false;
  std::string lastError;
  const auto start = Clock::now();
  while (!written && msSince(start) < 20000) {  // bounded: an election takes about a second
    auto r = runOn(io, client.put("/rmq/leader", "2"));
    written = r.ok();
    if (!written) {
      CHECK(r.error().code == kEtcdUnavailable);
      lastError = r.error().message;
    }
  }
  REQUIRE_MESSAGE(written, lastError);
  CHECK(client.currentEndpoint() != etcd.endpoint(*leader));
  CHECK(runOn(io, client.range("/rmq/leader"))->at(0).value == "2");
}

TEST_CASE("etcd client failover: endpoints that refuse or never answer fail within requestTimeout each") {
  BlackHole hole1, hole2;
  const auto refused = "127.0.0.1:" + std::to_string(rmq::test::freePort());  // nothing listens there
  asio::io_context io;
  EtcdClient client(io.get_executor(), EtcdOptions{.endpoints = {hole1.endpoint(), refused, hole2.endpoint()},
                                                   .requestTimeout = std::chrono::milliseconds(300)});
  const auto start = Clock::now();
  auto r = runOn(io, client.range("/rmq/x"));
  const auto elapsed = msSince(start);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == kEtcdUnavailable);
  const auto& msg = r.error().message;
  CHECK(msg.find("etcd " + hole1.endpoint() + ": timeout after 300ms") != std::string::npos);
  CHECK(msg.find("etcd " + refused + ": connect:") != std::string::npos);
  CHECK(msg.find("etcd " + hole2.endpoint() + ": timeout after 300ms") != std::string::npos);
  CHECK(elapsed >= 550);   // two timeouts ran out (timers never fire early)
  CHECK(elapsed < 2500);   // and nothing waited longer than its timeout
  CHECK(client.currentEndpoint() == hole1.endpoint());  // no endpoint answered: unchanged
}

TEST_CASE("etcd client: close() ends a call in progress and later calls at once") {
  BlackHole hole;
  asio::io_context io;
  EtcdClient client(io.get_executor(), EtcdOptions{.endpoints = {hole.endpoint()}, .requestTimeout = std::chrono::seconds(20)});
  asio::steady_timer soon(io, std::chrono::milliseconds(200));
  soon.async_wait([&](asio::error_code) { client.close(); });
  const auto start = Clock::now();
  auto r = runOn(io, client.leaseKeepAlive(1));
  REQUIRE_FALSE(r);
  CHECK(r.error().code == kEtcdUnavailable);
  CHECK(r.error().message.find("client closed") != std::string::npos);
  CHECK(msSince(start) < 10000);
  auto later = runOn(io, client.range("/x"));
  REQUIRE_FALSE(later);
  CHECK(later.error().message == "etcd: client closed");
}

TEST_CASE("etcd client: no endpoints is an error, not a hang") {
  asio::io_context io;
  EtcdClient client(io.get_executor(), EtcdOptions{});
  auto r = runOn(io, client.put("/x", "y"));
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "etcd: no endpoints configured");
  CHECK(client.currentEndpoint().empty());
}
