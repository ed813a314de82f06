#pragma once
// Consumer progress: RemoteOffsetStore (clustering: the broker keeps it, QUERY/UPDATE_CONSUMER_OFFSET)
// and LocalFileOffsetStore (broadcasting: a JSON file per client and group).
// Thread-safe: updated from consume threads, persisted from the io thread.
#include <asio/awaitable.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "client/client_instance.h"
#include "client/types.h"

namespace rmq::client {

class OffsetStore {
 public:
  virtual ~OffsetStore() = default;
  // Next offset to consume as cached in memory, -1 when unknown.
  int64_t readMemory(const MessageQueue& mq) const;
  // From the backing store (broker or file); -1 when there is none, -2 on error.
  virtual asio::awaitable<int64_t> readStore(const MessageQueue& mq) = 0;
  void update(const MessageQueue& mq, int64_t offset, bool increaseOnly);
  void remove(const MessageQueue& mq);
  std::map<MessageQueue, int64_t> snapshot() const;
  // Writes the cached offsets of `mqs` to the backing store.
  virtual asio::awaitable<void> persistAll(const std::set<MessageQueue>& mqs) = 0;
  virtual asio::awaitable<void> persist(const MessageQueue& mq) = 0;

 protected:
  mutable std::mutex mu_;
  std::map<MessageQueue, int64_t> table_;
};

class RemoteOffsetStore final : public OffsetStore {
 public:
  RemoteOffsetStore(ClientInstance& inst, std::string group) : inst_(inst), group_(std::move(group)) {}
  asio::awaitable<int64_t> readStore(const MessageQueue& mq) override;
  asio::awaitable<void> persistAll(const std::set<MessageQueue>& mqs) override;
  asio::awaitable<void> persist(const MessageQueue& mq) override;

 private:
  ClientInstance& inst_;
  std::string group_;
};

class LocalFileOffsetStore final : public OffsetStore {
 public:
  // File: <dir>/<clientId>/<group>/offsets.json (Java's layout under ~/.rocketmq_offsets).
  LocalFileOffsetStore(std::string dir, const std::string& clientId, const std::string& group);
  const std::string& path() const { return path_; }
  void load();  // reads the file into memory (missing file = empty)
  asio::awaitable<int64_t> readStore(const MessageQueue& mq) override;
  asio::awaitable<void> persistAll(const std::set<MessageQueue>& mqs) override;
  asio::awaitable<void> persist(const MessageQueue& mq) override;

 private:
  void writeFile();
  std::string path_;
  std::map<MessageQueue, int64_t> fileTable_;
};

}  // namespace rmq::client
