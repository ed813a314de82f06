// MessageStore reads: queue pulls (§8.3), lookups by offset / msgId / key, queue offsets and times.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>

#include "common/bytes.h"
#include "common/log.h"
#include "common/message.h"
#include "common/message_codec.h"
#include "common/message_id.h"
#include "store/message_store.h"
#include "store/store_engine.h"
#include "store/live_store_keys.h"

namespace rmq::store {

namespace {
// Keeps every mapped file referenced by a result alive.
struct FileKeeper {
  std::vector<std::shared_ptr<const void>> files;
  void keep(const std::shared_ptr<const void>& owner) {
    if (files.empty() || files.back().get() != owner.get()) files.push_back(owner);
  }
};
// The record a consume-queue unit points at really is that unit's message: its header (size,
// magic, queue id, queue offset, physical offset) agrees. A few loads from bytes about to be sent
// anyway; a unit damaged on disk (garbage, a stale file) fails it.
bool recordMatchesUnit(std::string_view rec, const CqUnit& u, int queueId, int64_t queueOffset) {
  if (rec.size() < 36 || static_cast<int64_t>(rec.size()) != u.size) return false;
  const char* p = rec.data();
  auto magic = static_cast<int32_t>(loadBE32(p + 4));
  return static_cast<int32_t>(loadBE32(p)) == u.size && (magic == kMessageMagicV1 || magic == kMessageMagicV2) &&
         static_cast<int32_t>(loadBE32(p + 12)) == queueId && static_cast<int64_t>(loadBE64(p + 20)) == queueOffset &&
         static_cast<int64_t>(loadBE64(p + 28)) == u.phyOffset;
}

// The record is of `topic` and carries `key` (UNIQ_KEY or one of its space-separated KEYS): what
// the index claims. A hash collision, a stale entry (the commit log tail was cut and rewritten)
// or a damaged index file answer nothing instead of another message.
bool recordHasKey(std::string_view rec, std::string_view topic, std::string_view key) {
  RecordView v;
  if (parseRecord(rec.data(), rec.size(), v, false) != RecordParse::Ok || v.topic != topic) return false;
  if (auto uniq = findEncodedProperty(v.properties, prop::UNIQ_KEY); uniq && *uniq == key) return true;
  auto keys = findEncodedProperty(v.properties, prop::KEYS);
  for (std::string_view rest = keys ? *keys : std::string_view{}; !rest.empty();) {
    auto sp = rest.find(' ');
    if (rest.substr(0, sp) == key) return true;
    rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
  }
  return false;
}

void noteBadUnit(std::string_view topic, int queueId, int64_t queueOffset, const CqUnit& u) {
  static std::atomic<int64_t> lastLogMs{0};
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now().time_since_epoch()).count();
  int64_t last = lastLogMs.load(std::memory_order_relaxed);
  if (now - last < 10000 || !lastLogMs.compare_exchange_strong(last, now)) return;  // one line per 10 s
  log::error("consume queue {}/{} unit {} points at commit log offset {} size {}, which holds no such message: "
             "skipped (damaged consume queue file? a restart re-validates it)",
             topic, queueId, queueOffset, u.phyOffset, u.size);
}
}  // namespace

GetMessageResult MessageStore::getMessages(std::string_view topic, int queueId, int64_t offset, int maxMsgNums,
                                           int maxTotalBytes, const MessageFilter* filter) const {
  auto& e = *engine_;
  GetMessageResult res;
  auto cq = e.cqs.find(topic, queueId);
  if (!cq) {
    res.status = GetStatus::NO_MATCHED_LOGIC_QUEUE;
    return res;
  }
  res.minOffset = cq->minOffset();
  res.maxOffset = cq->maxOffset();
  if (res.maxOffset == 0) {
    res.status = GetStatus::NO_MESSAGE_IN_QUEUE;
    return res;
  }
  if (offset < res.minOffset) {
    res.status = GetStatus::OFFSET_TOO_SMALL;
    res.nextBeginOffset = res.minOffset;
    return res;
  }
  if (offset == res.maxOffset) {
    res.status = GetStatus::OFFSET_OVERFLOW_ONE;
    res.nextBeginOffset = offset;
    return res;
  }
  if (offset > res.maxOffset) {
    res.status = GetStatus::OFFSET_OVERFLOW_BADLY;
    res.nextBeginOffset = res.minOffset == 0 ? res.minOffset : res.maxOffset;
    return res;
  }
  auto units = cq->unitsFrom(offset);
  if (!units) {
    res.status = GetStatus::OFFSET_FOUND_NULL;
    int64_t per = cq->unitsPerFile();
    res.nextBeginOffset = offset + per - offset % per;
    return res;
  }
  res.status = GetStatus::NO_MATCHED_MESSAGE;
  int64_t maxPhy = e.commitLog.maxOffset();
  int64_t minPhy = e.commitLog.minOffset();
  int64_t maxScan = std::max<int64_t>(16000, int64_t(maxMsgNums) * 20) / kCqUnitSize;
  auto keeper = std::make_shared<FileKeeper>();
  const int64_t hotBytes = e.hotDataBytes();
  int64_t i = 0, lastPhy = 0;
  int64_t total = 0;
  for (; i < units->count && i < maxScan; ++i) {
    CqUnit u = units->at(i);
    if (u.size == INT_MAX) continue;  // filler unit
    bool inDisk = maxPhy - u.phyOffset > hotBytes;
    int count = static_cast<int>(res.records.size());
    if (count > 0) {  // Java isTheBatchFull
      if (count >= maxMsgNums) break;
      int64_t capBytes = liveRead(inDisk ? e.cfg.maxTransferBytesOnMessageInDisk : e.cfg.maxTransferBytesOnMessageInMemory);
      int capCount = liveRead(inDisk ? e.cfg.maxTransferCountOnMessageInDisk : e.cfg.maxTransferCountOnMessageInMemory);
      if (total + u.size > capBytes || count >= capCount || total + u.size > maxTotalBytes) break;
    }
    if (u.phyOffset < minPhy) {
      if (res.records.empty()) res.status = GetStatus::MESSAGE_WAS_REMOVING;
      continue;
    }
    if (filter && *filter && !(*filter)(u.tagsCode, nullptr)) continue;
    auto rec = e.commitLog.read(u.phyOffset, u.size);
    if (!rec) {
      if (res.records.empty()) res.status = GetStatus::MESSAGE_WAS_REMOVING;
      continue;
    }
    if (!recordMatchesUnit(rec.bytes, u, queueId, offset + i)) {  // a damaged consume queue: never serve garbage
      noteBadUnit(topic, queueId, offset + i, u);
      continue;
    }
    if (filter && *filter) {
      RecordView v;
      if (parseRecord(rec.bytes.data(), rec.bytes.size(), v, false) != RecordParse::Ok) continue;
      if (!(*filter)(u.tagsCode, &v.properties)) continue;
    }
    keeper->keep(rec.owner);
    res.records.push_back(rec.bytes);
    res.queueOffsets.push_back(offset + i);
    res.tagsCodes.push_back(u.tagsCode);
    total += u.size;
    lastPhy = u.phyOffset;
  }
  res.nextBeginOffset = offset + i;
  res.totalBytes = static_cast<int32_t>(total);
  if (!res.records.empty()) {
    res.status = GetStatus::FOUND;
    res.owner = std::move(keeper);
    res.suggestPullingFromSlave = maxPhy - lastPhy > hotBytes;
  }
  return res;
}

std::vector<QueueUnit> MessageStore::queueUnits(std::string_view topic, int queueId, int64_t offset,
                                               int64_t maxUnits) const {
  std::vector<QueueUnit> out;
  auto cq = engine_->cqs.find(topic, queueId);
  if (!cq) return out;
  int64_t next = std::max(offset, cq->minOffset());
  const int64_t end = cq->maxOffset();
  while (next < end && static_cast<int64_t>(out.size()) < maxUnits) {
    auto units = cq->unitsFrom(next);
    if (!units || units->count == 0) break;
    for (int64_t i = 0; i < units->count && static_cast<int64_t>(out.size()) < maxUnits; ++i, ++next) {
      CqUnit u = units->at(i);
      if (u.size == INT_MAX) continue;  // filler unit
      out.push_back({next, u.phyOffset, u.size, u.tagsCode});
    }
  }
  return out;
}

int64_t MessageStore::minOffsetInQueue(std::string_view topic, int queueId) const {
  auto cq = engine_->cqs.find(topic, queueId);
  return cq ? cq->minOffset() : 0;
}

int64_t MessageStore::maxOffsetInQueue(std::string_view topic, int queueId) const {
  auto cq = engine_->cqs.find(topic, queueId);
  return cq ? cq->maxOffset() : 0;
}

int64_t MessageStore::commitLogOffsetInQueue(std::string_view topic, int queueId, int64_t queueOffset) const {
  auto cq = engine_->cqs.find(topic, queueId);
  if (!cq) return -1;
  auto u = cq->unit(queueOffset);
  return u ? u->phyOffset : -1;
}

int64_t MessageStore::messageStoreTime(std::string_view topic, int queueId, int64_t queueOffset) const {
  auto cq = engine_->cqs.find(topic, queueId);
  if (!cq) return -1;
  auto u = cq->unit(queueOffset);
  return u ? engine_->commitLog.storeTimeAt(u->phyOffset, u->size) : -1;
}

int64_t MessageStore::earliestMessageTime(std::string_view topic, int queueId) const {
  return messageStoreTime(topic, queueId, minOffsetInQueue(topic, queueId));
}

int64_t MessageStore::earliestMessageTime() const {
  auto rec = engine_->commitLog.readRecord(engine_->commitLog.minOffset());
  if (!rec) return -1;
  return engine_->commitLog.storeTimeAt(engine_->commitLog.minOffset(), static_cast<int32_t>(rec.bytes.size()));
}

int64_t MessageStore::offsetInQueueByTime(std::string_view topic, int queueId, int64_t timestampMs) const {
  auto cq = engine_->cqs.find(topic, queueId);
  if (!cq) return 0;
  int64_t lo = cq->minOffset(), hi = cq->maxOffset();  // first offset with storeTime >= ts in [lo, hi]
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    int64_t t = messageStoreTime(topic, queueId, mid);
    if (t >= 0 && t < timestampMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

ByteView MessageStore::lookMessageByOffset(int64_t commitLogOffset) const {
  return engine_->commitLog.readRecord(commitLogOffset);
}

ByteView MessageStore::lookMessageByMsgId(std::string_view offsetMsgId) const {
  auto id = parseOffsetMsgId(offsetMsgId);
  if (!id) return {};
  return lookMessageByOffset(id->commitLogOffset);
}

QueryMessageResult MessageStore::queryMessage(std::string_view topic, std::string_view key, int maxNum,
                                              int64_t beginTimestamp, int64_t endTimestamp) const {
  auto& e = *engine_;
  QueryMessageResult res;
  maxNum = std::min(maxNum, liveRead(e.cfg.maxMsgsNumBatch));
  auto q = e.index.query(topic, key, maxNum, beginTimestamp, endTimestamp);
  res.indexLastUpdateTimestamp = q.lastUpdateTimestamp;
  res.indexLastUpdatePhyoffset = q.lastUpdatePhyOffset;
  std::sort(q.offsets.begin(), q.offsets.end());
  q.offsets.erase(std::unique(q.offsets.begin(), q.offsets.end()), q.offsets.end());
  for (int64_t off : q.offsets) {
    auto rec = e.commitLog.readRecord(off);
    if (!rec || !recordHasKey(rec.bytes, topic, key)) continue;  // a stale or damaged index entry
    res.records.push_back(rec.bytes);
    res.owners.push_back(rec.owner);
    res.totalBytes += static_cast<int32_t>(rec.bytes.size());
  }
  return res;
}

}  // namespace rmq::store
