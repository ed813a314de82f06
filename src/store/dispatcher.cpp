#include "store/dispatcher.h"

#include <charconv>
#include <chrono>
#include <pthread.h>

#include "common/timer_properties.h"
#include "common/cpu_relax.h"
#include "common/fault_point.h"
#include "common/log.h"

namespace rmq::store {

Dispatcher::Dispatcher(const StoreConfig& cfg, CommitLog& log, ConsumeQueueTable& cqs, IndexService& index,
                       Checkpoint& checkpoint)
    : cfg_(cfg), log_(log), cqs_(cqs), index_(index), checkpoint_(checkpoint) {}

Result<void> Dispatcher::init() {
  auto d = cfg_.delayLevelMillis();
  if (!d) return d.error();
  delayMillis_ = std::move(d.value());
  return {};
}

int64_t Dispatcher::tagsCodeOf(const RecordView& r) const {
  if (r.topic == kScheduleTopic) {
    if (auto level = findEncodedProperty(r.properties, prop::DELAY)) {
      int lv = 0;
      std::from_chars(level->data(), level->data() + level->size(), lv);
      if (lv > static_cast<int>(delayMillis_.size())) lv = static_cast<int>(delayMillis_.size());
      if (lv > 0) return r.storeTimestamp + delayMillis_[static_cast<size_t>(lv - 1)];
    }
  } else if (r.topic == kTimerTopic && r.queueId == kTimerQueueId) {
    // A far timer's copy wakes earlier than its time to be rolled (store/timer_rewrite.h).
    auto out = findEncodedProperty(r.properties, prop::TIMER_WAKE_MS);
    if (!out) out = findEncodedProperty(r.properties, prop::TIMER_OUT_MS);
    if (out) {
      int64_t ms = 0;
      std::from_chars(out->data(), out->data() + out->size(), ms);
      return ms;
    }
  }
  auto tags = findEncodedProperty(r.properties, prop::TAGS);
  return tags && !tags->empty() ? javaStringHash(*tags) : 0;
}

Result<void> Dispatcher::dispatchRecord(const RecordView& r, bool notify) {
  int32_t tt = sysflag::transactionType(r.sysFlag);
  bool toQueue = tt == sysflag::TRANSACTION_NOT_TYPE || tt == sysflag::TRANSACTION_COMMIT_TYPE;
  int64_t tagsCode = 0;
  if (toQueue) {
    auto cq = cqs_.findOrCreate(r.topic, r.queueId);
    tagsCode = tagsCodeOf(r);
    if (auto res = cq->putUnit(r.queueOffset, r.physicalOffset, r.totalSize, tagsCode); !res)
      return makeError(res.error().code, "consume queue " + std::string(r.topic) + "/" +
                                             std::to_string(r.queueId) + ": " + res.error().message);
    checkpoint_.setLogicsMsgTimestamp(r.storeTimestamp);
  }
  if (auto res = index_.buildIndex(r); !res) return makeError(res.error().code, "index: " + res.error().message);
  if (toQueue && notify && listener_) {
    topicBuf_.assign(r.topic);
    listener_(topicBuf_, r.queueId, r.queueOffset, tagsCode, r.storeTimestamp, r.properties);
  }
  return {};
}

void Dispatcher::noteStall(int64_t pos, const Error& err) {
  if (!stalled_.exchange(true))
    log::error("dispatch stalled at commit log offset {} ({}): appends are refused, retrying until it goes through",
               pos, err.message);
}

int64_t Dispatcher::forEachRecord(int64_t from, int64_t to, const std::function<bool(const RecordView&)>& fn) const {
  int64_t pos = from;
  while (pos < to) {
    auto view = log_.readRaw(pos, static_cast<size_t>(to - pos));
    if (!view) {
      // pos may sit at the end of a full file whose successor starts at pos: readRaw found nothing
      // only when no file holds pos (deleted by retention): jump to the first file.
      int64_t min = log_.minOffset();
      if (pos < min) { pos = min; continue; }
      break;
    }
    RecordView r;
    auto rc = parseRecord(view.bytes.data(), view.bytes.size(), r, false);
    if (rc == RecordParse::Blank) {
      int64_t fileSize = log_.files().fileSize();
      pos = pos + fileSize - pos % fileSize;
      continue;
    }
    if (rc != RecordParse::Ok) {
      if (rc == RecordParse::Corrupt) log::error("dispatch: invalid record at commit log offset {}", pos);
      break;  // Truncated: a slave's partial tail; wait for the rest
    }
    if (!fn(r)) break;
    pos += r.totalSize;
  }
  return pos;
}

int64_t Dispatcher::dispatchRange(int64_t from, int64_t to, bool notify) {
  int64_t pos = forEachRecord(from, to, [&](const RecordView& r) {
    if (auto res = dispatchRecord(r, notify); !res) {
      noteStall(r.physicalOffset, res.error());
      return false;
    }
    if (stalled_.load(std::memory_order_relaxed) && stalled_.exchange(false))
      log::info("dispatch resumed at commit log offset {}", r.physicalOffset);
    return true;
  });
  position_.store(pos, std::memory_order_release);
  return pos;
}

void Dispatcher::start(int64_t from) {
  position_ = from;
  stopping_ = false;
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "dispatcher");
    run();
  });
}

void Dispatcher::stop() {
  stopping_ = true;
  {
    std::lock_guard lock(mu_);
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void Dispatcher::run() {
  while (!stopping_.load()) {
    if (fault::armed(fault::Point::DispatchStall)) {  // test/drill fault point: consumers see nothing new
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, fault::kFlagRecheck, [&] { return stopping_.load(); });
      continue;
    }
    int64_t end = log_.maxOffset();
    int64_t pos = position();
    if (pos < end) {
      int64_t reached = dispatchRange(pos, end, true);
      if (reached != pos) continue;
      if (stalled()) {  // the record at pos cannot be written yet (full disk): retry it shortly
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, kStallRetry, [&] { return stopping_.load(); });
        continue;
      }
    }
    // Spin briefly before sleeping: under load the next append is microseconds away, and
    // catching it here spares the appender a futex wake-up per message.
    auto spinUntil = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    while (idleSpin_.load(std::memory_order_relaxed) && log_.maxOffset() <= end && !stopping_.load() &&
           std::chrono::steady_clock::now() < spinUntil)
      cpuRelax();
    if (log_.maxOffset() > end) continue;
    std::unique_lock lock(mu_);
    sleeping_.store(true, std::memory_order_seq_cst);
    // Re-check after announcing sleep: an appender that published before seeing sleeping_ is caught here.
    cv_.wait_for(lock, std::chrono::milliseconds(500), [&] { return stopping_.load() || log_.maxOffset() > end; });
    sleeping_.store(false, std::memory_order_seq_cst);
  }
}

}  // namespace rmq::store
