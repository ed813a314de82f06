#include "common/java_string_map.h"

#include <algorithm>

#include "common/message_codec.h"

namespace rmq {

namespace {
constexpr size_t kInitialCapacity = 16;   // HashMap's DEFAULT_INITIAL_CAPACITY
constexpr size_t kTreeifyThreshold = 8;   // a chain longer than this is treeified ...
constexpr size_t kMinTreeifyCapacity = 64;  // ... or, below this table size, the table resized

uint32_t spread(std::string_view key) {
  uint32_t h = static_cast<uint32_t>(javaStringHash(key));
  return h ^ (h >> 16);
}
}  // namespace

void JavaStringMap::clear() {
  entries_.clear();
  capacity_ = 0;
  nextSeq_ = 0;
}

int JavaStringMap::find(std::string_view key) const {
  for (size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].key == key) return static_cast<int>(i);
  return -1;
}

void JavaStringMap::put(std::string_view key, std::string_view value) {
  if (int i = find(key); i >= 0) {
    entries_[i].value = value;  // an existing key keeps its place
    return;
  }
  if (capacity_ == 0) capacity_ = kInitialCapacity;
  Entry e{key, value, spread(key), nextSeq_++};
  uint32_t bucket = bucketOf(e);
  size_t chain = static_cast<size_t>(
      std::count_if(entries_.begin(), entries_.end(), [&](const Entry& x) { return bucketOf(x) == bucket; }));
  entries_.push_back(e);
  // putVal: appending to a chain that already held 8 nodes calls treeifyBin, which resizes a small table.
  if (chain >= kTreeifyThreshold && capacity_ < kMinTreeifyCapacity) capacity_ *= 2;
  if (entries_.size() > capacity_ / 4 * 3) capacity_ *= 2;  // threshold = 0.75 * capacity
}

std::optional<std::string_view> JavaStringMap::remove(std::string_view key) {
  int i = find(key);
  if (i < 0) return std::nullopt;
  std::string_view value = entries_[i].value;
  entries_.erase(entries_.begin() + i);  // a HashMap never shrinks its table
  return value;
}

std::optional<std::string_view> JavaStringMap::get(std::string_view key) const {
  int i = find(key);
  if (i < 0) return std::nullopt;
  return entries_[i].value;
}

void JavaStringMap::sortIterationOrder() const {
  order_.resize(entries_.size());
  for (uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
  std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
    uint32_t ba = bucketOf(entries_[a]), bb = bucketOf(entries_[b]);
    return ba != bb ? ba < bb : entries_[a].seq < entries_[b].seq;
  });
}

std::vector<std::string_view> JavaStringMap::keys() const {
  std::vector<std::string_view> out;
  forEach([&](std::string_view k, std::string_view) { out.push_back(k); });
  return out;
}

}  // namespace rmq
