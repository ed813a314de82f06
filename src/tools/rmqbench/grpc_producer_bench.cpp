// `rmqbench grpc-producer`: RocketMQ 5.x SendMessage load over the gRPC transport's client
// (grpc/grpc_channel.h) against a broker's grpcServerPort: -t sync senders (each awaits its
// answer), spread over --connections HTTP/2 connections (one io thread each), NORMAL messages of
// -s bytes with a fresh 34-hex message id each. Compare with `rmqbench producer` on the same box
// (issue 20's goal: >= 80 % of the remoting TPS, p99 <= 1.5x).
#include <unistd.h>

#include <asio/co_spawn.hpp>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <fmt/format.h>

#include "apache/rocketmq/v2/service.pb.h"
#include "common/wall_clock.h"
#include "grpc/grpc_channel.h"
#include "grpc/grpc_tls.h"
#include "net/io_pool.h"
#include "tools/rmqbench/bench_driver.h"
#include "tools/rmqbench/bench_registry.h"
#include "tools/rmqbench/run_on.h"

namespace rmq::bench {
namespace {

namespace v2 = apache::rocketmq::v2;
constexpr std::string_view kSendPath = "/apache.rocketmq.v2.MessagingService/SendMessage";

struct GrpcProducerOptions {
  std::string host = "127.0.0.1", topic;
  uint16_t port = 8081;
  int bodySize = 1024, connections = 1;
  bool tls = false, json = false;
  LoadOptions load;
};

bool readOptions(OptionValues& args, GrpcProducerOptions& o) {
  readGrpcEndpoint(args, o.host, o.port);  // an error is reported with the others below
  o.topic = args.get({"topic"}, "BenchmarkTest");
  o.bodySize = static_cast<int>(args.getInt({"s"}, 1024));
  o.connections = static_cast<int>(args.getInt({"connections"}, 1));
  o.tls = args.flag("tls");
  o.json = args.flag("json");
  o.load = readLoad(args);
  if (o.bodySize < 1 || o.connections < 1) args.addError("-s and --connections must be >= 1");
  return args.errors().empty();
}

// A 5.x message id: "01" + 6 bytes of host + pid + seconds + sequence, 34 upper-hex chars.
std::string messageId(uint32_t seq) {
  return fmt::format("01{:012X}{:04X}{:08X}{:08X}", 0x0000BE0C0000ULL, ::getpid() & 0xFFFF,
                     static_cast<uint32_t>(std::time(nullptr)), seq);
}

std::string sendRequest(const GrpcProducerOptions& o, const std::string& body, uint32_t seq) {
  v2::SendMessageRequest req;
  auto* m = req.add_messages();
  m->mutable_topic()->set_name(o.topic);
  m->set_body(body);
  auto* sp = m->mutable_system_properties();
  sp->set_message_id(messageId(seq));
  sp->set_message_type(v2::MessageType::NORMAL);
  sp->set_tag("TagA");
  sp->set_body_encoding(v2::Encoding::IDENTITY);
  sp->mutable_born_timestamp()->set_seconds(nowMillis() / 1000);
  sp->set_born_host("127.0.0.1");
  return req.SerializeAsString();
}

asio::awaitable<bool> sendOnce(grpc::GrpcChannel& ch, const grpc::Metadata& md, std::string request) {
  auto r = co_await ch.unary(std::string(kSendPath), md, std::move(request), std::chrono::seconds(3));
  if (!r.status.isOk()) co_return false;
  v2::SendMessageResponse resp;
  co_return resp.ParseFromString(r.response) && resp.status().code() == v2::Code::OK;
}

int runGrpcProducer(OptionValues& args) {
  GrpcProducerOptions o;
  if (!readOptions(args, o)) return 2;
  net::IoPool io(static_cast<size_t>(o.connections));
  io.start();
  grpc::ChannelOptions co;
  if (o.tls) {
    auto ctx = grpc::makeGrpcClientTlsContext();
    if (!ctx) {
      std::fprintf(stderr, "rmqbench grpc-producer: %s\n", ctx.error().message.c_str());
      return 1;
    }
    co.tls = *ctx;
  }
  std::vector<std::shared_ptr<grpc::GrpcChannel>> channels;
  for (int i = 0; i < o.connections; ++i) {
    auto ch = runOn(io.at(static_cast<size_t>(i)), grpc::GrpcChannel::connect(o.host, o.port, co));
    if (!ch) {
      std::fprintf(stderr, "rmqbench grpc-producer: connect %s:%u: %s\n", o.host.c_str(), o.port,
                   ch.error().message.c_str());
      return 1;
    }
    channels.push_back(*ch);
  }
  const std::string clientId = fmt::format("127.0.0.1@{}@0@rmqbench", ::getpid());
  const grpc::Metadata md{{"x-mq-client-id", clientId}, {"x-mq-language", "CPP"}, {"x-mq-protocol", "v2"},
                          {"x-mq-client-version", "5.0.8"}};
  const std::string body(static_cast<size_t>(o.bodySize), 'a');
  std::atomic<uint32_t> seq{0};
  // Warm-up: one send outside the measurement; a failure ends the run with the reason.
  if (!runOn(io.at(0), sendOnce(*channels[0], md, sendRequest(o, body, seq++)))) {
    std::fprintf(stderr, "rmqbench grpc-producer: first send to %s failed (topic missing? gRPC port?)\n",
                 o.topic.c_str());
    return 1;
  }
  if (!o.json)
    std::printf("grpc-producer: %s:%u topic %s, %d workers, %d connections, body %d B, %s\n", o.host.c_str(), o.port,
                o.topic.c_str(), o.load.workers, o.connections, o.bodySize, describeLoad(o.load).c_str());
  BenchMeter meter("send", {"send"});
  BenchReporter reporter(meter, o.json);
  reporter.start();
  auto channelOf = [&](int w) -> grpc::GrpcChannel& { return *channels[static_cast<size_t>(w) % channels.size()]; };
  runLoad([&](int w) -> asio::io_context& { return io.at(static_cast<size_t>(w) % io.size()); }, o.load, meter,
          [&](int w) -> asio::awaitable<bool> {
            std::string request = sendRequest(o, body, seq++);
            bool ok = co_await sendOnce(channelOf(w), md, std::move(request));
            co_return ok;
          });
  reporter.stop({{"mode", "grpc"}, {"workers", std::to_string(o.load.workers)},
                 {"connections", std::to_string(o.connections)}, {"body", std::to_string(o.bodySize)}});
  for (size_t i = 0; i < channels.size(); ++i) {
    auto ch = channels[i];
    auto closeIt = [](std::shared_ptr<grpc::GrpcChannel> c) -> asio::awaitable<bool> {
      c->close();
      co_return true;
    };
    runOn(io.at(i), closeIt(ch));
  }
  channels.clear();
  io.stop();
  return meter.ok() > 0 ? 0 : 1;
}

std::vector<OptionSpec> grpcProducerOptions() {
  auto options = loadOptionSpecs("concurrent senders (default 1)", "sends");
  options.insert(options.end(), {{"--endpoint <host:port>", "the broker's gRPC port (default 127.0.0.1:8081)"},
                                 {"--topic <topic>", "default BenchmarkTest"},
                                 {"-s <bytes>", "body size (default 1024)", kInteger},
                                 {"--connections <n>", "HTTP/2 connections, one io thread each (default 1)", kInteger},
                                 {"--tls", "TLS (any server certificate accepted)"},
                                 jsonOption()});
  return options;
}

Registrar registrar("grpc-producer", "RocketMQ 5.x gRPC SendMessage load (sync senders over HTTP/2 connections)",
                    grpcProducerOptions(), &runGrpcProducer);

}  // namespace
}  // namespace rmq::bench
