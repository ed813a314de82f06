#include "store/consume_queue.h"

#include <algorithm>
#include <climits>

#include "common/bytes.h"
#include "common/log.h"

namespace rmq::store {

namespace {
void writeUnit(char* p, int64_t phy, int32_t size, int64_t tags) {
  storeBE64(p, static_cast<uint64_t>(phy));
  storeBE32(p + 8, static_cast<uint32_t>(size));
  storeBE64(p + 12, static_cast<uint64_t>(tags));
}
CqUnit readUnit(const char* p) {
  return {static_cast<int64_t>(loadBE64(p)), static_cast<int32_t>(loadBE32(p + 8)),
          static_cast<int64_t>(loadBE64(p + 12))};
}
bool validUnit(const CqUnit& u) { return u.phyOffset >= 0 && u.size > 0; }
}  // namespace

CqUnit ConsumeQueue::UnitRange::at(int64_t i) const { return readUnit(data + i * kCqUnitSize); }

ConsumeQueue::ConsumeQueue(std::string topic, int queueId, const std::string& rootDir, int64_t fileSize)
    : topic_(std::move(topic)), queueId_(queueId),
      files_(rootDir + "/" + topic_ + "/" + std::to_string(queueId), fileSize) {
  files_.setPageByPageWrites(true);  // 20-byte units: a fresh file must not be read in whole
}

Result<void> ConsumeQueue::load() { return files_.load(); }

int64_t ConsumeQueue::recover() {
  auto files = files_.snapshot();
  if (files.empty()) return -1;
  size_t start = files.size() > 3 ? files.size() - 3 : 0;
  int64_t end = files[start]->fromOffset();
  int64_t maxPhy = -1;
  bool damaged = false;
  for (size_t i = start; i < files.size(); ++i) {
    const char* base = files[i]->data();
    int64_t pos = 0;
    for (; pos + kCqUnitSize <= files[i]->dataEnd(); pos += kCqUnitSize) {  // a hole holds no unit
      CqUnit u = readUnit(base + pos);
      if (!validUnit(u)) {
        // The end of what was written is zeros; anything else is damage.
        damaged = u.phyOffset != 0 || u.size != 0 || u.tagsCode != 0;
        break;
      }
      if (u.size == INT_MAX) continue;  // filler unit
      if (u.phyOffset < maxPhy) {  // records of one queue only move forward in the commit log
        damaged = true;
        break;
      }
      maxPhy = u.phyOffset + u.size;
    }
    end = files[i]->fromOffset() + pos;
    if (pos < files[i]->size()) break;
  }
  files_.setEnd(end);
  maxPhysicOffset_ = maxPhy;
  auto first = files_.first();
  if (first && minLogicOffset_.load() < first->fromOffset()) minLogicOffset_ = first->fromOffset();
  if (!damaged) return -1;
  log::warn("consume queue {}/{}: damaged unit {} (not a unit of this queue): cut there, rebuilt from the commit log",
            topic_, queueId_, end / kCqUnitSize);
  return std::max<int64_t>(maxPhy, 0);
}

Result<void> ConsumeQueue::putUnit(int64_t cqOffset, int64_t phyOffset, int32_t size, int64_t tagsCode) {
  if (phyOffset + size <= maxPhysicOffset_.load()) return {};  // already built (re-dispatch)
  int64_t logical = cqOffset * kCqUnitSize;
  if (logical < files_.maxOffset()) return {};  // duplicate
  int64_t fileStart = logical - logical % files_.fileSize();
  bool wasEmpty = files_.empty();
  auto f = files_.fileAt(fileStart);
  if (!f) return f.error();
  MappedFile& file = *f.value();
  int64_t pos = logical - fileStart;
  if (auto r = file.reserveFrom(std::min(pos, file.wrote())); !r) return r;  // a file opened at load
  if (wasEmpty && pos > 0 && file.wrote() == 0) {
    // First file of a queue that starts mid-file (e.g. after deletion): filler units before it.
    for (int64_t p = 0; p < pos; p += kCqUnitSize) writeUnit(file.data() + p, 0, INT_MAX, 0);
    minLogicOffset_ = logical;
    file.setWrote(pos);
  }
  if (wasEmpty && cqOffset > 0 && minLogicOffset_.load() < logical) minLogicOffset_ = logical;
  int64_t current = file.fromOffset() + file.wrote();
  if (logical < current) return {};  // duplicate
  if (logical > current)
    log::error("consume queue {}/{}: gap, expected unit {} but queue ends at {}", topic_, queueId_, cqOffset,
               current / kCqUnitSize);
  writeUnit(file.data() + pos, phyOffset, size, tagsCode);
  maxPhysicOffset_ = phyOffset + size;
  file.setWrote(pos + kCqUnitSize);
  return {};
}

std::optional<ConsumeQueue::UnitRange> ConsumeQueue::unitsFrom(int64_t index) const {
  int64_t logical = index * kCqUnitSize;
  if (logical < minLogicOffset_.load()) return std::nullopt;
  auto f = files_.findByOffset(logical);
  if (!f) return std::nullopt;
  int64_t pos = logical - f->fromOffset();
  int64_t wrote = f->wrote();
  if (pos >= wrote) return std::nullopt;
  UnitRange r;
  r.data = f->data() + pos;
  r.count = (wrote - pos) / kCqUnitSize;
  r.file = std::move(f);
  return r;
}

std::optional<CqUnit> ConsumeQueue::unit(int64_t index) const {
  auto r = unitsFrom(index);
  if (!r) return std::nullopt;
  return r->at(0);
}

void ConsumeQueue::truncateDirty(int64_t phyEnd, bool durable) {
  auto files = files_.snapshot();
  int64_t end = files.empty() ? 0 : files.front()->fromOffset();
  int64_t maxPhy = -1;
  bool found = false;
  // Back from the last unit to the last one that stays: a unit whose record starts below phyEnd,
  // or a filler (fillers only precede a queue's first unit: everything after it was dropped).
  for (size_t i = files.size(); i > 0 && !found; --i) {
    const MappedFile& f = *files[i - 1];
    for (int64_t pos = f.wrote() / kCqUnitSize * kCqUnitSize; pos > 0; pos -= kCqUnitSize) {
      CqUnit u = readUnit(f.data() + pos - kCqUnitSize);
      bool filler = u.size == INT_MAX;
      if (!filler && !(validUnit(u) && u.phyOffset < phyEnd)) continue;
      end = f.fromOffset() + pos;
      if (!filler) maxPhy = u.phyOffset + u.size;
      found = true;
      break;
    }
  }
  if (end < files_.maxOffset()) {
    log::info("consume queue {}/{} truncated to unit {}", topic_, queueId_, end / kCqUnitSize);
    files_.setEnd(end, durable);
  }
  maxPhysicOffset_ = maxPhy;
}

void ConsumeQueue::correctMinOffset(int64_t phyMin) {
  auto f = files_.first();
  if (!f) return;
  int64_t wrote = f->wrote();
  for (int64_t pos = 0; pos < wrote; pos += kCqUnitSize) {
    CqUnit u = readUnit(f->data() + pos);
    if (u.size != INT_MAX && u.phyOffset >= phyMin) {
      int64_t logical = f->fromOffset() + pos;
      if (logical > minLogicOffset_.load()) minLogicOffset_ = logical;
      return;
    }
  }
  // Every unit of the first file is below phyMin: the queue starts at its end.
  if (f->fromOffset() + wrote > minLogicOffset_.load()) minLogicOffset_ = f->fromOffset() + wrote;
}

int ConsumeQueue::deleteExpiredFiles(int64_t phyMin) {
  int n = files_.deleteFirstWhile(
      [&](const MappedFile& f) {
        if (f.wrote() < f.size()) return false;
        CqUnit last = readUnit(f.data() + f.size() - kCqUnitSize);
        return last.phyOffset + last.size <= phyMin;
      },
      1 << 30);
  correctMinOffset(phyMin);
  return n;
}

}  // namespace rmq::store
