#pragma once
// NamesrvController: the name server role. Owns the route tables, the KV config, the remoting
// server with the NamesrvProcessor, the periodic expiry scan and a small worker pool for file
// writes. Lifecycle: construct, start() (loads kvConfig.json, binds, starts the scan), then
// shutdown() from a non-network thread before the IoPool stops. The scan runs on one IoPool
// thread; request handlers on the connection's thread.
#include <asio/steady_timer.hpp>
#include <asio/thread_pool.hpp>
#include <future>
#include <memory>

#include "config/process_config.h"
#include "metrics/text_writer.h"
#include "net/io_pool.h"
#include "net/remoting_server.h"
#include "roles/namesrv/kv_config_manager.h"
#include "roles/namesrv/namesrv_config.h"
#include "roles/namesrv/namesrv_processor.h"
#include "roles/namesrv/route_info_manager.h"

namespace rmq::namesrv {

class NamesrvController {
 public:
  // `configFile`: the --config file UPDATE_NAMESRV_CONFIG writes into (null: none).
  NamesrvController(net::IoPool& pool, NamesrvConfig config, config::ProcessConfig process = {},
                    std::shared_ptr<config::ConfigFilePersister> configFile = nullptr);
  ~NamesrvController();

  // TLS of the port (tls.server.mode and its context); before start(). Default: plaintext only.
  void setTls(net::ServerTls tls) { tls_ = std::move(tls); }
  Result<void> start();
  void shutdown();
  uint16_t port() const;
  RouteInfoManager& routes() { return routes_; }
  // "" while serving (started, not stopping), else why not (GET /readyz). Any thread.
  std::string notReadyReason() const;
  // rmqnode_namesrv_* figures (GET /metrics). Any thread.
  void writeMetrics(metrics::TextWriter& w) const;

 private:
  void scheduleScan(std::chrono::milliseconds delay);
  void scanOnce();

  net::IoPool& pool_;
  NamesrvConfig startConfig_;
  LiveNamesrvConfig live_;
  RouteInfoManager routes_;
  KvConfigManager kv_;
  asio::thread_pool worker_;
  NamesrvProcessor processor_;
  std::unique_ptr<net::RemotingServer> server_;
  net::ServerTls tls_;
  asio::steady_timer scanTimer_;
  std::chrono::milliseconds drain_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> started_{false};
};

}  // namespace rmq::namesrv
