#include "store/consume_queue_table.h"

#include <algorithm>
#include <filesystem>

#include "common/log.h"

namespace rmq::store {

namespace fs = std::filesystem;

Result<void> ConsumeQueueTable::load() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  for (auto& t : fs::directory_iterator(dir_, ec)) {
    if (!t.is_directory()) continue;
    std::string topic = t.path().filename().string();
    for (auto& q : fs::directory_iterator(t.path(), ec)) {
      std::string name = q.path().filename().string();
      if (!q.is_directory() || name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
      int qid = std::stoi(name);
      auto cq = std::make_shared<ConsumeQueue>(topic, qid, dir_, fileSize_);
      if (auto r = cq->load(); !r) return r;
      std::unique_lock lock(mu_);
      table_[topic][qid] = std::move(cq);
    }
  }
  return {};
}

std::shared_ptr<ConsumeQueue> ConsumeQueueTable::find(std::string_view topic, int queueId) const {
  std::shared_lock lock(mu_);
  auto t = table_.find(topic);
  if (t == table_.end()) return nullptr;
  auto q = t->second.find(queueId);
  return q == t->second.end() ? nullptr : q->second;
}

std::shared_ptr<ConsumeQueue> ConsumeQueueTable::findOrCreate(std::string_view topic, int queueId) {
  if (auto cq = find(topic, queueId)) return cq;
  std::unique_lock lock(mu_);
  auto t = table_.find(topic);
  if (t == table_.end()) t = table_.emplace(std::string(topic), std::map<int, std::shared_ptr<ConsumeQueue>>{}).first;
  auto& slot = t->second[queueId];
  if (!slot) {
    slot = std::make_shared<ConsumeQueue>(std::string(topic), queueId, dir_, fileSize_);
    if (auto r = slot->load(); !r) log::error("consume queue {}/{}: {}", topic, queueId, r.error().message);
  }
  return slot;
}

std::vector<std::shared_ptr<ConsumeQueue>> ConsumeQueueTable::all() const {
  std::shared_lock lock(mu_);
  std::vector<std::shared_ptr<ConsumeQueue>> out;
  for (auto& [t, qs] : table_)
    for (auto& [q, cq] : qs) out.push_back(cq);
  return out;
}

std::map<std::string, std::set<int>> ConsumeQueueTable::queues() const {
  std::shared_lock lock(mu_);
  std::map<std::string, std::set<int>> out;
  for (auto& [t, qs] : table_)
    for (auto& [q, cq] : qs) out[t].insert(q);
  return out;
}

void ConsumeQueueTable::erase(std::string_view topic) {
  std::map<int, std::shared_ptr<ConsumeQueue>> removed;
  {
    std::unique_lock lock(mu_);
    auto t = table_.find(topic);
    if (t == table_.end()) return;
    removed = std::move(t->second);
    table_.erase(t);
  }
  for (auto& [q, cq] : removed) cq->destroy();
  std::error_code ec;
  fs::remove_all(dir_ + "/" + std::string(topic), ec);
  log::info("deleted consume queues of topic {}", topic);
}

}  // namespace rmq::store
