#pragma once
// NamesrvProcessor: the request handlers of every name-server code of PROTOCOL.md §2.2,
// registered into a net::Dispatcher. Handlers run on the network thread of the requesting
// connection and only touch in-memory tables; the ones that write files (KV config,
// UPDATE_NAMESRV_CONFIG) hop to the worker pool and come back.
#include <asio/thread_pool.hpp>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "config/config_file_persister.h"
#include "config/process_config.h"
#include "net/dispatcher.h"
#include "roles/namesrv/kv_config_manager.h"
#include "roles/namesrv/namesrv_config.h"
#include "roles/namesrv/route_info_manager.h"

namespace rmq::namesrv {

// The effective config, changeable at run time by UPDATE_NAMESRV_CONFIG. Values read on hot
// paths are mirrored in atomics.
class LiveNamesrvConfig {
 public:
  LiveNamesrvConfig(NamesrvConfig ns, config::ProcessConfig process);
  // Applies properties text (all-or-nothing); refuses kvConfigPath/configStorePath (code 16).
  // Returns the new values, captured by `file` for writing into the config file.
  Result<config::PendingUpdate> update(std::string_view propertiesText, config::ConfigFilePersister& file);
  std::string renderProperties();
  NamesrvConfig snapshot();

  std::atomic<bool> orderMessageEnable;
  std::atomic<int64_t> brokerExpiredMillis;
  std::atomic<int64_t> scanNotActiveBrokerInterval;
  // Called (under the update lock) after each update with the connection keys now in force, so
  // the server's open and future connections take them (set by the controller before it serves).
  std::function<void(const config::ConnectionLimits&)> onConnectionLimits;

 private:
  void refreshAtomicsLocked();
  std::mutex mu_;
  NamesrvConfig ns_;
  config::ProcessConfig process_;
};

class NamesrvProcessor {
 public:
  // `configFile`: the --config file UPDATE_NAMESRV_CONFIG writes into (null: none).
  NamesrvProcessor(RouteInfoManager& routes, KvConfigManager& kv, LiveNamesrvConfig& config,
                   asio::thread_pool& worker, std::shared_ptr<config::ConfigFilePersister> configFile = nullptr);
  void registerAll(net::Dispatcher& dispatcher);

 private:
  using Cmd = net::RemotingCommand;
  using Conn = net::ConnectionPtr;
  Cmd registerBroker(const Conn& conn, const Cmd& req);
  Cmd unregisterBroker(const Cmd& req);
  Cmd getRouteInfoByTopic(const Cmd& req);
  Cmd queryDataVersion(const Cmd& req);
  Cmd deleteTopic(const Cmd& req);
  Cmd changeWritePerm(const Cmd& req, bool wipe);
  Cmd getKvConfig(const Cmd& req);
  Cmd getKvList(const Cmd& req);
  Cmd putKvConfig(const Cmd& req);      // worker thread
  Cmd deleteKvConfig(const Cmd& req);   // worker thread
  Cmd updateConfig(const Cmd& req);     // worker thread

  // Registers a handler that runs `fn` inline on the network thread.
  void onNetwork(net::Dispatcher& d, int code, std::function<Cmd(const Conn&, const Cmd&)> fn);
  // Registers a handler that runs `fn` on the worker pool (it may block on disk).
  void onWorker(net::Dispatcher& d, int code, std::function<Cmd(const Cmd&)> fn);

  RouteInfoManager& routes_;
  KvConfigManager& kv_;
  LiveNamesrvConfig& config_;
  asio::thread_pool& worker_;
  std::shared_ptr<config::ConfigFilePersister> configFile_;  // never null
};

}  // namespace rmq::namesrv
