#pragma once
// HaClient: the slave side of HA replication (Java's HAService.HAClient, PROTOCOL.md §9).
// Connects to the master's HA address (haMasterAddress, or what the name server answered to
// REGISTER_BROKER: setMasterAddress), reports its commit log max offset at once, appends every
// frame at the same physical offset through MessageStore::appendReplicated (the store's
// dispatcher builds consume queues and index files), reports again after every batch of frames
// and at least every haSendHeartbeatInterval.
//  - A frame that does not continue the slave's commit log end (when the slave has any data) is
//    refused: one error log line, connection closed, nothing appended; reconnecting resumes from
//    the slave's own end, so a restart resumes where it stopped.
//  - No bytes from the master for haHousekeepingInterval (a Java or rmqnode master heartbeats every
//    haSendHeartbeatInterval) → the connection is closed and re-established.
//  - Reconnects with backoff (200 ms doubling to 5 s, Java retries every 5 s).
// Threads: one HA thread owned by this object; every public method is thread-safe.
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "store/message_store.h"

namespace rmq::repl {

class HaClient {
 public:
  HaClient(store::MessageStore& store, const store::StoreConfig& cfg);
  ~HaClient();  // stop()
  HaClient(const HaClient&) = delete;
  HaClient& operator=(const HaClient&) = delete;

  void start();
  void stop();  // idempotent; not on the HA thread

  // "ip:port" of the master's HA service; a change drops the current connection. Empty = none.
  void setMasterAddress(const std::string& haAddress);
  // Failover mode (before start()): every connection begins with the epoch handshake
  // (ha_protocol.h) as `brokerId`; a master below the followed epoch is refused.
  void enableEpochHandshake(int64_t brokerId);
  // Failover: follow `haAddress`, the master of `epoch` (one call, so no connection pairs the new
  // address with the old epoch).
  void follow(const std::string& haAddress, int64_t epoch);
  int64_t masterEpoch() const { return masterEpoch_.load(); }
  // Failover, before this broker becomes master: follows nobody, and returns once no frame can be
  // appended any more (the session closed on the HA thread). Not on the HA thread.
  void detach();  // from the last handshake (0: none)
  std::string masterAddress() const;
  bool connected() const { return connected_.load(); }
  // End offset (offset + size) of the newest frame received from the master, -1 before any.
  int64_t masterOffsetSeen() const { return masterOffsetSeen_.load(); }
  uint64_t refusedStreams() const { return refused_.load(); }  // frames refused as non-continuous

  class Session;  // one connection (ha_client.cpp)

 private:
  asio::awaitable<void> run();
  asio::awaitable<void> sleep(std::chrono::milliseconds d);

  store::MessageStore& store_;
  const store::StoreConfig& cfg_;
  asio::io_context io_;
  asio::steady_timer idle_;  // reconnect backoff / waiting for an address; woken by setMasterAddress
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::atomic<bool> connected_{false};
  std::atomic<int64_t> masterOffsetSeen_{-1};
  std::atomic<uint64_t> refused_{0};
  std::atomic<int64_t> masterEpoch_{0};
  std::atomic<int64_t> followEpoch_{0};
  int64_t handshakeId_ = -1;  // failover mode: our brokerId (-1: 4.x stream, no handshake)
  mutable std::mutex mu_;
  std::string masterAddress_;
  uint64_t addressVersion_ = 0;  // bumped by setMasterAddress (guarded by mu_)
  std::shared_ptr<Session> session_;  // HA thread only
};

}  // namespace rmq::repl
