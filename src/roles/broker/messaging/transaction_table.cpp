#include "roles/broker/messaging/transaction_table.h"

namespace rmq::broker::messaging {

void TransactionTable::remember(const std::string& transactionId, HalfMessageRef ref) {
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  entries_[transactionId] = Entry{std::move(ref), now};
  pruneLocked(now);
}

std::optional<HalfMessageRef> TransactionTable::find(const std::string& transactionId) {
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  auto it = entries_.find(transactionId);
  if (it == entries_.end() || now - it->second.at > ttl_) return std::nullopt;
  return it->second.ref;
}

size_t TransactionTable::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

// At most once a minute: one pass over the table (amortised; sends of half messages are rare
// next to the table's size).
void TransactionTable::pruneLocked(std::chrono::steady_clock::time_point now) {
  if (now - lastPrune_ < std::chrono::minutes(1)) return;
  lastPrune_ = now;
  std::erase_if(entries_, [&](const auto& kv) { return now - kv.second.at > ttl_; });
}

}  // namespace rmq::broker::messaging
