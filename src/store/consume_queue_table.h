#pragma once
// ConsumeQueueTable: every topic/queue's ConsumeQueue under <root>/consumequeue, created on
// first dispatch. Thread-safe (shared_mutex; lookups take a shared lock).
#include <map>
#include <memory>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "store/consume_queue.h"

namespace rmq::store {

class ConsumeQueueTable {
 public:
  ConsumeQueueTable(std::string dir, int64_t fileSize) : dir_(std::move(dir)), fileSize_(fileSize) {}
  Result<void> load();  // every <dir>/<topic>/<queueId>
  std::shared_ptr<ConsumeQueue> find(std::string_view topic, int queueId) const;
  std::shared_ptr<ConsumeQueue> findOrCreate(std::string_view topic, int queueId);
  std::vector<std::shared_ptr<ConsumeQueue>> all() const;
  std::map<std::string, std::set<int>> queues() const;
  // Removes the topic's queues from the table and deletes their files.
  void erase(std::string_view topic);

 private:
  std::string dir_;
  int64_t fileSize_;
  mutable std::shared_mutex mu_;
  std::map<std::string, std::map<int, std::shared_ptr<ConsumeQueue>>, std::less<>> table_;
};

}  // namespace rmq::store
