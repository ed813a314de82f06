// `rmqbench route`: GET_ROUTEINFO_BY_TOPIC requests/s against a running name server, closed loop
// over -c connections (one in-flight request per worker). Registers a stand-in broker carrying
// the topic first (REGISTER_BROKER over its own connection, kept open for the run), so the
// route exists and has the shape of a real one (master + slave, 8 queues); --existing skips that and
// asks for a topic a running broker registered (e.g. one of 10,000).
#include <cstdio>
#include <fmt/format.h>

#include "common/request_code.h"
#include "common/response_code.h"
#include "net/remoting_client.h"
#include "tools/rmqbench/bench_driver.h"
#include "tools/rmqbench/bench_registry.h"

namespace rmq::bench {
namespace {

net::RemotingCommand registerStandIn(const std::string& topic, int64_t brokerId, const std::string& addr) {
  auto cmd = net::RemotingCommand::request(RequestCode::REGISTER_BROKER);
  cmd.extFields.set("brokerName", std::string("bench-broker"));
  cmd.extFields.set("brokerAddr", addr);
  cmd.extFields.set("clusterName", std::string("BenchCluster"));
  cmd.extFields.set("haServerAddr", addr);
  cmd.extFields.set("brokerId", brokerId);
  cmd.extFields.set("bodyCrc32", int64_t{0});
  cmd.body = fmt::format(
      "{{\"filterServerList\":[],\"topicConfigSerializeWrapper\":{{\"dataVersion\":{{\"counter\":1,\"timestamp\":1}},"
      "\"topicConfigTable\":{{\"{0}\":{{\"order\":false,\"perm\":6,\"readQueueNums\":8,\"topicFilterType\":"
      "\"SINGLE_TAG\",\"topicName\":\"{0}\",\"topicSysFlag\":0,\"writeQueueNums\":8}}}}}}}}",
      topic);
  return cmd;
}

int runRoute(OptionValues& args) {
  std::string addr = args.get({"n"}, "");
  int connections = static_cast<int>(args.getInt({"c"}, 1));
  LoadOptions load;
  load.workers = static_cast<int>(args.getInt({"t"}, connections));
  load.seconds = args.getDouble({"d"}, 10);
  std::string topic = args.get({"topic"}, "BenchRouteTopic");
  int clientThreads = static_cast<int>(args.getInt({"client-threads"}, 1));
  int version = static_cast<int>(args.getInt({"version"}, net::kCurrentVersion));
  if ((addr.empty() || connections < 1 || load.workers < 1 || load.seconds <= 0 || clientThreads < 1))
    args.addError("-n is required; counts and -d must be positive");
  if (!args.errors().empty()) return 2;

  net::IoPool pool(static_cast<size_t>(clientThreads));
  pool.start();
  // One RemotingClient per connection: each keeps its own cached connection to `addr`.
  std::vector<std::unique_ptr<net::RemotingClient>> clients;
  for (int i = 0; i < connections + 1; ++i) clients.push_back(std::make_unique<net::RemotingClient>(pool));
  auto& registrar = *clients.back();
  for (int64_t id : {0, 1}) {
    if (args.flag("existing")) break;  // a topic a real broker registered
    auto r = registrar.invokeSync(addr, registerStandIn(topic, id, fmt::format("127.0.0.{}:10911", id + 1)),
                                  std::chrono::seconds(5));
    if (!r || r->code != ResponseCode::SUCCESS) {
      std::fprintf(stderr, "rmqbench route: REGISTER_BROKER to %s failed: %s\n", addr.c_str(),
                   r ? r->remark.value_or("").c_str() : r.error().message.c_str());
      return 1;
    }
  }
  bool json = args.flag("json");
  if (!json)
    std::printf("route: %s topic %s, %d connections, %d workers, %s, client threads %d, version %d\n", addr.c_str(),
                topic.c_str(), connections, load.workers, describeLoad(load).c_str(), clientThreads, version);

  auto request = net::RemotingCommand::request(RequestCode::GET_ROUTEINFO_BY_TOPIC);
  request.extFields.set("topic", topic);
  request.version = version;
  BenchMeter meter("route", {"rtt"});
  BenchReporter reporter(meter, json);
  reporter.start();
  runLoad([&](int i) -> asio::io_context& { return pool.at(static_cast<size_t>(i) % pool.size()); }, load, meter,
          [&](int worker) -> asio::awaitable<bool> {
            auto& client = *clients[static_cast<size_t>(worker) % static_cast<size_t>(connections)];
            auto r = co_await client.invoke(addr, request, std::chrono::seconds(3));
            co_return r.ok() && r.value().code == ResponseCode::SUCCESS && !r.value().body.empty();
          });
  reporter.stop({{"connections", std::to_string(connections)}, {"workers", std::to_string(load.workers)}});
  for (auto& c : clients) c->shutdown();
  pool.stop();
  return meter.ok() > 0 ? 0 : 1;
}

Registrar registrar("route", "name server: GET_ROUTEINFO_BY_TOPIC requests/s over -c connections",
                    {namesrvOption(),
                     {"-c <connections>", "default 1", kInteger},
                     {"-t <workers>", "in-flight requests (default: one per connection)", kInteger},
                     {"-d <seconds>", "duration (default 10)", kNumber},
                     {"--topic <topic>", "default BenchRouteTopic"},
                     {"--existing", "query --topic as registered by a running broker (no stand-in registration)"},
                     {"--client-threads <n>", "default 1", kInteger},
                     {"--version <n>", "request version (default 407)", kInteger},
                     jsonOption()},
                    &runRoute);

}  // namespace
}  // namespace rmq::bench
