// What a slow or hostile peer can cost a RemotingServer (ConnectionOptions): incomplete frames
// closed after partialFrameTimeout, output bounded by maxPendingWriteBytes (the server stops
// reading that peer), running requests bounded by maxInFlightRequests, a peer that never reads
// closed after writeStallTimeout; frames cut anywhere still decode. Real loopback sockets.
#include <doctest/doctest.h>

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include "common/response_code.h"
#include "net/tcp_connection.h"
#include "unit/net/net_test_util.h"

using namespace rmq;
using namespace rmq::net;
using namespace std::chrono_literals;
using test::RawSocket;
using test::ServerFixture;

namespace {

constexpr int kEcho = 200, kBig = 201, kHold = 202;

void registerEcho(Dispatcher& d) {
  d.registerProcessor(kEcho, [](ConnectionPtr, RemotingCommand req) -> asio::awaitable<std::optional<RemotingCommand>> {
    auto resp = RemotingCommand::response(ResponseCode::SUCCESS, std::string("echo"));
    resp.body = req.body;
    co_return resp;
  });
}

RemotingCommand echo(int opaque, std::string body) {
  auto cmd = RemotingCommand::request(kEcho);
  cmd.opaque = opaque;
  cmd.body = std::move(body);
  return cmd;
}

// Polls `cond` every 10 ms for up to `limit`.
template <class F>
bool within(std::chrono::milliseconds limit, F cond) {
  for (auto end = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < end;
       std::this_thread::sleep_for(10ms))
    if (cond()) return true;
  return cond();
}

// Sends a frame the server may refuse mid-way (it closes after reading a bad length: EPIPE here).
void sendRefusable(RawSocket& s, const RemotingCommand& cmd) {
  try {
    s.send(cmd);
  } catch (const std::exception&) {
  }
}

// kHold: counts its start, then waits until `release` is set and answers SUCCESS with `remark`.
void registerHold(Dispatcher& d, std::atomic<int>& started, std::shared_ptr<std::atomic<bool>> release,
                  std::string remark) {
  d.registerProcessor(kHold, [&started, release, remark](ConnectionPtr, RemotingCommand) -> asio::awaitable<std::optional<RemotingCommand>> {
    ++started;
    asio::steady_timer t(co_await asio::this_coro::executor);
    while (!release->load()) {
      t.expires_after(10ms);
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return RemotingCommand::response(ResponseCode::SUCCESS, remark);
  });
}

ConnectionOptions options() {
  ConnectionOptions o;
  o.idleTimeout = 0s;
  return o;
}

}  // namespace

TEST_CASE("limits: frames cut at every byte, several per segment, and big ones decode") {
  ServerFixture f(options());
  registerEcho(*f.dispatcher);
  REQUIRE(f.start());
  RawSocket s(f.server->port());
  std::string three = encodeFrame(echo(1, "one")) + encodeFrame(echo(2, std::string(300, 'b'))) + encodeFrame(echo(3, "3"));
  for (char c : three) s.write(std::string(1, c));  // the length prefix and header cut too
  for (int i = 1; i <= 3; ++i) {
    auto r = s.readFrame();
    REQUIRE(r);
    CHECK(r->opaque == i);
  }
  // One and a half frames, then the rest of a 3 MiB frame in pieces (read straight into its buffer).
  std::string big = encodeFrame(echo(5, std::string(3 << 20, 'x')));
  std::string first = encodeFrame(echo(4, "four")) + big.substr(0, 1000);
  s.write(first);
  for (size_t off = 1000; off < big.size(); off += 700'000) {
    std::this_thread::sleep_for(20ms);
    s.write(big.substr(off, 700'000));
  }
  auto r4 = s.readFrame();
  REQUIRE(r4);
  CHECK(r4->body == "four");
  auto r5 = s.readFrame();
  REQUIRE(r5);
  CHECK(r5->opaque == 5);
  CHECK(r5->body.size() == size_t(3 << 20));
}

TEST_CASE("limits: a frame left incomplete is closed after partialFrameTimeout; others are served") {
  auto o = options();
  o.partialFrameTimeout = 1s;
  ServerFixture f(o);
  registerEcho(*f.dispatcher);
  std::atomic<int> closed{0};
  f.server->onConnectionClosed([&](const ConnectionPtr&) { ++closed; });
  REQUIRE(f.start());

  RawSocket lengthOnly(f.server->port());
  lengthOnly.write(std::string("\0\0", 2));  // half a length prefix
  std::string frame = encodeFrame(echo(1, std::string(100, 'p')));
  RawSocket drip(f.server->port());  // slowloris: a byte every 200 ms keeps it from being idle
  drip.write(frame.substr(0, 10));
  bool dripClosed = false;
  for (size_t i = 10; i < 40 && !dripClosed; ++i) {  // 6 s at most; the deadline is 1 s
    std::this_thread::sleep_for(200ms);
    try {
      drip.write(frame.substr(i, 1));
    } catch (const std::exception&) {
      dripClosed = true;  // EPIPE / reset: the server closed it
    }
  }
  CHECK((dripClosed || drip.closedByPeer()));
  CHECK(lengthOnly.closedByPeer());

  // A frame completed within the deadline, in two pieces, is answered.
  RawSocket healthy(f.server->port());
  healthy.write(frame.substr(0, 50));
  std::this_thread::sleep_for(300ms);
  healthy.write(frame.substr(50));
  auto r = healthy.readFrame();
  REQUIRE(r);
  CHECK(r->opaque == 1);
  CHECK(within(2s, [&] { return closed.load() == 2; }));
}

TEST_CASE("limits: a peer that never reads stops being read, others are served, then it is closed") {
  auto o = options();
  o.maxPendingWriteBytes = 1 << 20;
  o.writeStallTimeout = 3s;
  ServerFixture f(o);
  std::atomic<int> handled{0};
  f.dispatcher->registerProcessor(kBig, [&handled](ConnectionPtr, RemotingCommand) -> asio::awaitable<std::optional<RemotingCommand>> {
    ++handled;
    auto resp = RemotingCommand::response(ResponseCode::SUCCESS);
    resp.body.assign(256 * 1024, 'r');
    co_return resp;
  });
  registerEcho(*f.dispatcher);
  std::atomic<int> closed{0};
  f.server->onConnectionClosed([&](const ConnectionPtr&) { ++closed; });
  REQUIRE(f.start());

  RawSocket stuck(f.server->port(), 64 * 1024);
  std::string requests;
  for (int i = 0; i < 400; ++i) {
    auto req = RemotingCommand::request(kBig);
    req.opaque = i;
    requests += encodeFrame(req);
  }
  stuck.write(requests);  // ~20 KB: the kernel takes it all; 400 x 256 KiB = 100 MiB of answers
  // Kernel buffers (server send, client receive) take a few MiB; then 1 MiB queued and no more.
  std::this_thread::sleep_for(1500ms);
  int plateau = handled.load();
  CHECK(plateau > 0);
  CHECK(plateau < 100);

  RawSocket healthy(f.server->port());  // same server threads, unaffected
  healthy.send(echo(7, "still here"));
  auto r = healthy.readFrame();
  REQUIRE(r);
  CHECK(r->body == "still here");
  CHECK(handled.load() < 100);
  // No byte taken for writeStallTimeout: closed (and reported), its queue released.
  CHECK(within(10s, [&] { return closed.load() == 1; }));
  CHECK(handled.load() < 100);
}

TEST_CASE("limits: requests beyond maxInFlightRequests wait in the socket until one finishes") {
  auto o = options();
  o.maxInFlightRequests = 8;
  ServerFixture f(o);
  std::atomic<int> started{0};
  auto release = std::make_shared<std::atomic<bool>>(false);
  registerHold(*f.dispatcher, started, release, "held");
  REQUIRE(f.start());
  RawSocket s(f.server->port());
  std::string requests;
  for (int i = 0; i < 50; ++i) {
    auto req = RemotingCommand::request(kHold);
    req.opaque = i;
    requests += encodeFrame(req);
  }
  s.write(requests);
  CHECK(within(5s, [&] { return started.load() == 8; }));
  std::this_thread::sleep_for(300ms);
  CHECK(started.load() == 8);
  release->store(true);
  for (int i = 0; i < 50; ++i) {
    auto r = s.readFrame();
    REQUIRE(r);
    CHECK(r->remark == "held");
  }
  CHECK(started.load() == 50);
}

TEST_CASE("limits: with a held answer, a connection at maxInFlightRequests reads on into a bounded hold; the "
          "answer replaces held requests' handlers, a full hold is asked at once, the rest run in read order") {
  auto o = options();
  o.maxInFlightRequests = 2;
  ServerFixture f(o);
  std::atomic<int> started{0};
  auto release = std::make_shared<std::atomic<bool>>(false);
  registerHold(*f.dispatcher, started, release, "ran");
  std::atomic<bool> answerOdd{false};
  f.server->setHeldAnswer([&answerOdd](const RemotingCommand& req, std::chrono::steady_clock::time_point, int64_t,
                                       bool holdFull) -> std::optional<RemotingCommand> {
    if (holdFull) return RemotingCommand::response(ResponseCode::SYSTEM_BUSY, std::string("full"));
    if (answerOdd && req.opaque % 2 == 1) return RemotingCommand::response(ResponseCode::SYSTEM_BUSY, std::string("held"));
    return std::nullopt;
  });
  REQUIRE(f.start());
  RawSocket s(f.server->port());
  // 100 x 64 KiB = 6.4 MB: 2 run, the hold takes ~4 MiB (~63), the rest meet a full hold.
  constexpr int kRequests = 100;
  std::string requests;
  int heldCount = 0;  // a request is held while the hold has less than kMaxHeldBytes (frame + kHeldOverhead each)
  size_t heldBytes = 0;
  for (int i = 0; i < kRequests; ++i) {
    auto req = RemotingCommand::request(kHold);
    req.opaque = i;
    req.body.assign(64 * 1024, 'x');
    auto frame = encodeFrame(req);
    if (i >= 2 && heldBytes < TcpConnection::kMaxHeldBytes) {
      heldBytes += frame.size() - 4 + TcpConnection::kHeldOverhead;
      ++heldCount;
    }
    requests += frame;
  }
  s.write(requests);  // completes: the server reads everything (held or answered)
  const int full = kRequests - 2 - heldCount;
  REQUIRE(full > 0);
  std::map<int, std::string> answers;
  for (int i = 0; i < full; ++i) {  // answered at once, before anything else ends
    auto r = s.readFrame();
    REQUIRE(r);
    CHECK(r->remark == "full");
    CHECK(r->opaque >= 2 + heldCount);
    answers[r->opaque] = "full";
  }
  std::this_thread::sleep_for(50ms);  // several looks at the hold, which answer nothing yet
  CHECK(started.load() == 2);
  answerOdd = true;  // the next look at the hold answers the odd held requests
  std::set<int> oddHeld;
  for (int i = 2; i < kRequests; ++i)
    if (!answers.count(i) && i % 2 == 1) oddHeld.insert(i);
  for (size_t i = 0; i < oddHeld.size(); ++i) {
    auto r = s.readFrame();
    REQUIRE(r);
    CHECK(r->remark == "held");
    CHECK(oddHeld.count(r->opaque) == 1);
    answers[r->opaque] = "held";
  }
  release->store(true);  // the two running end; the even held ones run, oldest first
  std::vector<int> ranOrder;
  while (answers.size() < size_t(kRequests)) {
    auto r = s.readFrame();
    REQUIRE(r);
    CHECK(r->remark == "ran");
    CHECK(answers.count(r->opaque) == 0);
    answers[r->opaque] = "ran";
    ranOrder.push_back(r->opaque);
  }
  CHECK(started.load() == static_cast<int>(ranOrder.size()));
  std::vector<int> heldRan;  // the held ones ran in read order, and only the even ones
  for (int i : ranOrder)
    if (i >= 2) heldRan.push_back(i);
  CHECK(std::is_sorted(heldRan.begin(), heldRan.end()));
  for (int i : heldRan) CHECK(i % 2 == 0);
  CHECK(heldRan.size() == static_cast<size_t>(heldCount) - oddHeld.size());
}

TEST_CASE("limits: setConnectionOptions applies to open connections at their next frame, no restart") {
  auto o = options();
  o.maxFrameSize = 1 << 20;
  ServerFixture f(o);
  registerEcho(*f.dispatcher);
  std::atomic<int> closed{0};
  f.server->onConnectionClosed([&](const ConnectionPtr&) { ++closed; });
  REQUIRE(f.start());
  RawSocket before(f.server->port());  // open before the change
  before.send(echo(1, std::string(200 * 1024, 'a')));
  auto r1 = before.readFrame();
  REQUIRE(r1);
  CHECK(r1->body.size() == size_t(200 * 1024));

  auto lowered = f.server->connectionOptions();
  lowered.maxFrameSize = 64 * 1024;
  f.server->setConnectionOptions(lowered);
  CHECK(f.server->connectionOptions().maxFrameSize == size_t(64 * 1024));
  before.send(echo(2, "small frames still pass"));
  auto r2 = before.readFrame();
  REQUIRE(r2);
  CHECK(r2->opaque == 2);
  sendRefusable(before, echo(3, std::string(200 * 1024, 'b')));  // over the new limit: that connection is closed
  CHECK(before.closedByPeer());
  RawSocket after(f.server->port());  // accepted after the change: the same limit
  sendRefusable(after, echo(4, std::string(100 * 1024, 'c')));
  CHECK(after.closedByPeer());
  CHECK(within(2s, [&] { return closed.load() == 2; }));
  RawSocket healthy(f.server->port());
  healthy.send(echo(5, "served"));
  auto r5 = healthy.readFrame();
  REQUIRE(r5);
  CHECK(r5->body == "served");
}
