#pragma once
// TransactionTable: what EndTransaction needs that the 5.x request does not carry. A v2
// EndTransactionRequest names the transaction by id (the half message's UNIQ_KEY) only; the
// broker's END_TRANSACTION needs the half record's commit-log offset and half-queue offset (the
// proxy keeps the same table). Filled when a half message is stored and when a check-back is
// pushed to a producer; entries are taken by EndTransaction and dropped after `ttl`.
// Thread-safety: one mutex; any thread.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace rmq::broker::messaging {

struct HalfMessageRef {
  std::string producerGroup;
  int64_t commitLogOffset = 0;
  int64_t tranStateTableOffset = 0;  // the half record's queue offset
};

class TransactionTable {
 public:
  explicit TransactionTable(std::chrono::seconds ttl = std::chrono::hours(6)) : ttl_(ttl) {}
  void remember(const std::string& transactionId, HalfMessageRef ref);
  // The newest reference of the id (nullopt: unknown or expired); it stays until `ttl` passes,
  // so a repeated EndTransaction reaches the broker's own "decided once" answer.
  std::optional<HalfMessageRef> find(const std::string& transactionId);
  size_t size() const;

 private:
  struct Entry {
    HalfMessageRef ref;
    std::chrono::steady_clock::time_point at;
  };
  void pruneLocked(std::chrono::steady_clock::time_point now);

  std::chrono::seconds ttl_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
  std::chrono::steady_clock::time_point lastPrune_{};
};

}  // namespace rmq::broker::messaging
