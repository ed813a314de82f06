// The limits in time kept by one ConnectionWatchdog per io thread (a sweep, not a timer per
// connection), and requests answered later (Connection::answerLater): real loopback sockets.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "common/response_code.h"
#include "net/dispatcher.h"
#include "support/node_process.h"  // connectLoopback, eventually
#include "unit/net/net_test_util.h"

using namespace rmq;
using namespace rmq::net;
using namespace std::chrono_literals;
using rmq::net::test::RawSocket;
using rmq::net::test::ServerFixture;

namespace {

constexpr int kEcho = 200, kLater = 210;

void registerEcho(Dispatcher& d) {
  d.registerProcessor(kEcho, [](ConnectionPtr, RemotingCommand) {
    return answered(RemotingCommand::response(ResponseCode::SUCCESS, std::string("echo")));
  });
}

RemotingCommand request(int code, int opaque) {
  auto cmd = RemotingCommand::request(code);
  cmd.opaque = opaque;
  return cmd;
}

bool peerClosed(int fd) {  // EOF or reset seen without blocking
  char c;
  ssize_t n = ::recv(fd, &c, 1, MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

}  // namespace

TEST_CASE("watchdog: one sweep per io thread closes thousands of idle connections; busy ones stay open") {
  ConnectionOptions o;
  o.idleTimeout = 3s;
  ServerFixture f(o);  // 2 io threads: ~1,000 connections on each
  registerEcho(*f.dispatcher);
  REQUIRE(f.start());
  std::vector<int> idle;
  for (int i = 0; i < 2000; ++i) {
    int fd = rmq::test::connectLoopback(f.server->port());  // bare sockets: no io_context each
    REQUIRE(fd >= 0);
    idle.push_back(fd);
  }
  std::vector<std::unique_ptr<RawSocket>> busy;
  for (int i = 0; i < 4; ++i) busy.push_back(std::make_unique<RawSocket>(f.server->port()));
  REQUIRE(rmq::test::eventually([&] { return f.server->connectionCount() == 2004; }, 5s));
  CHECK(std::none_of(idle.begin(), idle.end(), peerClosed));  // not before their time

  // The busy ones talk every 500 ms (well within 3 s) while the idle ones pass their deadline.
  int opaque = 0;
  bool busyServed = true;
  bool idleClosed = false;
  for (int round = 0; round < 40 && !idleClosed; ++round) {  // 20 s at most
    for (auto& s : busy) {
      s->send(request(kEcho, ++opaque));
      auto r = s->readFrame();
      busyServed = busyServed && r && r->opaque == opaque;
    }
    std::this_thread::sleep_for(500ms);
    idleClosed = std::all_of(idle.begin(), idle.end(), peerClosed);
  }
  CHECK(idleClosed);
  CHECK(busyServed);
  CHECK(rmq::test::eventually([&] { return f.server->connectionCount() == 4; }, 2s));
  for (auto& s : busy) {
    s->send(request(kEcho, ++opaque));
    auto r = s->readFrame();
    REQUIRE(r);
    CHECK(r->opaque == opaque);
  }
  for (int fd : idle) ::close(fd);
}

TEST_CASE("answerLater: the answer comes from another thread; the request counts in flight until then; "
          "one dropped unsent ends unanswered") {
  ConnectionOptions o;
  o.maxInFlightRequests = 1;  // a later answer still running holds back the next request
  ServerFixture f(o);
  registerEcho(*f.dispatcher);
  std::mutex mu;
  std::vector<LaterAnswer> owed;
  std::atomic<bool> otherRefused{true};
  f.dispatcher->registerProcessor(kLater, [&](ConnectionPtr conn, RemotingCommand req) {
    auto other = request(kLater, req.opaque + 1000);  // not the request being handed over
    if (conn->answerLater(other)) otherRefused = false;
    auto later = conn->answerLater(req);
    if (!later) return answered(RemotingCommand::response(ResponseCode::SYSTEM_ERROR, std::string("not taken")));
    std::lock_guard lk(mu);
    owed.push_back(std::move(later));
    return answered(RemotingCommand::response(ResponseCode::SYSTEM_ERROR, std::string("dropped")));  // not sent
  });
  REQUIRE(f.start());
  RawSocket s(f.server->port());
  auto takeOwed = [&] {
    LaterAnswer a;
    REQUIRE(rmq::test::eventually(
        [&] {
          std::lock_guard lk(mu);
          return !owed.empty();
        },
        5s));
    std::lock_guard lk(mu);
    a = std::move(owed.front());
    owed.erase(owed.begin());
    return a;
  };

  s.send(request(kLater, 1));
  s.send(request(kEcho, 2));  // waits: request 1 is still in flight
  auto first = takeOwed();
  std::thread answerer([a = std::move(first)]() mutable {
    std::this_thread::sleep_for(50ms);
    a.send(RemotingCommand::response(ResponseCode::SUCCESS, std::string("later")));
  });
  auto r1 = s.readFrame();
  auto r2 = s.readFrame();
  answerer.join();
  REQUIRE(r1);
  REQUIRE(r2);
  CHECK(r1->opaque == 1);  // the echo ran only after the later answer
  CHECK(r1->code == ResponseCode::SUCCESS);
  CHECK(r1->remark == std::optional<std::string>("later"));
  CHECK(r1->isResponse());
  CHECK(r2->opaque == 2);

  s.send(request(kLater, 3));
  s.send(request(kEcho, 4));
  { auto dropped = takeOwed(); }  // destroyed unsent: request 3 ends without an answer
  auto r4 = s.readFrame();
  REQUIRE(r4);
  CHECK(r4->opaque == 4);
  CHECK(otherRefused.load());
}
