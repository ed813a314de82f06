#include "roles/node.h"

#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>

#include "common/fault_point.h"
#include "common/fd_limit.h"
#include "common/log.h"
#include "config/config_file_persister.h"
#include "config/config_loader.h"
#include "config/config_printer.h"
#include "config/process_config.h"
#include "config/tls_config.h"
#include "net/tls_settings.h"
#include "console/console.h"
#include "http/http_server.h"
#include "net/io_pool.h"
#include "net/memory_release.h"
#include "roles/namesrv/namesrv_controller.h"
#include "roles/node_http.h"

// RMQ_NO_BROKER builds a name-server-only binary (for testing while the broker is incomplete).
#if !defined(RMQ_NO_BROKER) && __has_include("roles/broker/broker_controller.h") && __has_include("store/store_config.h")
#define RMQ_HAS_BROKER 1
#include "roles/broker/broker_controller.h"
#else
#define RMQ_HAS_BROKER 0
#endif

namespace rmq::node {
namespace {

bool has(const std::vector<Role>& roles, Role r) { return std::find(roles.begin(), roles.end(), r) != roles.end(); }

int64_t nowMillis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

// The 5.x proxy's default gRPC port: what the dev node serves unless its config says otherwise.
constexpr int32_t kDevGrpcPort = 8081;

struct Node::Impl {
  CliOptions options;
  config::ProcessConfig process;
  config::TlsConfig tls;        // section "tls": Java's TlsSystemConfig keys
  net::ServerTls serverTls;     // what the remoting ports do (made by setUpTls)
  net::TlsContextPtr clientTls;  // the broker's connections to the name servers (tls.enable)
  net::TlsContextPtr consoleTls;  // the console's clients: TLS when tls.enable or the ports enforce it
  namesrv::NamesrvConfig namesrvConfig;
#if RMQ_HAS_BROKER
  broker::BrokerConfig brokerConfig;
  store::StoreConfig storeConfig;
  std::unique_ptr<broker::BrokerController> broker;
#endif
  config::ApplyReport loadReport;  // keys the config file set and RocketMQ keys it ignored
  // The --config file, which UPDATE_BROKER_CONFIG / UPDATE_NAMESRV_CONFIG write into (one writer
  // for both roles of a namesrv,master process); without --config updates stay in memory.
  std::shared_ptr<config::ConfigFilePersister> configFile = std::make_shared<config::ConfigFilePersister>();
  std::unique_ptr<net::IoPool> pool;
  std::unique_ptr<net::MemoryReleaser> releaser;  // ticks on the pool's threads; destroyed first
  std::unique_ptr<namesrv::NamesrvController> namesrv;
  std::unique_ptr<http::HttpServer> http;  // when httpListenPort > 0; stopped before the roles
  bool httpPortDefaulted = false;          // the dev node's 8080, not asked for by the config
  bool grpcPortDefaulted = false;          // the dev node's gRPC 8081, likewise
  std::unique_ptr<console::Console> console;  // with the HTTP server: its clients and /api/ routes
  // Installed before any role starts, so a SIGTERM right after the ports open is not lost to the
  // default action; delivered by waitForSignal().
  asio::io_context signalContext;
  std::unique_ptr<asio::signal_set> signals;

  bool hasBroker() const { return has(options.roles, Role::Master) || has(options.roles, Role::Slave); }

  std::vector<config::ConfigSection> sections() {
    std::vector<config::ConfigSection> s{config::section("process", process), config::section("tls", tls)};
    if (has(options.roles, Role::Namesrv)) s.push_back(config::section("namesrv", namesrvConfig));
#if RMQ_HAS_BROKER
    if (hasBroker()) {
      s.push_back(config::section("broker", brokerConfig));
      s.push_back(config::section("store", storeConfig));
    }
#endif
    return s;
  }

  Result<void> load();
  Result<void> applyRoleRules();
  Result<void> setUpTls();
  Result<void> startHttp();
  void addConsole(http::HttpRouter& router);
  std::string consoleNamesrvAddr() const;
};

// The name servers the console's clients use: the broker's, else this process's own name server.
std::string Node::Impl::consoleNamesrvAddr() const {
#if RMQ_HAS_BROKER
  if (hasBroker() && !brokerConfig.namesrvAddr.empty()) return brokerConfig.namesrvAddr;
#endif
  if (!has(options.roles, Role::Namesrv)) return {};
  const std::string& bind = namesrvConfig.bindAddress;
  return fmt::format("{}:{}", bind.empty() || bind == "0.0.0.0" ? "127.0.0.1" : bind, namesrvConfig.listenPort);
}

// The console (src/console) on the same HTTP server; a node without name servers to ask serves
// /metrics and the health checks only.
void Node::Impl::addConsole(http::HttpRouter& router) {
  std::string namesrvAddr = consoleNamesrvAddr();
  if (namesrvAddr.empty()) {
    log::warn("console: no name server address (namesrvAddr); the console is off");
    return;
  }
  console = std::make_unique<console::Console>(console::ConsoleOptions{namesrvAddr, process.consoleReadOnly, consoleTls});
  if (auto r = console->start(); !r) {
    log::warn("console: {}; the console is off", r.error().message);
    console.reset();
    return;
  }
  console->registerRoutes(router);
}

// One HTTP server for the process, started before the roles so /healthz answers and /readyz says
// 503 while the store recovers. Every role's routes are registered here, before it accepts.
Result<void> Node::Impl::startHttp() {
  if (process.httpListenPort == 0) return {};
  auto router = std::make_shared<http::HttpRouter>();
  std::vector<RoleEndpoint> roles;
  if (namesrv) {
    auto* ns = namesrv.get();
    roles.push_back(RoleEndpoint{"namesrv", [ns] { return ns->notReadyReason(); },
                                 [ns](metrics::TextWriter& w) { ns->writeMetrics(w); }});
  }
#if RMQ_HAS_BROKER
  if (broker) {
    auto* b = broker.get();
    roles.push_back(RoleEndpoint{"broker", [b] { return b->notReadyReason(); },
                                 [b](metrics::TextWriter& w) { b->writeMetrics(w); }});
  }
#endif
  addNodeRoutes(*router, std::move(roles));
  addConsole(*router);
  http::HttpServerOptions options;
  options.host = process.httpBindAddress;
  options.port = static_cast<uint16_t>(process.httpListenPort);
  http = std::make_unique<http::HttpServer>(*pool, options, std::move(router));
  auto started = http->start();
  if (!started && httpPortDefaulted) {  // a busy default port must not keep a dev node from starting
    log::warn("{}; the dev node runs without HTTP (set httpListenPort to choose a port, 0 = off)",
              started.error().message);
    http.reset();
    return {};
  }
  return started;
}

Result<void> Node::Impl::load() {
  if (!options.configFile.empty()) {
    auto report = config::loadConfigFile(options.configFile, sections());
    if (!report) return usageError(report.error().message);
    loadReport = std::move(*report);
    configFile = std::make_shared<config::ConfigFilePersister>(options.configFile, sections());
  }
  if (auto r = applyRoleRules(); !r) return r;
  return setUpTls();
}

// Java's NettyRemotingServer.loadSslContext / NettyRemotingClient: tls.config.file is read, and
// the contexts made, only when a port or the broker's client uses TLS. Bad paths or passwords
// stop the start (exit code 2) with the key named, where Java would log and serve without TLS.
Result<void> Node::Impl::setUpTls() {
  serverTls.mode = net::tlsMode(tls);
  bool clientTlsWanted = tls.enable || serverTls.mode == net::TlsMode::Enforcing;
  if (serverTls.mode == net::TlsMode::Disabled && !clientTlsWanted) return {};
  auto read = tls.readConfigFile();
  if (!read) return usageError(read.error().message);
  if (!read->empty()) log::info("tls: read {}", *read);
  if (serverTls.mode != net::TlsMode::Disabled) {
    auto ctx = net::makeServerTlsContext(net::serverTlsSettings(tls));
    if (!ctx) return usageError(ctx.error().message);
    serverTls.context = std::move(*ctx);
  }
  if (clientTlsWanted) {
    auto ctx = net::makeClientTlsContext(net::clientTlsSettings(tls));
    if (!ctx) return usageError(ctx.error().message);
    consoleTls = *ctx;
    if (tls.enable) clientTls = std::move(*ctx);
  }
  return {};
}

Result<void> Node::Impl::applyRoleRules() {
  log::Level level;
  if (!log::parseLevel(process.logLevel, level)) return usageError("logLevel: expected debug, info, warn or error");
  bool httpPortSet = std::find(loadReport.written.begin(), loadReport.written.end(), "httpListenPort") !=
                     loadReport.written.end();
  if (!httpPortSet && has(options.roles, Role::Namesrv) && has(options.roles, Role::Master)) {
    process.httpListenPort = config::ProcessConfig::kDevHttpPort;  // dev node: metrics and console on
    httpPortDefaulted = true;
  }
#if RMQ_HAS_BROKER
  bool grpcPortSet = std::find(loadReport.written.begin(), loadReport.written.end(), "grpcServerPort") !=
                     loadReport.written.end();
  if (!grpcPortSet && has(options.roles, Role::Namesrv) && has(options.roles, Role::Master)) {
    brokerConfig.grpcServerPort = kDevGrpcPort;  // dev node: RocketMQ 5.x clients connect at once
    grpcPortDefaulted = true;
  }
  if (!hasBroker()) {
    if (options.namesrvAddr) return usageError("-n is only meaningful with a broker role (master or slave)");
    return {};
  }
  if (options.namesrvAddr) brokerConfig.namesrvAddr = *options.namesrvAddr;
  if (auto r = brokerConfig.checkNamesrvAddr(); !r) return usageError(r.error().message);
  if (brokerConfig.namesrvAddr.empty() && has(options.roles, Role::Namesrv)) {
    brokerConfig.namesrvAddr = fmt::format("127.0.0.1:{}", namesrvConfig.listenPort);  // dev mode: our own
  }
  if (brokerConfig.failover.failoverEnable && brokerConfig.brokerId <= 0)
    return usageError("failoverEnable: every broker of the group needs its own brokerId > 0 (the master registers "
                      "as brokerId 0 while it is master; set brokerId in the config)");
  if (brokerConfig.failover.failoverEnable && brokerConfig.failover.etcdEndpoints().empty())
    return usageError("failoverEnable: failoverEtcdEndpoints names no etcd endpoint");
  if (options.roleFromConfig && storeConfig.isSlave()) {  // `rmqnode -c broker-a-s.properties`
    options.roles = {Role::Slave};
    options.roleText = "slave";
  }
  if (has(options.roles, Role::Slave)) {
    storeConfig.brokerRole = "SLAVE";
    if (brokerConfig.brokerId <= 0) return usageError("role slave: brokerId must be > 0 (set brokerId in the config)");
  } else if (storeConfig.isSlave()) {  // --role wins over the file, as for slave
    log::warn("--role={}: the config's brokerRole SLAVE is replaced by ASYNC_MASTER", options.roleText);
    storeConfig.brokerRole = "ASYNC_MASTER";
  }
  return {};
#else
  if (hasBroker()) return usageError("the broker roles (master, slave) are not available in this build yet");
  if (options.namesrvAddr) return usageError("-n is only meaningful with a broker role (master or slave)");
  return {};
#endif
}

Node::Node(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Node::~Node() { shutdown(); }

Result<std::unique_ptr<Node>> Node::create(const CliOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (auto r = impl->load(); !r) return r.error();
  return std::unique_ptr<Node>(new Node(std::move(impl)));
}

std::string Node::effectiveConfigToml() {
  std::string header = "# rmqnode " RMQ_VERSION " effective config for --role=" + impl_->options.roleText + "\n";
  if (!impl_->options.configFile.empty()) header += config::renderApplyReport(impl_->loadReport, impl_->options.configFile);
  return header + "\n" + config::renderToml(impl_->sections());
}

std::string Node::effectiveConfigProperties(bool importantOnly) {
  auto sections = impl_->sections();
  return importantOnly ? config::renderImportantProperties(sections) : config::renderProperties(sections);
}

Result<void> Node::start() {
  auto& s = *impl_;
  int64_t t0 = nowMillis();
  s.signals = std::make_unique<asio::signal_set>(s.signalContext, SIGINT, SIGTERM);
  log::Level level;
  log::parseLevel(s.process.logLevel, level);
  log::setLevel(level);
  std::error_code ec;
  std::filesystem::create_directories(s.process.logDir, ec);
  std::string logFile = s.process.logDir + (s.hasBroker() ? "/broker.log" : "/namesrv.log");
  if (!log::openFile(logFile)) log::warn("cannot open log file {}: {}; logging to stderr only", logFile, std::strerror(errno));
  fault::logConfigured();
  for (const auto& c : s.loadReport.clamped) log::warn("{}", c);
  for (const auto& i : s.loadReport.ignored) log::warn("config: {} ignored ({}): {}", i.key, i.origin, i.reason);
  // Every client connection holds a descriptor: take the hard limit (RocketMQ's scripts: ulimit -n).
  if (auto fd = raiseFdLimit(); !fd.ok) log::warn("open-file limit {} (hard {}) could not be raised", fd.before, fd.hard);
  else log::info("open-file limit {} (was {}, hard {})", fd.soft, fd.before, fd.hard);

  s.pool = std::make_unique<net::IoPool>(s.process.ioThreads());
  s.pool->start();
  // Memory freed by closed connections goes back to the OS within a second (src/net/README.md).
  s.releaser = std::make_unique<net::MemoryReleaser>(*s.pool, std::chrono::seconds(1));
  std::string ports;
  if (has(s.options.roles, Role::Namesrv))
    s.namesrv = std::make_unique<namesrv::NamesrvController>(*s.pool, s.namesrvConfig, s.process, s.configFile);
  if (s.namesrv) s.namesrv->setTls(s.serverTls);
#if RMQ_HAS_BROKER
  if (s.hasBroker()) {
    s.broker = std::make_unique<broker::BrokerController>(*s.pool, s.brokerConfig, s.storeConfig, s.configFile);
    s.broker->setTls(s.serverTls, s.clientTls);
    s.broker->setGrpc(net::serverTlsSettings(s.tls), s.grpcPortDefaulted);
  }
#endif
  if (auto r = s.startHttp(); !r) return r;
  if (s.namesrv) {
    if (auto r = s.namesrv->start(); !r) return r;
    ports += fmt::format("namesrv:{}", s.namesrv->port());
  }
#if RMQ_HAS_BROKER
  if (s.broker) {
    if (auto r = s.broker->start(); !r) return r;
    ports += fmt::format("{}broker:{}", ports.empty() ? "" : " ", s.broker->port());
  }
#endif
  if (s.http) ports += fmt::format(" http:{}", s.http->port());
  log::info("rmqnode {} started: role={} ports={} config={} threads={} ready in {} ms", RMQ_VERSION,
            s.options.roleText, ports, s.options.configFile.empty() ? "(defaults)" : s.options.configFile,
            s.pool->size(), nowMillis() - t0);
  return {};
}

void Node::waitForSignal() {
  auto& s = *impl_;
  if (!s.signals) s.signals = std::make_unique<asio::signal_set>(s.signalContext, SIGINT, SIGTERM);
  s.signals->async_wait([](std::error_code, int sig) { log::info("signal {} received, shutting down", sig); });
  s.signalContext.run();
}

void Node::shutdown() {
  auto& s = *impl_;
  if (!s.pool) return;
  int64_t t0 = nowMillis();
  if (s.http) s.http->stop();
  if (s.console) s.console->shutdown();  // its clients' threads; no request is running any more
#if RMQ_HAS_BROKER
  if (s.broker) s.broker->shutdown();
#endif
  if (s.namesrv) s.namesrv->shutdown();
  s.pool->stop();
#if RMQ_HAS_BROKER
  s.broker.reset();
#endif
  s.namesrv.reset();
  s.http.reset();
  s.console.reset();
  s.releaser.reset();
  s.pool.reset();
  log::info("rmqnode stopped in {} ms", nowMillis() - t0);
}

}  // namespace rmq::node
