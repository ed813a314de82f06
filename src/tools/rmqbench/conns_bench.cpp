// `rmqbench conns`: what a connection costs the broker. Opens -c connections to a broker, and with
// --park keeps one long-poll PULL_MESSAGE parked on each (re-sent whenever the broker answers, from
// the answer's nextBeginOffset), then samples RssAnon of the broker process (--pid, read from
// /proc/<pid>/status) before connecting, with every connection open (after --settle seconds) and
// after closing them all (min(--settle, 3) s later; with --watch S every second up to S s: memory given
// back). Prints the growth per connection. Raises its
// own open-file limit to the hard limit first (rmqnode does the same at start-up). --tls: idle
// connections that completed a TLS handshake (what an idle TLS connection costs; not with --park).
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <atomic>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <thread>

#include "client/request_headers.h"
#include "common/bytes.h"
#include "common/fd_limit.h"
#include "common/response_code.h"
#include "net/frame_codec.h"
#include "net/tls_handshake.h"
#include "tools/rmqbench/bench_registry.h"
#include "tools/rmqbench/proc_status.h"

namespace rmq::bench {
namespace {

using asio::experimental::as_tuple;
using asio::use_awaitable;

struct ParkSpec {
  std::string topic, group;
  int queues = 1;
};

struct Counters {
  std::atomic<int64_t> connected{0}, connectFailed{0}, answers{0}, errors{0}, closed{0};
  std::string firstError;  // io thread only
};

// One connection's long-poll loop: send a suspended pull, read its answer, pull again.
asio::awaitable<void> parkLoop(asio::ip::tcp::socket& socket, ParkSpec spec, int index, Counters& c) {
  client::PullMessageHeader h;
  h.consumerGroup = spec.group;
  h.topic = spec.topic;
  h.queueId = index % spec.queues;
  h.maxMsgNums = 32;
  h.sysFlag = client::kPullSuspend | client::kPullSubscription;  // no heartbeat needed
  h.suspendTimeoutMillis = 30000;  // the broker caps it (brokerSuspendMaxTimeMillis)
  h.subscription = "*";
  for (;;) {
    std::string frame = net::encodeFrame(client::makePullRequest(h));
    auto [wec, wn] = co_await asio::async_write(socket, asio::buffer(frame), as_tuple(use_awaitable));
    if (wec) break;
    char len[4];
    auto [rec, rn] = co_await asio::async_read(socket, asio::buffer(len), as_tuple(use_awaitable));
    if (rec) break;
    std::string body(loadBE32(len), '\0');
    auto [bec, bn] = co_await asio::async_read(socket, asio::buffer(body), as_tuple(use_awaitable));
    if (bec) break;
    c.answers.fetch_add(1);
    auto resp = net::decodeFrame(body);
    if (!resp) break;
    int code = resp.value().code;
    if (code != ResponseCode::SUCCESS && code != ResponseCode::PULL_NOT_FOUND && code != ResponseCode::PULL_RETRY_IMMEDIATELY &&
        code != ResponseCode::PULL_OFFSET_MOVED) {
      if (c.errors.fetch_add(1) == 0) c.firstError = fmt::format("code {}: {}", code, resp.value().remark.value_or(""));
      break;
    }
    if (auto next = resp.value().extFields.getInt("nextBeginOffset")) h.queueOffset = *next;
  }
  c.closed.fetch_add(1);
}

asio::awaitable<void> connectAll(asio::io_context& io, asio::ip::tcp::endpoint ep, int count,
                                 std::vector<std::unique_ptr<asio::ip::tcp::socket>>& sockets,
                                 std::optional<ParkSpec> park, net::TlsContextPtr tls,
                                 std::vector<std::unique_ptr<net::TlsSession>>& sessions, Counters& c) {
  for (int i = 0; i < count; ++i) {
    auto s = std::make_unique<asio::ip::tcp::socket>(io);
    auto [ec] = co_await s->async_connect(ep, as_tuple(use_awaitable));
    if (ec) {
      if (c.connectFailed.fetch_add(1) == 0) c.firstError = "connect: " + ec.message();
      continue;
    }
    if (tls) {
      auto session = co_await net::connectTls(*s, *tls, std::chrono::milliseconds(10000));
      if (!session) {
        if (c.connectFailed.fetch_add(1) == 0) c.firstError = "TLS: " + session.error().message;
        continue;
      }
      sessions.push_back(std::move(*session));
    }
    if (park) asio::co_spawn(io, parkLoop(*s, *park, i, c), asio::detached);
    sockets.push_back(std::move(s));
    c.connected.fetch_add(1);
  }
}

void sleepSeconds(double s) { std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(s * 1000))); }

int runConns(OptionValues& args) {
  std::string broker = args.get({"b"}, "127.0.0.1:10911");
  int64_t pid = args.getInt({"pid"}, 0);
  int count = static_cast<int>(args.getInt({"c"}, 1000));
  double settle = args.getDouble({"settle"}, 3);
  const int watch = static_cast<int>(args.getInt({"watch"}, 0));
  std::optional<ParkSpec> park;
  if (args.flag("park"))
    park = ParkSpec{args.get({"topic"}, "BenchConns"), args.get({"group"}, "bench_conns"),
                    static_cast<int>(args.getInt({"queues"}, 1))};
  auto colon = broker.rfind(':');
  if (colon == std::string::npos) args.addError("-b is host:port");
  if (pid <= 0) args.addError("--pid <broker pid> is required");
  if (count < 1 || settle < 0 || watch < 0) args.addError("-c must be >= 1, --settle and --watch >= 0");
  if (park && park->queues < 1) args.addError("--queues must be >= 1");
  net::TlsContextPtr tls;
  if (auto made = tlsFromArgs(args); made) tls = std::move(*made);
  else args.addError(made.error().message);
  if (tls && park) args.addError("--tls measures idle connections (no --park)");
  if (!args.errors().empty()) return 2;
  FdLimit fd = raiseFdLimit();
  if (fd.soft < static_cast<uint64_t>(count) + 64) {
    std::fprintf(stderr, "rmqbench conns: open-file limit %llu (hard %llu) is too small for %d connections\n",
                 static_cast<unsigned long long>(fd.soft), static_cast<unsigned long long>(fd.hard), count);
    return 1;
  }
  asio::error_code ec;
  asio::ip::tcp::endpoint ep(asio::ip::make_address(broker.substr(0, colon), ec),
                             static_cast<uint16_t>(std::stoi(broker.substr(colon + 1))));
  if (ec) {
    std::fprintf(stderr, "rmqbench conns: bad address %s\n", broker.c_str());
    return 2;
  }
  int64_t before = rssAnonKiB(pid);
  if (before < 0) {
    std::fprintf(stderr, "rmqbench conns: cannot read /proc/%lld/status\n", static_cast<long long>(pid));
    return 1;
  }
  std::printf("conns: %d connections to %s, %s, broker pid %lld, RssAnon before %lld KiB\n", count, broker.c_str(),
              park ? fmt::format("one parked pull each (topic {}, {} queue(s))", park->topic, park->queues).c_str()
                   : tls ? "idle, TLS" : "idle",
              static_cast<long long>(pid), static_cast<long long>(before));

  asio::io_context io;
  auto work = asio::make_work_guard(io);
  std::thread ioThread([&] { io.run(); });
  Counters c;
  std::vector<std::unique_ptr<asio::ip::tcp::socket>> sockets;
  std::vector<std::unique_ptr<net::TlsSession>> sessions;
  asio::co_spawn(io, connectAll(io, ep, count, sockets, park, tls, sessions, c), asio::detached);
  while (c.connected + c.connectFailed < count) sleepSeconds(0.05);
  sleepSeconds(settle);
  int64_t open = rssAnonKiB(pid);
  int64_t earlyAnswers = c.answers.load();
  double perConn = double(open - before) * 1024 / std::max<int64_t>(c.connected.load(), 1);
  std::printf("conns: %lld connected (%lld failed), %lld answers in %.1f s, RssAnon %lld KiB: +%lld KiB = %.0f B per "
              "connection\n",
              static_cast<long long>(c.connected.load()), static_cast<long long>(c.connectFailed.load()),
              static_cast<long long>(earlyAnswers), settle, static_cast<long long>(open),
              static_cast<long long>(open - before), perConn);
  asio::post(io, [&] {
    for (auto& s : sockets) s->close(ec);
  });
  work.reset();
  ioThread.join();
  sessions.clear();
  sockets.clear();
  const double closeWait = std::min(settle, 3.0);  // a long --settle (soak) does not hold the exit
  sleepSeconds(closeWait);
  int64_t after = rssAnonKiB(pid);
  std::printf("conns: closed, RssAnon %lld KiB after %.1f s\n", static_cast<long long>(after), closeWait);
  int64_t watched = after;
  for (int s = static_cast<int>(closeWait) + 1; s <= watch; ++s) {  // memory given back, second by second
    sleepSeconds(1);
    watched = rssAnonKiB(pid);
    std::printf("conns: closed, RssAnon %lld KiB after %d s\n", static_cast<long long>(watched), s);
  }
  if (c.errors > 0 || c.connectFailed > 0) std::printf("conns: first error: %s\n", c.firstError.c_str());
  std::printf("SUMMARY conns %d %s: RssAnon before %lld KiB, open %lld KiB, closed %lld KiB%s, per connection %.0f B, "
              "errors %lld\n",
              count, park ? "parked" : "idle", static_cast<long long>(before), static_cast<long long>(open),
              static_cast<long long>(after),
              watch > closeWait ? fmt::format(" ({} KiB after {} s)", watched, watch).c_str() : "", perConn,
              static_cast<long long>(c.errors.load() + c.connectFailed.load()));
  return c.errors > 0 || c.connected < count ? 1 : 0;
}

Registrar registrar("conns", "broker memory per connection: N idle connections or N parked long polls, RssAnon sampled",
                    {{"-b <addr>", "broker host:port (default 127.0.0.1:10911)"},
                     {"--pid <pid>", "the broker's process id (its /proc/<pid>/status is sampled)", kInteger},
                     {"-c <n>", "connections (default 1000)", kInteger},
                     {"--park", "keep one long-poll PULL_MESSAGE parked on each connection"},
                     {"--topic <topic>", "pull topic with --park (default BenchConns; must exist)"},
                     {"--group <group>", "pull group with --park (default bench_conns)"},
                     {"--queues <n>", "spread the pulls over queues 0..n-1 (default 1)", kInteger},
                     {"--settle <seconds>", "wait before each sample (default 3)", kNumber},
                     {"--watch <seconds>", "after closing, sample RssAnon every second up to this many s (default 0)",
                      kInteger},
                     tlsOptions()[0], tlsOptions()[1]},
                    &runConns);

}  // namespace
}  // namespace rmq::bench
