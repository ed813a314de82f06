// MessageStore::append / appendBatch: availability checks and the DELAY rewrite (§10.1), then
// the CommitLog append; wakes the dispatcher (and, under SYNC_FLUSH, waiters wake the flusher).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "common/fault_point.h"
#include "common/log.h"
#include "common/message_codec.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "store/live_store_keys.h"
#include "store/message_store.h"
#include "store/store_engine.h"
#include "store/timer_rewrite.h"

namespace rmq::store {

namespace {
AppendResult unavailable(const StoreEngine& e) {
  AppendResult r;
  r.status = PutStatus::SERVICE_NOT_AVAILABLE;
  if (e.shutDown || !e.running) r.error = "message store is not running";
  else if (e.slaveRole) r.error = "message store is a slave: writes are refused";
  else if (e.dispatcher.stalled()) r.error = "consume queue / index cannot be written (disk full?): writes are refused";
  else r.error = "disk is full: writes are refused until space frees";
  return r;
}

// Fault point commitlog_append: the append fails before a byte is written (Java's
// PutMessageStatus.UNKNOWN_ERROR, answered SYSTEM_ERROR).
AppendResult refused(PutStatus status) {
  AppendResult r;
  r.status = status;
  return r;
}

AppendResult injectedAppendFailure() {
  AppendResult r;
  r.status = PutStatus::UNKNOWN_ERROR;
  r.error = "commit log append failed (fault point commitlog_append)";
  return r;
}
// Java's putMessage answer when the lock was found held too long (the sender's own check saw it
// free a moment earlier): OS_PAGECACHE_BUSY, answered SYSTEM_ERROR "[PC_SYNCHRONIZED]...".
AppendResult pageCacheBusy() {
  AppendResult r;
  r.status = PutStatus::OS_PAGECACHE_BUSY;
  return r;
}
}  // namespace

int64_t MessageStore::lockTimeMills() const {
  const int64_t begin = engine_->commitLog.beginTimeInLock();
  return begin == 0 ? 0 : std::max<int64_t>(0, nowMillis() - begin);
}

bool MessageStore::isOSPageCacheBusy() const {
  const int64_t held = lockTimeMills();  // no clock read while no append holds the lock
  return held > liveRead(engine_->cfg.osPageCacheBusyTimeOutMills);
}

bool StoreEngine::writeable() const {
  return running && !shutDown && !diskFull && !slaveRole && !dispatcher.stalled();
}

// A file could not be created/reserved for lack of space: refuse appends at once (instead of one
// failing file creation per send) and let retention run now; the periodic disk check or a
// retention pass that frees space makes the store writeable again.
AppendResult StoreEngine::checked(AppendResult r) {
  if (r.ok()) {
    dispatcher.wake();
    if (appendListener) appendListener();  // the HA master ships the new bytes now
  } else if (r.diskFull) {
    if (!diskFull.exchange(true)) log::error("disk full ({}): store refuses writes until space frees", r.error);
    requestCleanup();
  }
  return r;
}

AppendResult MessageStore::append(const MessageToStore& msg) {
  auto& e = *engine_;
  if (!e.writeable()) return unavailable(e);
  if (isOSPageCacheBusy()) return pageCacheBusy();
  if (fault::armed(fault::Point::CommitLogAppend)) return injectedAppendFailure();
  int32_t tt = sysflag::transactionType(msg.sysFlag);
  if (!msg.delayDelivered && (tt == sysflag::TRANSACTION_NOT_TYPE || tt == sysflag::TRANSACTION_COMMIT_TYPE)) {
    int level = delayLevelOf(msg.properties);
    auto timer = rewriteTimer(msg, e.cfg, nowMillis(), level, e.dispatcher.delayMillisOf(level));
    switch (timer.decision) {
      case TimerDecision::Park: {
        MessageToStore parked = msg;
        parked.topic = kTimerTopic;
        parked.queueId = kTimerQueueId;
        parked.properties = timer.properties;
        return e.checked(e.commitLog.append(parked));
      }
      case TimerDecision::Illegal: return refused(PutStatus::WHEEL_TIMER_MSG_ILLEGAL);
      case TimerDecision::NotEnabled: return refused(PutStatus::WHEEL_TIMER_NOT_ENABLE);
      case TimerDecision::NotTimer: break;
    }
    int maxLevel = e.dispatcher.maxDelayLevel();
    if (level > 0 && maxLevel > 0) {
      // Park in SCHEDULE_TOPIC_XXXX queue level-1 with the real destination in properties,
      // written from the message's map as Java does (WAIT back in, DELAY clamped, HashMap order).
      thread_local JavaStringMap props;
      props.clear();
      putEncodedProperties(props, msg.properties);
      if (msg.waitProperty) props.put(prop::WAIT, *msg.waitProperty);
      std::string clamped;
      if (level > maxLevel) {
        level = maxLevel;
        clamped = std::to_string(level);
        props.put(prop::DELAY, clamped);
      }
      std::string realQid = std::to_string(msg.queueId);
      props.put(prop::REAL_TOPIC, msg.topic);
      props.put(prop::REAL_QID, realQid);
      std::string encoded;
      appendProperties(encoded, props);
      MessageToStore parked = msg;
      parked.topic = kScheduleTopic;
      parked.queueId = level - 1;
      parked.properties = encoded;
      return e.checked(e.commitLog.append(parked));
    }
  }
  return e.checked(e.commitLog.append(msg));
}

AppendResult MessageStore::appendBatch(const BatchToStore& batch) {
  auto& e = *engine_;
  if (!e.writeable()) return unavailable(e);
  if (isOSPageCacheBusy()) return pageCacheBusy();
  if (fault::armed(fault::Point::CommitLogAppend)) return injectedAppendFailure();
  return e.checked(e.commitLog.appendBatch(batch));
}

std::string MessageStore::remarkFor(PutStatus s, std::string_view detail) const {
  switch (s) {  // Java 4.9 SendMessageProcessor.handlePutMessageResult
    case PutStatus::CREATE_MAPPED_FILE_FAILED: return "create mapped file failed, server is busy or broken.";
    case PutStatus::OS_PAGECACHE_BUSY: return std::string(kPageCacheBusyRemark);
    case PutStatus::SERVICE_NOT_AVAILABLE:
      return "service not available now. It may be caused by one of the following reasons: the broker's disk is full [" +
             engine_->diskUtil() + "], messages are put to the slave, message store has been shut down, etc.";
    case PutStatus::MESSAGE_ILLEGAL:
    case PutStatus::PROPERTIES_SIZE_EXCEEDED:  // Java's remark; the reason goes to the log, as Java's
      if (!detail.empty()) log::warn("message refused: {}", detail);
      return fmt::format("the message is illegal, maybe msg body or properties length not matched. msg body length "
                         "limit {}B, msg properties length limit 32KB.", liveRead(engine_->cfg.maxMessageSize));
    case PutStatus::WHEEL_TIMER_MSG_ILLEGAL:  // 5.x SendMessageProcessor's remark
      return "timer message illegal, the delay time should not be bigger than the max delay " +
             std::to_string(int64_t{engine_->cfg.timerMaxDelaySec} * 1000) +
             "ms; or if set del msg, the delay time should be bigger than the current time";
    case PutStatus::WHEEL_TIMER_NOT_ENABLE:
      return std::string("accurate timer message is not enabled, timerWheelEnable is ") +
             (engine_->cfg.timerWheelEnable ? "true" : "false");
    default: return std::string(toString(s)) + (detail.empty() ? "" : ": ") + std::string(detail);
  }
}

const char* toString(PutStatus s) {
  switch (s) {
    case PutStatus::PUT_OK: return "PUT_OK";
    case PutStatus::FLUSH_DISK_TIMEOUT: return "FLUSH_DISK_TIMEOUT";
    case PutStatus::FLUSH_SLAVE_TIMEOUT: return "FLUSH_SLAVE_TIMEOUT";
    case PutStatus::SLAVE_NOT_AVAILABLE: return "SLAVE_NOT_AVAILABLE";
    case PutStatus::SERVICE_NOT_AVAILABLE: return "SERVICE_NOT_AVAILABLE";
    case PutStatus::CREATE_MAPPED_FILE_FAILED: return "CREATE_MAPEDFILE_FAILED";
    case PutStatus::MESSAGE_ILLEGAL: return "MESSAGE_ILLEGAL";
    case PutStatus::PROPERTIES_SIZE_EXCEEDED: return "PROPERTIES_SIZE_EXCEEDED";
    case PutStatus::OS_PAGECACHE_BUSY: return "OS_PAGECACHE_BUSY";
    case PutStatus::UNKNOWN_ERROR: return "UNKNOWN_ERROR";
    case PutStatus::WHEEL_TIMER_MSG_ILLEGAL: return "WHEEL_TIMER_MSG_ILLEGAL";
    case PutStatus::WHEEL_TIMER_NOT_ENABLE: return "WHEEL_TIMER_NOT_ENABLE";
  }
  return "UNKNOWN_ERROR";
}

int toResponseCode(PutStatus s) {
  switch (s) {
    case PutStatus::PUT_OK: return ResponseCode::SUCCESS;
    case PutStatus::FLUSH_DISK_TIMEOUT: return ResponseCode::FLUSH_DISK_TIMEOUT;
    case PutStatus::FLUSH_SLAVE_TIMEOUT: return ResponseCode::FLUSH_SLAVE_TIMEOUT;
    case PutStatus::SLAVE_NOT_AVAILABLE: return ResponseCode::SLAVE_NOT_AVAILABLE;
    case PutStatus::SERVICE_NOT_AVAILABLE: return ResponseCode::SERVICE_NOT_AVAILABLE;
    case PutStatus::MESSAGE_ILLEGAL:
    case PutStatus::PROPERTIES_SIZE_EXCEEDED:
    case PutStatus::WHEEL_TIMER_MSG_ILLEGAL: return ResponseCode::MESSAGE_ILLEGAL;
    case PutStatus::OS_PAGECACHE_BUSY: return ResponseCode::SYSTEM_ERROR;  // Java 4.9.8 (a retried code)
    default: return ResponseCode::SYSTEM_ERROR;
  }
}

const char* toString(GetStatus s) {
  switch (s) {
    case GetStatus::FOUND: return "FOUND";
    case GetStatus::NO_MATCHED_MESSAGE: return "NO_MATCHED_MESSAGE";
    case GetStatus::MESSAGE_WAS_REMOVING: return "MESSAGE_WAS_REMOVING";
    case GetStatus::OFFSET_FOUND_NULL: return "OFFSET_FOUND_NULL";
    case GetStatus::OFFSET_OVERFLOW_BADLY: return "OFFSET_OVERFLOW_BADLY";
    case GetStatus::OFFSET_OVERFLOW_ONE: return "OFFSET_OVERFLOW_ONE";
    case GetStatus::OFFSET_TOO_SMALL: return "OFFSET_TOO_SMALL";
    case GetStatus::NO_MATCHED_LOGIC_QUEUE: return "NO_MATCHED_LOGIC_QUEUE";
    case GetStatus::NO_MESSAGE_IN_QUEUE: return "NO_MESSAGE_IN_QUEUE";
  }
  return "UNKNOWN";
}

}  // namespace rmq::store
