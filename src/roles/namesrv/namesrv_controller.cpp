#include "roles/namesrv/namesrv_controller.h"

#include <asio/post.hpp>

#include "common/log.h"
#include "common/wall_clock.h"
#include "roles/connection_options.h"

namespace rmq::namesrv {
NamesrvController::NamesrvController(net::IoPool& pool, NamesrvConfig config, config::ProcessConfig process,
                                     std::shared_ptr<config::ConfigFilePersister> configFile)
    : pool_(pool),
      startConfig_(config),
      live_(config, process),
      kv_(config.kvConfigPath),
      worker_(static_cast<size_t>(config.serverWorkerThreads)),
      processor_(routes_, kv_, live_, worker_, std::move(configFile)),
      scanTimer_(pool.at(0)),
      drain_(process.shutdownAwaitMillis) {}

NamesrvController::~NamesrvController() { shutdown(); }

Result<void> NamesrvController::start() {
  if (auto r = kv_.load(); !r) return r;
  auto dispatcher = std::make_shared<net::Dispatcher>();
  processor_.registerAll(*dispatcher);
  net::ServerOptions options;
  options.host = startConfig_.bindAddress;
  options.port = static_cast<uint16_t>(startConfig_.listenPort);
  options.connection = connectionOptions(startConfig_.connection);
  options.tls = tls_;
  server_ = std::make_unique<net::RemotingServer>(pool_, options, dispatcher);
  server_->onConnectionClosed([this](const net::ConnectionPtr& conn) {
    for (auto& addr : routes_.onChannelDestroyed(conn->id())) {
      log::info("broker {} removed: its connection {} closed", addr, conn->remoteAddress());
    }
  });
  live_.onConnectionLimits = [server = server_.get()](const config::ConnectionLimits& limits) {
    server->setConnectionOptions(connectionOptions(limits));
  };
  if (auto r = server_->start(); !r) return r;
  started_ = true;
  scheduleScan(std::chrono::milliseconds(std::min<int64_t>(5000, live_.scanNotActiveBrokerInterval.load())));
  return {};
}

void NamesrvController::scheduleScan(std::chrono::milliseconds delay) {
  scanTimer_.expires_after(delay);
  scanTimer_.async_wait([this](std::error_code ec) {
    if (ec || stopping_) return;
    scanOnce();
    scheduleScan(std::chrono::milliseconds(live_.scanNotActiveBrokerInterval.load()));
  });
}

void NamesrvController::scanOnce() {
  auto expired = routes_.scanNotActiveBrokers(steadyMillis(), live_.brokerExpiredMillis.load());
  for (auto& ch : expired) {
    log::warn("broker channel {} expired: no registration for {} ms", ch.id, live_.brokerExpiredMillis.load());
    if (auto handle = ch.handle.lock()) std::static_pointer_cast<net::Connection>(handle)->close();
  }
}

uint16_t NamesrvController::port() const { return server_ ? server_->port() : 0; }

std::string NamesrvController::notReadyReason() const {
  if (stopping_) return "shutting down";
  if (!started_) return "starting";
  return "";
}

void NamesrvController::writeMetrics(metrics::TextWriter& w) const {
  if (!started_ || stopping_) return;
  w.family("rmqnode_namesrv_live_brokers", "Broker addresses registered with this name server.", "gauge");
  w.sample("rmqnode_namesrv_live_brokers", {}, static_cast<double>(routes_.liveBrokerCount()));
  w.family("rmqnode_namesrv_topics", "Topics this name server routes.", "gauge");
  w.sample("rmqnode_namesrv_topics", {}, static_cast<double>(routes_.allTopics().size()));
  w.family("rmqnode_connections", "Open remoting connections per role.", "gauge");
  w.sample("rmqnode_connections", {{"role", "namesrv"}}, static_cast<double>(server_->connectionCount()));
}

void NamesrvController::shutdown() {
  if (!started_ || stopping_.exchange(true)) return;
  // Cancel on the timer's thread and wait, so no scan runs once we return.
  std::promise<void> cancelled;
  asio::post(scanTimer_.get_executor(), [this, &cancelled] {
    scanTimer_.cancel();
    cancelled.set_value();
  });
  if (pool_.running()) cancelled.get_future().wait();
  server_->stop(drain_);
  worker_.join();
}

}  // namespace rmq::namesrv
