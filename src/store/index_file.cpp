#include "store/index_file.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "common/bytes.h"
#include "common/message_codec.h"

namespace rmq::store {

namespace {
constexpr int64_t kHeader = 40;
constexpr int64_t kItemReserveStep = 64 * 1024;
// Header field offsets.
constexpr int kBeginTs = 0, kEndTs = 8, kBeginPhy = 16, kEndPhy = 24, kSlotCount = 32, kIndexCount = 36;
int64_t get64(const char* b, int off) { return static_cast<int64_t>(loadBE64(b + off)); }
int32_t get32(const char* b, int64_t off) { return static_cast<int32_t>(loadBE32(b + off)); }
void set64(char* b, int off, int64_t v) { storeBE64(b + off, static_cast<uint64_t>(v)); }
void set32(char* b, int64_t off, int32_t v) { storeBE32(b + off, static_cast<uint32_t>(v)); }
}  // namespace

int32_t IndexFile::keyHash(std::string_view key) {
  int32_t h = javaStringHash(key);
  int32_t a = h == INT_MIN ? 0 : std::abs(h);
  return a < 0 ? 0 : a;
}

void IndexFile::initPages(int32_t slots, int32_t items) {
  slots_ = slots;
  items_ = items;
  int64_t pages = (kHeader + int64_t(slots) * 4 + kPage - 1) / kPage;
  size_t words = static_cast<size_t>((pages + 63) / 64);
  reservedPages_ = std::make_unique<std::atomic<uint64_t>[]>(words);
  for (size_t i = 0; i < words; ++i) reservedPages_[i].store(0, std::memory_order_relaxed);
  reservedPages_[0].store(1, std::memory_order_release);  // the header page: reserved or holding data
}

Result<std::shared_ptr<IndexFile>> IndexFile::create(const std::string& path, int32_t slots, int32_t items,
                                                     int64_t beginPhy, int64_t beginTs) {
  auto f = MappedFile::create(path, 0, fileSize(slots, items), MappedFile::Backing::Sparse);  // like Java
  if (!f) return f.error();
  if (auto r = f.value()->reserveRange(0, std::min(kPage, f.value()->size())); !r) {
    f.value()->markDeleted();
    return r.error();
  }
  f.value()->adviseRandom();  // hash slots and query reads land anywhere in 400 MB
  auto idx = std::make_shared<IndexFile>();
  idx->file_ = std::move(f.value());
  idx->initPages(slots, items);
  char* b = idx->file_->data();
  set64(b, kBeginTs, beginTs);
  set64(b, kEndTs, beginTs);
  set64(b, kBeginPhy, beginPhy);
  set64(b, kEndPhy, beginPhy);
  set32(b, kSlotCount, 0);
  set32(b, kIndexCount, 1);
  idx->endPhy_ = beginPhy;
  idx->file_->setWrote(idx->file_->size());
  return idx;
}

Result<std::shared_ptr<IndexFile>> IndexFile::open(const std::string& path, int32_t slots, int32_t items) {
  auto f = MappedFile::open(path, 0, fileSize(slots, items));
  if (!f) return f.error();
  f.value()->adviseRandom();
  auto idx = std::make_shared<IndexFile>();
  idx->file_ = std::move(f.value());
  idx->file_->setWrote(idx->file_->size());
  idx->file_->setFlushed(idx->file_->size());
  idx->initPages(slots, items);
  idx->endPhy_ = idx->endPhyOffset();
  return idx;
}

bool IndexFile::reserveSlotPage(int64_t slotPos) {
  int64_t page = slotPos / kPage;
  auto& word = reservedPages_[static_cast<size_t>(page / 64)];
  uint64_t bit = uint64_t(1) << (page % 64);
  if (word.load(std::memory_order_acquire) & bit) return true;
  if (!file_->reserveRange(page * kPage, std::min(kPage, file_->size() - page * kPage))) return false;
  word.fetch_or(bit, std::memory_order_release);
  return true;
}

bool IndexFile::reserveItem(int64_t itemPos) {
  if (itemPos + 20 <= itemsReservedEnd_) return true;
  int64_t end = std::min(file_->size(), std::max(itemPos + 20, itemPos + kItemReserveStep));
  if (!file_->reserveRange(itemPos, end - itemPos)) return false;
  itemsReservedEnd_ = end;
  return true;
}

int32_t IndexFile::slotAt(int64_t slotPos) const {
  int64_t page = slotPos / kPage;
  uint64_t bit = uint64_t(1) << (page % 64);
  if (reservedPages_[static_cast<size_t>(page / 64)].load(std::memory_order_acquire) & bit)
    return get32(file_->data(), slotPos);
  char buf[4] = {};
  if (!file_->readAt(slotPos, buf, sizeof buf)) return 0;
  return static_cast<int32_t>(loadBE32(buf));
}

int64_t IndexFile::beginTimestamp() const { return get64(file_->data(), kBeginTs); }
int64_t IndexFile::endTimestamp() const { return get64(file_->data(), kEndTs); }
int64_t IndexFile::beginPhyOffset() const { return get64(file_->data(), kBeginPhy); }
int64_t IndexFile::endPhyOffset() const { return get64(file_->data(), kEndPhy); }
int32_t IndexFile::indexCount() const { return get32(file_->data(), kIndexCount); }

bool IndexFile::overlaps(int64_t begin, int64_t end) const {
  int64_t b = beginTimestamp(), e = endTimestamp();
  return (begin <= b && b <= end) || (begin <= e && e <= end) || (b <= begin && end <= e);
}

IndexFile::PutOutcome IndexFile::put(std::string_view fullKey, int64_t phyOffset, int64_t storeTimestamp) {
  char* b = file_->data();
  int32_t count = indexCount();
  if (count >= items_) return PutOutcome::Full;
  int32_t hash = keyHash(fullKey);
  int64_t slotPos = kHeader + int64_t(hash % slots_) * 4;
  int64_t itemPos = kHeader + int64_t(slots_) * 4 + int64_t(count) * 20;
  if (!reserveSlotPage(slotPos) || !reserveItem(itemPos)) return PutOutcome::NoSpace;
  int32_t prev = get32(b, slotPos);
  if (prev <= 0 || prev > count) prev = 0;
  int64_t diff = (storeTimestamp - beginTimestamp()) / 1000;
  if (diff < 0 || count <= 1) diff = 0;
  if (diff > INT_MAX) diff = INT_MAX;
  if (count <= 1) {  // first item: the file's range starts here
    set64(b, kBeginPhy, phyOffset);
    set64(b, kBeginTs, storeTimestamp);
  }
  set32(b, itemPos, hash);
  storeBE64(b + itemPos + 4, static_cast<uint64_t>(phyOffset));
  set32(b, itemPos + 12, static_cast<int32_t>(diff));
  set32(b, itemPos + 16, prev);
  set32(b, slotPos, count);
  if (prev == 0) set32(b, kSlotCount, get32(b, kSlotCount) + 1);
  set64(b, kEndPhy, phyOffset);
  set64(b, kEndTs, storeTimestamp);
  endPhy_ = phyOffset;
  set32(b, kIndexCount, count + 1);
  return PutOutcome::Stored;
}

int32_t IndexFile::truncateFrom(int64_t phyOffset, const std::function<int64_t(int64_t)>& storeTimeOf) {
  char* b = file_->data();
  const int64_t itemsBase = kHeader + int64_t(slots_) * 4;
  const int32_t count = indexCount();
  int32_t keep = count;
  for (; keep > 1; --keep) {  // item 0 is never used
    int64_t itemPos = itemsBase + int64_t(keep - 1) * 20;
    if (static_cast<int64_t>(loadBE64(b + itemPos + 4)) < phyOffset) break;
    int32_t hash = get32(b, itemPos);
    int32_t prev = get32(b, itemPos + 16);
    int64_t slotPos = kHeader + int64_t(hash % slots_) * 4;
    // The newest item of a chain heads it: dropped newest first, each one is its chain's head.
    if (hash >= 0 && slotAt(slotPos) == keep - 1) {
      set32(b, slotPos, prev);
      if (prev == 0) set32(b, kSlotCount, std::max(0, get32(b, kSlotCount) - 1));
    }
  }
  if (keep == count) return keep - 1;
  set32(b, kIndexCount, keep);  // queries stop below it from now on
  std::memset(b + itemsBase + int64_t(keep) * 20, 0, static_cast<size_t>(count - keep) * 20);
  int64_t endPhy = keep > 1 ? static_cast<int64_t>(loadBE64(b + itemsBase + int64_t(keep - 1) * 20 + 4))
                            : beginPhyOffset();
  int64_t endTs = keep > 1 ? storeTimeOf(endPhy) : beginTimestamp();
  if (endTs < 0) endTs = beginTimestamp() + int64_t(get32(b, itemsBase + int64_t(keep - 1) * 20 + 12)) * 1000;
  set64(b, kEndPhy, endPhy);
  set64(b, kEndTs, endTs);
  endPhy_ = endPhy;
  file_->syncAll();
  return keep - 1;
}

void IndexFile::query(std::string_view fullKey, int maxNum, int64_t begin, int64_t end,
                      std::vector<int64_t>& out) const {
  const char* b = file_->data();
  int32_t hash = keyHash(fullKey);
  int32_t count = indexCount();
  int32_t cur = slotAt(kHeader + int64_t(hash % slots_) * 4);
  int64_t fileBegin = beginTimestamp();
  int guard = 0;
  while (cur > 0 && cur < count && static_cast<int>(out.size()) < maxNum && guard++ < items_) {
    int64_t itemPos = kHeader + int64_t(slots_) * 4 + int64_t(cur) * 20;
    int32_t h = get32(b, itemPos);
    int64_t phy = static_cast<int64_t>(loadBE64(b + itemPos + 4));
    int64_t t = fileBegin + int64_t(get32(b, itemPos + 12)) * 1000;
    int32_t prev = get32(b, itemPos + 16);
    if (t < begin) break;
    if (h == hash && t <= end) out.push_back(phy);
    if (prev <= 0 || prev >= count || prev == cur) break;
    cur = prev;
  }
}

}  // namespace rmq::store
