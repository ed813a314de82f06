#pragma once
// HaMaster: the master side of HA replication (Java's HAService acceptor + HAConnection +
// GroupTransferService, PROTOCOL.md §9). Listens on haListenPort; one connection per slave (any
// number of slaves), each a reader coroutine (8-byte offset reports), a writer coroutine (frames)
// and a watchdog.
//  - Start point: the slave's first report; a report of 0 starts at the beginning of the master's
//    last commit log file (exactly as Java's WriteSocketService).
//  - Frames carry at most haTransferBatchSize bytes and never cross a commit log file. The writer
//    is woken by the store's append listener (onAppended), not by a poll; when nothing was written
//    for haSendHeartbeatInterval it sends a heartbeat (size 0) frame.
//  - Every report is the slave's ack: MessageStore::notifySlaveAck completes SYNC_MASTER sends
//    (the store keeps the highest ack, like Java's push2SlaveMaxOffset). A report that is
//    negative or beyond the master's max offset (the first one included, stricter than Java)
//    closes the connection unacked; so does haHousekeepingInterval without a report.
//  - setSlaveAvailable(true) while at least one slave is connected (Java's connectionCount > 0).
// Threads: everything runs on the HA thread this object owns (never a client network thread;
// reading old commit log pages for a slave that catches up may fault pages in from disk).
// onAppended() is called from any appending thread and only posts.
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "net/tcp_listener.h"
#include "repl/replica_set.h"
#include "store/message_store.h"

namespace rmq::repl {

struct SlaveInfo {
  std::string address;         // slave's ip:port as seen by the master
  int64_t requestOffset = -1;  // first report (-1 = none yet)
  int64_t ackOffset = -1;      // latest report
  int64_t nextTransfer = -1;   // next byte to ship (-1 = not started)
};

class HaMaster {
 public:
  // replicas: failover mode (replica_set.h): the epoch handshake, acks per slave id through the
  // in-sync set; null: the 4.x stream exactly (every report is the store's ack).
  HaMaster(store::MessageStore& store, const store::StoreConfig& cfg, ReplicaSet* replicas = nullptr);
  ~HaMaster();  // stop()
  HaMaster(const HaMaster&) = delete;
  HaMaster& operator=(const HaMaster&) = delete;

  // Binds host:port (port 0 = any free port) and starts the HA thread. Registers the store's
  // append listener: call before the store's start() (see MessageStore::setAppendListener).
  Result<void> start(const std::string& host, uint16_t port);
  void stop();  // closes every slave connection; idempotent; not on the HA thread
  uint16_t port() const { return port_; }

  // Failover: while false (this broker is no master) slave connections are refused and the
  // current ones closed. Always true without failover. Any thread.
  void setAccepting(bool accepting);

  // Any thread: new commit log bytes exist; wakes idle slave writers.
  void onAppended();

  size_t connectionCount() const;
  std::vector<SlaveInfo> slaves() const;
  // Bytes between the commit log end and the best slave ack (Java's slaveFallBehindMuch).
  int64_t slaveFallBehind() const;

  class Connection;  // one slave (ha_master.cpp)

 private:
  friend class Connection;
  void removeConnection(const Connection* c);
  asio::awaitable<void> acceptLoop();

  store::MessageStore& store_;
  const store::StoreConfig& cfg_;
  ReplicaSet* replicas_;
  std::atomic<bool> accepting_{true};
  asio::io_context io_;
  net::AcceptorPtr acceptor_;  // net::listenTcp
  std::thread thread_;
  uint16_t port_ = 0;
  std::atomic<bool> running_{false};
  std::atomic<int> idleWriters_{0};  // writers parked waiting for data (onAppended's fast path)
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<Connection>> connections_;
};

}  // namespace rmq::repl
