// `rmqbench echo`: the loopback limit of our net layer. An in-process RemotingServer answers
// send-shaped requests (SEND_MESSAGE_V2 header a..m, body of -s bytes) with a send-shaped response
// (msgId, queueId, queueOffset, MSG_REGION, TRACE_ON) and no storage at all; -t closed-loop
// workers over -c connections measure TPS and latency. Run it beside `rmqbench producer` with the
// same -s/-t/-c to see how close rmqnode gets to what the sockets alone allow.
#include <asio/connect.hpp>
#include <asio/ip/tcp.hpp>
#include <cstdio>
#include <fmt/format.h>

#include "common/request_code.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "net/remoting_server.h"
#include "net/tcp_connection.h"
#include "tools/rmqbench/bench_driver.h"
#include "tools/rmqbench/bench_registry.h"

namespace rmq::bench {
namespace {

net::RemotingCommand sendShapedRequest(const std::string& body, int queueId) {
  auto cmd = net::RemotingCommand::request(RequestCode::SEND_MESSAGE_V2);
  auto& f = cmd.extFields;
  f.set("a", std::string("benchmark_producer"));
  f.set("b", std::string("BenchmarkTest"));
  f.set("c", std::string("TBW102"));
  f.set("d", int64_t{4});
  f.set("e", int64_t{queueId});
  f.set("f", int64_t{0});
  f.set("g", nowMillis());
  f.set("h", int64_t{0});
  f.set("i", std::string("KEYS\x01key-000000000\x02UNIQ_KEY\x01""7F00000100002A9F0000000000000000\x02WAIT\x01true\x02TAGS\x01TagA\x02"));
  f.set("j", int64_t{0});
  f.setBool("k", false);
  f.setBool("m", false);
  cmd.bodySegments.push_back({body.data(), body.size()});  // body lives as long as the run
  return cmd;
}

// The server side: answers like a broker's send would, without storing anything.
std::shared_ptr<net::Dispatcher> echoDispatcher(bool replyBody) {
  auto d = std::make_shared<net::Dispatcher>();
  auto offset = std::make_shared<std::atomic<int64_t>>(0);
  d->registerProcessor(RequestCode::SEND_MESSAGE_V2, [offset, replyBody](net::ConnectionPtr, net::RemotingCommand req)
                                                 -> asio::awaitable<std::optional<net::RemotingCommand>> {
    auto resp = net::RemotingCommand::response(ResponseCode::SUCCESS);
    int64_t off = offset->fetch_add(1, std::memory_order_relaxed);
    resp.extFields.set("msgId", fmt::format("7F00000100002A9F{:016X}", off * 1200));
    resp.extFields.set("queueId", std::string(req.extFields.get("e", "0")));
    resp.extFields.set("queueOffset", off);
    resp.extFields.set("MSG_REGION", std::string("DefaultRegion"));
    resp.extFields.set("TRACE_ON", std::string("true"));
    if (replyBody) resp.body = req.body;
    co_return resp;
  });
  return d;
}

std::vector<std::shared_ptr<net::TcpConnection>> connectAll(net::IoPool& pool, uint16_t port, int count) {
  std::vector<std::shared_ptr<net::TcpConnection>> conns;
  net::ConnectionHooks hooks;
  hooks.onRequest = [](net::ConnectionPtr, net::RemotingCommand) -> asio::awaitable<std::optional<net::RemotingCommand>> {
    co_return std::nullopt;
  };
  for (int i = 0; i < count; ++i) {
    asio::ip::tcp::socket socket(pool.at(static_cast<size_t>(i) % pool.size()));
    socket.connect({asio::ip::make_address("127.0.0.1"), port});
    socket.set_option(asio::ip::tcp::no_delay(true));
    auto c = net::TcpConnection::make(std::move(socket), net::ConnectionOptions{16 << 20, std::chrono::seconds(0)}, hooks);
    c->start();
    conns.push_back(std::move(c));
  }
  return conns;
}

int runEcho(OptionValues& args) {
  LoadOptions load = readLoad(args);
  int connections = static_cast<int>(args.getInt({"connections"}, 1));
  int bodySize = static_cast<int>(args.getInt({"s"}, 1024));
  int clientThreads = static_cast<int>(args.getInt({"client-threads"}, 1));
  int serverThreads = static_cast<int>(args.getInt({"server-threads"}, 1));
  if (connections < 1 || bodySize < 0 || clientThreads < 1 || serverThreads < 1)
    args.addError("--connections, --client-threads, --server-threads must be >= 1 and -s >= 0");
  if (!args.errors().empty()) return 2;

  net::IoPool serverPool(static_cast<size_t>(serverThreads)), clientPool(static_cast<size_t>(clientThreads));
  serverPool.start();
  clientPool.start();
  net::RemotingServer server(serverPool, net::ServerOptions{"127.0.0.1", 0, {}}, echoDispatcher(args.flag("reply-body")));
  if (auto r = server.start(); !r) {
    std::fprintf(stderr, "rmqbench echo: %s\n", r.error().message.c_str());
    return 1;
  }
  auto conns = connectAll(clientPool, server.port(), connections);
  const std::string body(static_cast<size_t>(bodySize), 'x');
  bool json = args.flag("json");
  if (!json)
    std::printf("echo: %d connections, %d workers, body %d B, %s, client threads %d, server threads %d\n", connections,
                load.workers, bodySize, describeLoad(load).c_str(), clientThreads, serverThreads);

  BenchMeter meter("echo", {"rtt"});
  BenchReporter reporter(meter, json);
  reporter.start();
  runLoad([&](int i) -> asio::io_context& { return clientPool.at(static_cast<size_t>(i) % clientPool.size()); },
          load, meter, [&](int worker) -> asio::awaitable<bool> {
    auto& conn = conns[static_cast<size_t>(worker) % conns.size()];
    auto r = co_await conn->invoke(sendShapedRequest(body, worker % 4), std::chrono::seconds(3));
    co_return r.ok() && r.value().code == ResponseCode::SUCCESS;
  });
  reporter.stop({{"connections", std::to_string(connections)}, {"workers", std::to_string(load.workers)},
                 {"body", std::to_string(bodySize)}});
  for (auto& c : conns) c->close();
  server.stop(std::chrono::milliseconds(500));
  clientPool.stop();
  serverPool.stop();
  return meter.ok() > 0 ? 0 : 1;
}

std::vector<OptionSpec> echoOptions() {
  auto options = loadOptionSpecs("concurrent requests (default 1)", "requests");
  options.insert(options.end(), {{"--connections <n>", "default 1", kInteger},
                                 {"-s <bytes>", "body size (default 1024)", kInteger},
                                 {"--client-threads <n>", "default 1", kInteger},
                                 {"--server-threads <n>", "default 1", kInteger},
                                 {"--reply-body", "answer with the request's body too"},
                                 jsonOption()});
  return options;
}

Registrar registrar("echo", "loopback limit: in-process remoting server + clients, send-shaped frames", echoOptions(),
                    &runEcho);

}  // namespace
}  // namespace rmq::bench
