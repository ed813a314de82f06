#pragma once
// A model of java.util.HashMap<String, String> (JDK 8-17) that keeps what decides its iteration
// order, so a properties string can be written in the order Java's
// MessageDecoder.messageProperties2String walks a message's map (PROTOCOL.md §4.5).
//
// Java's order: the table has 16 buckets at the first put and doubles when the size exceeds 0.75
// of it, or when a put makes one bucket's chain longer than 8 while the table is smaller than 64
// (treeifyBin resizes instead); a key lives in bucket (h ^ h >>> 16) & (capacity - 1) of its
// String.hashCode h; iteration walks the buckets in index order and each chain in insertion order
// (a resize splits chains keeping their order; a removed key put again goes last).
// Not modelled: the order inside a treeified bucket (9+ keys in one bucket of a table of 64 or
// more), where Java walks the tree's own links; such a bucket keeps insertion order here.
//
// Entries are views: the caller keeps the bytes of keys and values alive while the map is used.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace rmq {

class JavaStringMap {
 public:
  void clear();                                               // also forgets the table size
  void put(std::string_view key, std::string_view value);     // HashMap.put
  std::optional<std::string_view> remove(std::string_view key);
  std::optional<std::string_view> get(std::string_view key) const;
  size_t size() const { return entries_.size(); }
  size_t capacity() const { return capacity_; }               // 0 before the first put
  // Calls fn(key, value) in Java's iteration order.
  template <class Fn>
  void forEach(Fn&& fn) const {
    sortIterationOrder();
    for (uint32_t i : order_) fn(entries_[i].key, entries_[i].value);
  }
  std::vector<std::string_view> keys() const;

 private:
  struct Entry {
    std::string_view key, value;
    uint32_t spreadHash;  // h ^ (h >>> 16)
    uint64_t seq;         // insertion order
  };
  uint32_t bucketOf(const Entry& e) const { return e.spreadHash & static_cast<uint32_t>(capacity_ - 1); }
  int find(std::string_view key) const;
  void sortIterationOrder() const;  // fills order_

  std::vector<Entry> entries_;
  size_t capacity_ = 0;
  uint64_t nextSeq_ = 0;
  mutable std::vector<uint32_t> order_;  // scratch of forEach (no allocation once warmed up)
};

}  // namespace rmq
