#include "store/commit_log.h"
#include "common/wall_clock.h"
#include "store/live_store_keys.h"

#include <chrono>
#include <cstring>

#include <thread>

#include "common/bytes.h"
#include "common/fault_point.h"
#include "common/log.h"
#include "common/message_id.h"
#include "common/response_code.h"
#include "store/disk_space.h"

namespace rmq::store {

namespace {
AppendResult fail(PutStatus s, std::string why) {
  AppendResult r;
  r.status = s;
  r.error = std::move(why);
  return r;
}
AppendResult blocked() { return fail(PutStatus::SERVICE_NOT_AVAILABLE, "commit log is being truncated"); }

// Marks the append lock as held since `since` (Java's beginTimeInLock) for the scope; 0 = free.
class LockClock {
 public:
  LockClock(std::atomic<int64_t>& at, int64_t since) : at_(at) {
    at_.store(since, std::memory_order_relaxed);
    // Fault point append_stall: the write below "page-faults" on a slow disk for MS.
    if (fault::armed(fault::Point::AppendStall))
      std::this_thread::sleep_for(std::chrono::milliseconds(fault::arg(fault::Point::AppendStall, 2000)));
  }
  ~LockClock() { at_.store(0, std::memory_order_relaxed); }
  LockClock(const LockClock&) = delete;
  LockClock& operator=(const LockClock&) = delete;

 private:
  std::atomic<int64_t>& at_;
};
AppendResult noFile(const Error& e) {
  AppendResult r = fail(PutStatus::CREATE_MAPPED_FILE_FAILED, e.message);
  r.diskFull = isNoSpace(e);
  return r;
}
// Java's MessageExtEncoder: a stored record may pass maxMessageSize (the body's bound) by 64 KiB
// of header, topic and properties.
int64_t maxRecordSize(int64_t maxBody) { return maxBody + 64 * 1024; }
bool dispatchedToQueue(int32_t sysFlag) {
  int32_t t = sysflag::transactionType(sysFlag);
  return t == sysflag::TRANSACTION_NOT_TYPE || t == sysflag::TRANSACTION_COMMIT_TYPE;
}
}  // namespace

CommitLog::CommitLog(const StoreConfig& cfg, const HostAddress& storeHost, AllocateService& allocator)
    : cfg_(cfg), storeHost_(storeHost), allocator_(allocator),
      files_(cfg.commitLogDir(), cfg.mappedFileSizeCommitLog) {
  files_.setAllocator([this](const std::string& path, int64_t start, int64_t size) {
    int64_t next = start + size;
    return allocator_.take(path, start, size, files_.dir() + "/" + MappedFile::fileName(next), next);
  });
}

Result<MappedFilePtr> CommitLog::nextFile() {
  int64_t start = current_ ? current_->endOffset() : 0;
  if (!current_) {
    auto last = files_.last();
    if (last && !last->isFull()) return current_ = last;
    if (last) start = last->endOffset();
  }
  auto f = files_.fileAt(start);
  if (f) current_ = f.value();
  return f;
}

Result<MappedFilePtr> CommitLog::fileWithRoom(int64_t need) {
  if (!current_ || current_->isFull()) {
    auto f = nextFile();
    if (!f) return f;
  }
  // Free for files this process created (reserved whole); one fallocate for a file opened at load.
  if (auto r = current_->reserveFrom(current_->wrote()); !r) return r.error();
  if (need + 8 > current_->remaining()) {  // §4.4: blank marker, record goes to the next file
    int64_t pos = current_->wrote();
    storeBE32(current_->data() + pos, static_cast<uint32_t>(current_->remaining()));
    storeBE32(current_->data() + pos + 4, static_cast<uint32_t>(kBlankMagic));
    current_->setWrote(current_->size());
    publish(*current_);
    auto f = nextFile();
    if (!f) return f;
    if (auto r = current_->reserveFrom(current_->wrote()); !r) return r.error();
  }
  return current_;
}

int64_t& CommitLog::queueOffsetSlot(std::string_view topic, int queueId) {
  keyBuf_.assign(topic);
  keyBuf_.push_back('-');
  char num[16];
  auto len = std::snprintf(num, sizeof num, "%d", queueId);
  keyBuf_.append(num, static_cast<size_t>(len));
  auto it = queueOffsets_.find(keyBuf_);
  if (it == queueOffsets_.end()) it = queueOffsets_.emplace(keyBuf_, 0).first;
  return it->second;
}

AppendResult CommitLog::append(const MessageToStore& m) {
  if (m.topic.empty() || m.topic.size() > 127) return fail(PutStatus::MESSAGE_ILLEGAL, "topic length must be 1..127");
  if (m.properties.size() > 32767)
    return fail(PutStatus::PROPERTIES_SIZE_EXCEEDED, "properties string longer than 32767 bytes");
  const int64_t maxBody = liveRead(cfg_.maxMessageSize);
  if (static_cast<int64_t>(m.body.size()) > maxBody)
    return fail(PutStatus::MESSAGE_ILLEGAL, "message body larger than maxMessageSize " + std::to_string(maxBody));
  RecordFields f{crc32Masked(m.body), m.queueId, m.flag, 0, 0, m.sysFlag, m.bornTimestamp, m.bornHost,
                 0, storeHost_, m.reconsumeTimes, m.preparedTransactionOffset, m.body, m.topic, m.properties};
  int64_t size = static_cast<int64_t>(recordSize(f));
  if (size > maxRecordSize(maxBody))
    return fail(PutStatus::MESSAGE_ILLEGAL, "stored record of " + std::to_string(size) + " bytes larger than maxMessageSize + 64 KiB");
  if (size + 8 > files_.fileSize()) return fail(PutStatus::MESSAGE_ILLEGAL, "record larger than a commit log file");
  bool toQueue = dispatchedToQueue(m.sysFlag);
  AppendResult r;
  {
    std::lock_guard lock(mu_);
    // Java stamps the lock time as the store time: one clock read for both.
    const int64_t lockedAt = nowMillis();  // inside the lock: non-decreasing in file order
    LockClock held(beginTimeInLock_, lockedAt);
    if (appendsBlocked_.load(std::memory_order_relaxed)) return blocked();
    auto file = fileWithRoom(size);
    if (!file) return noFile(file.error());
    MappedFile& mf = *file.value();
    int64_t pos = mf.wrote();
    int64_t& next = queueOffsetSlot(m.topic, m.queueId);
    f.queueOffset = toQueue ? next : 0;
    f.physicalOffset = mf.fromOffset() + pos;
    f.storeTimestamp = lockedAt;
    encodeRecord(f, mf.data() + pos);
    mf.setWrote(pos + size);
    if (fault::armed(fault::Point::PublishDelay))  // test fault point: the appender descheduled here
      std::this_thread::sleep_for(std::chrono::milliseconds(fault::arg(fault::Point::PublishDelay, 500)));
    publish(mf);
    if (toQueue) ++next;
    lastStoreTs_.store(f.storeTimestamp, std::memory_order_release);
  }
  r.status = PutStatus::PUT_OK;
  r.physicalOffset = f.physicalOffset;
  r.wroteBytes = static_cast<int32_t>(size);
  r.queueOffset = f.queueOffset;
  r.msgNum = 1;
  r.storeTimestamp = f.storeTimestamp;
  r.msgId = createOffsetMsgId(storeHost_, f.physicalOffset);
  r.topic.assign(m.topic);
  r.queueId = m.queueId;
  return r;
}

AppendResult CommitLog::appendBatch(const BatchToStore& b) {
  if (b.topic.empty() || b.topic.size() > 127) return fail(PutStatus::MESSAGE_ILLEGAL, "topic length must be 1..127");
  if (sysflag::transactionType(b.sysFlag) != sysflag::TRANSACTION_NOT_TYPE)
    return fail(PutStatus::MESSAGE_ILLEGAL, "batch messages cannot be transactional");
  if (findEncodedProperty(b.batchProperties, prop::DELAY))
    return fail(PutStatus::MESSAGE_ILLEGAL, "batch messages cannot be delayed");
  // Java (DefaultMessageStore.checkMessages): the batch body as sent, every item with its
  // header, is what maxMessageSize bounds; the stored records are then bounded like one message's.
  const int64_t maxBody = liveRead(cfg_.maxMessageSize);
  if (static_cast<int64_t>(b.batchBody.size()) > maxBody)
    return fail(PutStatus::MESSAGE_ILLEGAL, "batch of " + std::to_string(b.batchBody.size()) +
                                                " bytes larger than maxMessageSize " + std::to_string(maxBody));
  auto items = decodeBatch(b.batchBody);
  if (!items) return fail(PutStatus::MESSAGE_ILLEGAL, items.error().message);
  if (items->empty()) return fail(PutStatus::MESSAGE_ILLEGAL, "empty batch");
  std::vector<std::string> props(items->size());
  std::vector<RecordFields> recs(items->size());
  int64_t total = 0;
  for (size_t i = 0; i < items->size(); ++i) {
    auto& it = (*items)[i];
    props[i].assign(it.properties);
    if (!b.batchProperties.empty()) {
      if (!props[i].empty() && props[i].back() != prop::PROPERTY_SEPARATOR) props[i].push_back(prop::PROPERTY_SEPARATOR);
      props[i].append(b.batchProperties);
    }
    if (props[i].size() > 32767) return fail(PutStatus::PROPERTIES_SIZE_EXCEEDED, "batch item properties too long");
    recs[i] = RecordFields{crc32Masked(it.body), b.queueId, it.flag, 0, 0, b.sysFlag, b.bornTimestamp, b.bornHost,
                           0, storeHost_, b.reconsumeTimes, 0, it.body, b.topic, props[i]};
    total += static_cast<int64_t>(recordSize(recs[i]));
  }
  if (total + 8 > files_.fileSize()) return fail(PutStatus::MESSAGE_ILLEGAL, "batch larger than a commit log file");
  AppendResult r;
  {
    std::lock_guard lock(mu_);
    const int64_t now = nowMillis();
    LockClock held(beginTimeInLock_, now);
    if (appendsBlocked_.load(std::memory_order_relaxed)) return blocked();
    auto file = fileWithRoom(total);  // the whole batch lands in one file
    if (!file) return noFile(file.error());
    MappedFile& mf = *file.value();
    int64_t start = mf.wrote(), pos = start;
    int64_t& next = queueOffsetSlot(b.topic, b.queueId);
    r.queueOffset = next;
    for (auto& f : recs) {
      f.queueOffset = next++;
      f.physicalOffset = mf.fromOffset() + pos;
      f.storeTimestamp = now;
      pos += static_cast<int64_t>(encodeRecord(f, mf.data() + pos));
    }
    mf.setWrote(pos);  // published at once: readers never see half a batch
    publish(mf);
    lastStoreTs_.store(now, std::memory_order_release);
    r.physicalOffset = mf.fromOffset() + start;
    r.storeTimestamp = now;
  }
  r.status = PutStatus::PUT_OK;
  r.wroteBytes = static_cast<int32_t>(total);
  r.msgNum = static_cast<int32_t>(recs.size());
  for (auto& f : recs) {
    if (!r.msgId.empty()) r.msgId.push_back(',');
    r.msgId += createOffsetMsgId(storeHost_, f.physicalOffset);
  }
  r.topic.assign(b.topic);
  r.queueId = b.queueId;
  return r;
}

Result<void> CommitLog::appendRaw(int64_t offset, std::string_view bytes) {
  std::lock_guard lock(mu_);
  if (appendsBlocked_.load(std::memory_order_relaxed))
    return makeError(ResponseCode::SERVICE_NOT_AVAILABLE, "commit log is being truncated");
  // An empty slave follows from wherever the master starts it: the beginning of one of its files.
  bool emptyStart = !files_.last() && offset % files_.fileSize() == 0;
  if (offset != maxOffset() && !emptyStart)
    return makeError(1, "replicated offset " + std::to_string(offset) + " does not match commit log end " +
                            std::to_string(maxOffset()));
  while (!bytes.empty()) {
    if (!current_ || current_->isFull()) {
      if (!current_) current_ = files_.last();
      if (!current_ || current_->isFull()) {
        auto f = files_.fileAt(offset - offset % files_.fileSize());
        if (!f) return f.error();
        current_ = f.value();
      }
    }
    int64_t pos = offset - current_->fromOffset();
    if (auto r = current_->reserveFrom(pos); !r) return r.error();
    int64_t n = std::min<int64_t>(static_cast<int64_t>(bytes.size()), current_->size() - pos);
    std::memcpy(current_->data() + pos, bytes.data(), static_cast<size_t>(n));
    current_->setWrote(pos + n);
    publish(*current_);
    bytes.remove_prefix(static_cast<size_t>(n));
    offset += n;
  }
  return {};
}

void CommitLog::setQueueOffset(std::string_view topic, int queueId, int64_t next) {
  std::lock_guard lock(mu_);
  queueOffsetSlot(topic, queueId) = next;
}

void CommitLog::clearQueueOffsets() {
  std::lock_guard lock(mu_);
  queueOffsets_.clear();
}

void CommitLog::removeTopic(std::string_view topic) {
  std::lock_guard lock(mu_);
  std::string prefix = std::string(topic) + "-";
  for (auto it = queueOffsets_.begin(); it != queueOffsets_.end();) {
    bool match = it->first.size() > prefix.size() && it->first.compare(0, prefix.size(), prefix) == 0 &&
                 it->first.find('-', prefix.size()) == std::string::npos;
    it = match ? queueOffsets_.erase(it) : std::next(it);
  }
}

}  // namespace rmq::store
