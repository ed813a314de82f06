// Broker fast failure (roles/broker/processors/fast_failure.h) in a real rmqnode: an append stalled
// by the fault point append_stall (a slow disk holding the commit-log lock) makes the other sends
// answer SYSTEM_BUSY with Java 4.9.8's remarks within their budget, while the connections on the
// other network threads keep being served; nothing acknowledged is lost once the stall ends. And a
// connection that stops reading under load (too many requests in flight on a slow SYNC_FLUSH disk)
// answers the requests it held back SYSTEM_BUSY at once instead of letting them time out.
#include <doctest/doctest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <chrono>
#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "broker_calls.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::test;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kStallMs = 4000;     // append_stall: how long the stalled append holds the lock
constexpr int kPageCacheMs = 1500;  // osPageCacheBusyTimeOutMills of these nodes

int64_t msSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

struct Answer {
  int code = -1000;
  std::string remark;
  int64_t ms = 0;  // time to the answer
};

Answer sendOne(TestClient& c, const std::string& addr, const std::string& topic, const std::string& key) {
  auto start = Clock::now();
  auto r = c.call(addr, sendRequest({.topic = topic, .body = "body-" + key, .keys = key}));
  Answer a;
  a.ms = msSince(start);
  if (r) {
    a.code = r->code;
    a.remark = r->remark.value_or("");
  }
  return a;
}

// A node whose appends stall while `flag` exists, with `ioThreads` network threads.
struct StallNode {
  DevNode node;
  std::string flag;
  std::string topic = uniqueName("Busy");

  explicit StallNode(const std::string& brokerKeys, int ioThreads = 3)
      : node({.extraBroker = brokerKeys,
              .extraStore = "osPageCacheBusyTimeOutMills = " + std::to_string(kPageCacheMs) + "\n"}) {
    flag = node.proc.path("stall.flag");
    node.proc.setEnv("RMQNODE_FAULTS", "append_stall:" + std::to_string(kStallMs) + "@" + flag);
    node.replaceConfigLine("httpBindAddress = \"127.0.0.1\"", "httpBindAddress = \"127.0.0.1\"\nserverSelectorThreads = " + std::to_string(ioThreads));
  }
  bool start() { return node.start() && node.createTopic(topic, 1); }
  std::string addr() const { return node.brokerAddr; }
};

// Connected clients (one connection each), made before any stall: a stalled thread may be the
// one that accepts.
std::vector<std::unique_ptr<TestClient>> connectedClients(const std::string& addr, int n) {
  std::vector<std::unique_ptr<TestClient>> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(std::make_unique<TestClient>());
    REQUIRE(brokerRuntimeInfo(*out.back(), addr, std::chrono::seconds(5)).has_value());
  }
  return out;
}

int64_t lockTime(TestClient& c, const std::string& addr) {
  auto v = brokerRuntimeValue(c, addr, "pageCacheLockTimeMills", std::chrono::milliseconds(300));
  return v ? std::stoll(*v) : -1;
}

// Starts a send that stalls in its append (on its own thread and connection) and returns a client
// served by another network thread, seen answering GET_BROKER_RUNTIME_INFO with the lock held.
TestClient* stallAppend(StallNode& n, std::vector<std::unique_ptr<TestClient>>& clients, std::thread& stalled,
                        Answer& stalledAnswer) {
  n.node.proc.writeFile("stall.flag", "");
  // The fault point looks at its flag file at most every 20 ms: let it see it before the send.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  TestClient* sender = clients[0].get();
  stalled = std::thread([&n, sender, &stalledAnswer] { stalledAnswer = sendOne(*sender, n.addr(), n.topic, "stalled"); });
  auto deadline = Clock::now() + std::chrono::seconds(3);
  while (Clock::now() < deadline) {
    for (size_t i = 1; i < clients.size(); ++i) {
      // Past the 2 ms after which sends park (SendAdmission::kParkAfterMs): one admitted before
      // that queues for the append thread behind the stalled append and waits for it.
      if (lockTime(*clients[i], n.addr()) > 20) {
        std::filesystem::remove(n.flag);  // later appends do not stall
        return clients[i].get();
      }
    }
  }
  return nullptr;
}

std::set<std::string> pulledKeys(TestClient& c, const std::string& addr, const std::string& topic, size_t expect) {
  std::set<std::string> keys;
  if (expect > 0) CHECK(dispatched(c, addr, topic, 0, static_cast<int64_t>(expect)));
  int64_t off = 0;
  for (int loops = 0; loops < 100; ++loops) {
    auto msgs = pullMessages(c, addr, {.topic = topic, .offset = off});
    if (msgs.empty()) break;
    for (auto& m : msgs) {
      keys.insert(m.keys());
      off = m.queueOffset + 1;
    }
  }
  return keys;
}

}  // namespace

TEST_CASE("busy: a stalled append makes other sends answer SYSTEM_BUSY with Java's remarks in their budget; "
          "other connections served; nothing acknowledged lost") {
  StallNode n("waitTimeMillsInSendQueue = 200\n");
  REQUIRE(n.start());
  auto clients = connectedClients(n.addr(), 4);
  std::set<std::string> acked;
  REQUIRE(sendOne(*clients[1], n.addr(), n.topic, "before").code == ResponseCode::SUCCESS);
  acked.insert("before");

  std::thread stalled;
  Answer stalledAnswer;
  const auto stallStart = Clock::now();
  TestClient* free = stallAppend(n, clients, stalled, stalledAnswer);
  REQUIRE_MESSAGE(free != nullptr, "no connection saw the commit-log lock held");

  // Parked for the lock, past waitTimeMillsInSendQueue: TIMEOUT_CLEAN_QUEUE after ~200 ms.
  auto timedOut = sendOne(*free, n.addr(), n.topic, "timed-out");
  CHECK(timedOut.code == ResponseCode::SYSTEM_BUSY);
  CHECK_MESSAGE(timedOut.remark.starts_with(
                    "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: "),
                timedOut.remark);
  CHECK(timedOut.remark.find("ms, size of queue: ") != std::string::npos);
  CHECK(timedOut.ms >= 190);
  CHECK(timedOut.ms < 1000);

  // A longer budget: the parked send is answered once the lock was held past the page-cache timeout.
  auto update = free->call(n.addr(), request(RequestCode::UPDATE_BROKER_CONFIG, {}, "waitTimeMillsInSendQueue=60000\n"));
  REQUIRE(codeOf(update) == ResponseCode::SUCCESS);
  auto pcBusy = sendOne(*free, n.addr(), n.topic, "pc-busy");
  CHECK(pcBusy.code == ResponseCode::SYSTEM_BUSY);
  CHECK_MESSAGE(pcBusy.remark.starts_with(
                    "[PCBUSY_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: "),
                pcBusy.remark);
  CHECK(msSince(stallStart) < kStallMs);  // answered while the append still stalls

  // The lock is now held past osPageCacheBusyTimeOutMills: a new send is refused at once.
  auto rejected = sendOne(*free, n.addr(), n.topic, "rejected");
  CHECK(rejected.code == ResponseCode::SYSTEM_BUSY);
  CHECK(rejected.remark == "[REJECTREQUEST]system busy, start flow control for a while");
  CHECK(rejected.ms < 300);
  CHECK(lockTime(*free, n.addr()) > kPageCacheMs);  // still served, and Java's runtime figure shows it

  stalled.join();
  CHECK(stalledAnswer.code == ResponseCode::SUCCESS);  // the stalled append itself completes
  CHECK(stalledAnswer.ms >= kStallMs - 200);
  acked.insert("stalled");
  auto after = sendOne(*free, n.addr(), n.topic, "after");
  CHECK(after.code == ResponseCode::SUCCESS);
  CHECK(after.ms < 1000);
  acked.insert("after");
  CHECK(lockTime(*free, n.addr()) == 0);
  CHECK(pulledKeys(*free, n.addr(), n.topic, acked.size()) == acked);  // busy answers stored nothing
}

net::RemotingCommand sendBackRequest(int64_t commitLogOffset, const std::string& group) {
  return request(RequestCode::CONSUMER_SEND_MSG_BACK, {{"offset", std::to_string(commitLogOffset)},
                                                       {"group", group},
                                                       {"delayLevel", "0"},
                                                       {"originTopic", "BusyTopic"}});
}

TEST_CASE("busy: with one network thread, a stalled append leaves the thread's other connections served; "
          "CONSUMER_SEND_MSG_BACK fails fast as sends do") {
  StallNode n("waitTimeMillsInSendQueue = 200\n", 1);  // every connection on the one network thread
  REQUIRE(n.start());
  auto clients = connectedClients(n.addr(), 2);
  REQUIRE(sendOne(*clients[1], n.addr(), n.topic, "before").code == ResponseCode::SUCCESS);  // commit log offset 0
  std::thread stalled;
  Answer stalledAnswer;
  const auto stallStart = Clock::now();
  // The other connection answers GET_BROKER_RUNTIME_INFO while the lock is held (before: not at all).
  TestClient* other = stallAppend(n, clients, stalled, stalledAnswer);
  if (!other) {  // join first: a REQUIRE would end the test with the thread joinable (terminate)
    stalled.join();
    FAIL("the other connection was not served while the append stalled");
  }

  auto timed = [&](net::RemotingCommand req) {
    auto start = Clock::now();
    auto r = other->call(n.addr(), std::move(req));
    Answer a;
    a.ms = msSince(start);
    if (r) {
      a.code = r->code;
      a.remark = r->remark.value_or("");
    }
    return a;
  };
  auto hb = timed(heartbeatRequest("stall-client", "stall-cg", {n.topic}));
  CHECK(hb.code == ResponseCode::SUCCESS);
  CHECK(hb.ms < 1000);
  auto pull = timed(pullRequest({.group = "stall-cg", .topic = n.topic}));
  CHECK(pull.code == ResponseCode::SUCCESS);  // "before"
  CHECK(pull.ms < 1000);
  auto send = sendOne(*other, n.addr(), n.topic, "busy");  // parked for the lock, then its budget's answer
  CHECK(send.code == ResponseCode::SYSTEM_BUSY);
  CHECK_MESSAGE(send.remark.starts_with("[TIMEOUT_CLEAN_QUEUE]broker busy"), send.remark);
  CHECK(send.ms < 1000);
  // Java serves CONSUMER_SEND_MSG_BACK on the send executor: the same fast failure.
  auto back = timed(sendBackRequest(0, "stall-cg"));
  CHECK(back.code == ResponseCode::SYSTEM_BUSY);
  CHECK_MESSAGE(back.remark.starts_with("[TIMEOUT_CLEAN_QUEUE]broker busy"), back.remark);
  CHECK(back.ms >= 190);
  CHECK(back.ms < 1000);
  CHECK(msSince(stallStart) < kStallMs - 500);  // all of it while the append still stalled

  stalled.join();
  CHECK(stalledAnswer.code == ResponseCode::SUCCESS);
  CHECK(stalledAnswer.ms >= kStallMs - 200);
  CHECK(timed(sendBackRequest(0, "stall-cg")).code == ResponseCode::SUCCESS);  // lock free again: stored
  CHECK(pulledKeys(*other, n.addr(), n.topic, 2) == std::set<std::string>{"before", "stalled"});
}

TEST_CASE("busy: sends beyond sendThreadPoolQueueCapacity waiting for the append thread get [OVERLOAD] at once") {
  // No parking (fast failure off), so sends queue behind the stalled append; two may wait.
  StallNode n("brokerFastFailureEnable = false\nsendThreadPoolQueueCapacity = 2\n");
  REQUIRE(n.start());
  auto clients = connectedClients(n.addr(), 4);
  std::thread stalled;
  Answer stalledAnswer;
  const auto stallStart = Clock::now();
  if (!stallAppend(n, clients, stalled, stalledAnswer)) {
    stalled.join();
    FAIL("no connection saw the commit-log lock held");
  }
  std::vector<Answer> queued(2);
  std::vector<std::thread> senders;
  for (int i = 0; i < 2; ++i)
    senders.emplace_back([&, i] { queued[i] = sendOne(*clients[1 + i], n.addr(), n.topic, "q" + std::to_string(i)); });
  bool full = false;
  for (auto until = Clock::now() + std::chrono::seconds(2); !full && Clock::now() < until;) {
    auto size = brokerRuntimeValue(*clients[3], n.addr(), "sendThreadPoolQueueSize", std::chrono::milliseconds(300));
    full = size && *size == "2";
  }
  if (!full) {
    stalled.join();
    for (auto& t : senders) t.join();
    FAIL("the two sends did not queue for the append thread");
  }
  auto over = sendOne(*clients[3], n.addr(), n.topic, "over");
  CHECK(over.code == ResponseCode::SYSTEM_BUSY);
  CHECK(over.remark == "[OVERLOAD]system busy, start flow control for a while");
  CHECK(over.ms < 500);
  CHECK(msSince(stallStart) < kPageCacheMs);  // before the page-cache timeout ([REJECTREQUEST] then)
  stalled.join();
  for (auto& t : senders) t.join();
  CHECK(stalledAnswer.code == ResponseCode::SUCCESS);
  for (auto& q : queued) CHECK(q.code == ResponseCode::SUCCESS);  // the queued ones were stored
  CHECK(pulledKeys(*clients[3], n.addr(), n.topic, 3) == std::set<std::string>{"stalled", "q0", "q1"});
}

TEST_CASE("busy: brokerFastFailureEnable=false keeps a send waiting for a stalled append (no budget)") {
  StallNode n("brokerFastFailureEnable = false\nwaitTimeMillsInSendQueue = 200\n");
  REQUIRE(n.start());
  auto clients = connectedClients(n.addr(), 4);
  std::thread stalled;
  Answer stalledAnswer;
  const auto stallStart = Clock::now();
  TestClient* free = stallAppend(n, clients, stalled, stalledAnswer);
  REQUIRE(free != nullptr);
  auto waited = sendOne(*free, n.addr(), n.topic, "waited");  // sent well before the page-cache timeout
  CHECK(waited.code == ResponseCode::SUCCESS);
  CHECK(msSince(stallStart) >= kStallMs - 200);  // it waited for the stall to end
  stalled.join();
  CHECK(stalledAnswer.code == ResponseCode::SUCCESS);
  CHECK(pulledKeys(*free, n.addr(), n.topic, 2) == std::set<std::string>{"stalled", "waited"});
}

namespace {

// SYNC_FLUSH on a slow disk (every msync sleeps `slowDiskMs`) and at most 8 requests in flight per
// connection: `sends` sends pipelined on one connection would take sends/8 group commits; the ones
// read but held while 8 wait for their flush are answered busy after their budget (100 ms).
struct Flood {
  bool fastFailure = true;
  int sends = 160;
  size_t bodyBytes = 8;
  int slowDiskMs = 300;
  bool askOtherConnection = false;  // a heartbeat on another connection once the first answer came
};

struct LoadOutcome {
  int ok = 0, busy = 0, timeouts = 0, other = 0;
  int64_t slowestBusy = 0;
  std::set<std::string> acked, stored;
  int otherConnectionCode = -1000;
  bool otherAnsweredBeforeFloodEnd = false;
};

void countAnswer(LoadOutcome& out, const Answer& a, const std::string& key) {
  if (a.code == ResponseCode::SUCCESS) {
    ++out.ok;
    out.acked.insert(key);
  } else if (a.code == ResponseCode::SYSTEM_BUSY && a.remark.starts_with("[TIMEOUT_CLEAN_QUEUE]broker busy") &&
             a.remark.find("ms, size of queue: ") != std::string::npos) {
    ++out.busy;
    out.slowestBusy = std::max(out.slowestBusy, a.ms);
  } else if (a.code == ResponseCode::CLIENT_TIMEOUT) {
    ++out.timeouts;
  } else {
    ++out.other;
    if (out.other <= 3) FAIL_CHECK("code " << a.code << " " << a.remark << " after " << a.ms << " ms");
  }
}

LoadOutcome pipelinedSends(const Flood& f) {
  DevNode node({.extraBroker = std::string("brokerFastFailureEnable = ") + (f.fastFailure ? "true" : "false") +
                               "\nwaitTimeMillsInSendQueue = 100\nconnectionMaxInFlightRequests = 8\n",
                .extraStore = "flushDiskType = \"SYNC_FLUSH\"\nsyncFlushTimeout = 60000\n"});
  node.proc.setEnv("RMQNODE_FAULTS", "slow_disk:" + std::to_string(f.slowDiskMs));
  REQUIRE(node.start());
  std::string topic = uniqueName("Load");
  REQUIRE(node.createTopic(topic, 1));
  TestClient c, otherClient;
  REQUIRE(brokerRuntimeInfo(c, node.brokerAddr, std::chrono::seconds(5)).has_value());
  REQUIRE(brokerRuntimeInfo(otherClient, node.brokerAddr, std::chrono::seconds(5)).has_value());

  std::vector<Answer> answers(static_cast<size_t>(f.sends));
  std::atomic<bool> firstAnswer{false};
  int64_t lastAnswerNs = 0;  // on ctx's thread
  asio::io_context ctx;  // one thread: the requests leave together, in one burst
  const std::string body(f.bodyBytes, 'b');
  for (int i = 0; i < f.sends; ++i) {
    auto one = [&, i]() -> asio::awaitable<void> {
      auto req = sendRequest({.topic = topic, .body = body, .keys = "k" + std::to_string(i)});
      auto start = Clock::now();
      auto r = co_await c.raw().invoke(node.brokerAddr, std::move(req), std::chrono::milliseconds(3000));
      answers[i].ms = msSince(start);
      answers[i].code = r ? r->code : r.error().code;
      if (r) answers[i].remark = r->remark.value_or("");
      firstAnswer = true;
      lastAnswerNs = std::max<int64_t>(lastAnswerNs, Clock::now().time_since_epoch().count());
    };
    asio::co_spawn(ctx, one, asio::detached);
  }
  LoadOutcome out;
  std::thread other;
  int64_t otherAnsweredNs = 0;
  if (f.askOtherConnection) {
    other = std::thread([&] {
      for (auto until = Clock::now() + std::chrono::seconds(5); !firstAnswer && Clock::now() < until;)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      auto r = otherClient.call(node.brokerAddr, heartbeatRequest("flood-other", "flood-cg", {topic}));
      otherAnsweredNs = Clock::now().time_since_epoch().count();
      out.otherConnectionCode = codeOf(r);
    });
  }
  ctx.run();
  if (other.joinable()) other.join();
  out.otherAnsweredBeforeFloodEnd = otherAnsweredNs > 0 && otherAnsweredNs < lastAnswerNs;
  for (int i = 0; i < f.sends; ++i) countAnswer(out, answers[static_cast<size_t>(i)], "k" + std::to_string(i));
  out.stored = pulledKeys(otherClient, node.brokerAddr, topic, out.acked.size());
  MESSAGE("fast failure " << f.fastFailure << ", " << f.sends << " x " << f.bodyBytes << " B: SEND_OK " << out.ok
                          << ", SYSTEM_BUSY " << out.busy << " (slowest " << out.slowestBusy
                          << " ms), client timeouts " << out.timeouts << ", other " << out.other);
  return out;
}

}  // namespace

TEST_CASE("busy: requests a connection held back under load get fast SYSTEM_BUSY answers, not timeouts") {
  auto on = pipelinedSends({.fastFailure = true});
  CHECK(on.timeouts == 0);
  CHECK(on.other == 0);
  CHECK(on.busy > 0);
  CHECK(on.ok > 0);
  CHECK(on.slowestBusy < 2500);
  // brokerFastFailureEnable=false: as before, the held-back sends wait their turn and time out.
  auto off = pipelinedSends({.fastFailure = false});
  CHECK(off.busy == 0);
  CHECK(off.timeouts > 0);
}

TEST_CASE("busy: a connection flooded past its in-flight limit goes on reading; the sends it holds past their "
          "budget get Java's busy answer, another connection is served meanwhile, nothing acknowledged is lost") {
  // 400 x 4 KiB = 1.6 MB on one connection: far more than one read, so most of the flood would
  // wait unseen in the socket if the connection stopped reading at its limit (8 in flight, each
  // ~0.6 s on the slow disk: the last ones would time out after 3 s).
  auto out = pipelinedSends({.sends = 400, .bodyBytes = 4096, .slowDiskMs = 600, .askOtherConnection = true});
  CHECK(out.timeouts == 0);
  CHECK(out.other == 0);
  CHECK(out.ok > 0);
  CHECK(out.busy > 300);
  CHECK(out.ok + out.busy == 400);
  CHECK(out.otherConnectionCode == ResponseCode::SUCCESS);
  CHECK(out.otherAnsweredBeforeFloodEnd);
  CHECK(out.stored == out.acked);  // every SEND_OK stored, no busy send stored
}

TEST_CASE("busy: sends queued for the append thread behind a stalled append past their budget get "
          "[TIMEOUT_CLEAN_QUEUE], not an append") {
  StallNode n("waitTimeMillsInSendQueue = 200\n");
  REQUIRE(n.start());
  auto clients = connectedClients(n.addr(), 2);
  n.node.proc.writeFile("stall.flag", "");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the fault point sees its flag
  // One burst on one connection: the first append stalls; the others are admitted before the lock
  // has been held 2 ms (they queue for the append thread) or after (they park): busy either way.
  constexpr int kSends = 6;
  std::vector<Answer> answers(kSends);
  asio::io_context ctx;
  for (int i = 0; i < kSends; ++i) {
    auto one = [&, i]() -> asio::awaitable<void> {
      auto req = sendRequest({.topic = n.topic, .body = "b", .keys = "q" + std::to_string(i)});
      auto start = Clock::now();
      auto r = co_await clients[0]->raw().invoke(n.addr(), std::move(req), std::chrono::milliseconds(10000));
      answers[i].ms = msSince(start);
      answers[i].code = r ? r->code : r.error().code;
      if (r) answers[i].remark = r->remark.value_or("");
    };
    asio::co_spawn(ctx, one, asio::detached);
  }
  std::thread burst([&] { ctx.run(); });
  int64_t queuedSeen = 0;
  bool held = false;
  for (auto until = Clock::now() + std::chrono::seconds(3); Clock::now() < until && !(held && queuedSeen > 0);) {
    auto size = brokerRuntimeValue(*clients[1], n.addr(), "sendThreadPoolQueueSize", std::chrono::milliseconds(300));
    if (size) queuedSeen = std::max<int64_t>(queuedSeen, std::stoll(*size));
    held = held || lockTime(*clients[1], n.addr()) > 20;
  }
  std::filesystem::remove(n.flag);  // the queued appends, if they ran, would not stall
  burst.join();
  REQUIRE_MESSAGE(queuedSeen > 0, "no send queued for the append thread behind the stalled one");
  CHECK(answers[0].code == ResponseCode::SUCCESS);  // the stalled append itself
  for (int i = 1; i < kSends; ++i) {
    CHECK(answers[i].code == ResponseCode::SYSTEM_BUSY);
    CHECK_MESSAGE(answers[i].remark.starts_with(
                      "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: "),
                  answers[i].remark);
  }
  CHECK(pulledKeys(*clients[1], n.addr(), n.topic, 1) == std::set<std::string>{"q0"});  // no busy send stored
}
