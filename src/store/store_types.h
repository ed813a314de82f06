#pragma once
// Value types of the MessageStore API (put/get statuses, inputs, results, views).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "common/message.h"
#include "metrics/metric_types.h"

namespace rmq::store {

inline constexpr std::string_view kScheduleTopic = "SCHEDULE_TOPIC_XXXX";
// Timer messages (store/timer_rewrite.h): queue 0 holds the parked messages and delete markers
// (tags code = delivery time), queue 1 the delivery progress records (broker/delivery/timer_*).
inline constexpr std::string_view kTimerTopic = "rmq_sys_wheel_timer";
inline constexpr int kTimerQueueId = 0;
inline constexpr int kTimerProgressQueueId = 1;

// One consume-queue unit read without its record (MessageStore::queueUnits).
struct QueueUnit {
  int64_t queueOffset = 0;
  int64_t phyOffset = 0;
  int32_t size = 0;
  int64_t tagsCode = 0;
};

// Java PutMessageStatus (the broker maps it to a response code).
enum class PutStatus {
  PUT_OK,
  FLUSH_DISK_TIMEOUT,        // bytes written, fsync not done within syncFlushTimeout
  FLUSH_SLAVE_TIMEOUT,       // replication seam: slave did not ack in time
  SLAVE_NOT_AVAILABLE,       // replication seam: SYNC_MASTER without a slave
  SERVICE_NOT_AVAILABLE,     // shutting down, slave role, or disk too full (resumes by itself)
  CREATE_MAPPED_FILE_FAILED,
  MESSAGE_ILLEGAL,           // topic too long, body over maxMessageSize, malformed batch
  PROPERTIES_SIZE_EXCEEDED,  // properties string over 32767
  OS_PAGECACHE_BUSY,
  UNKNOWN_ERROR,
  WHEEL_TIMER_MSG_ILLEGAL,   // timer message: bad time property, too far, or a late delete marker
  WHEEL_TIMER_NOT_ENABLE,    // timer properties while timerWheelEnable=false (5.x refuses them too)
};
const char* toString(PutStatus s);
int toResponseCode(PutStatus s);  // SUCCESS, FLUSH_DISK_TIMEOUT, SERVICE_NOT_AVAILABLE, ...

// One message to append. Views must stay valid during append() only (it copies into the log).
struct MessageToStore {
  std::string_view topic;
  int32_t queueId = 0;
  int32_t flag = 0;
  std::string_view body;
  std::string_view properties;  // encoded properties string (§4.5); the store adds nothing but
                                // REAL_TOPIC/REAL_QID for DELAY messages (moved to SCHEDULE_TOPIC)
  int32_t sysFlag = 0;          // V6 bits are derived from the hosts
  int64_t bornTimestamp = 0;
  HostAddress bornHost;
  int32_t reconsumeTimes = 0;
  int64_t preparedTransactionOffset = 0;
  bool delayDelivered = false;  // re-put from SCHEDULE_TOPIC_XXXX: DELAY stays in the properties
                                // (as Java stores it) and is not parked again
  // The producer's WAIT, which Java 4.9.8 leaves out of `properties` but keeps in the message's
  // map: a string rebuilt from the map (DELAY parking, half message) has it again.
  std::optional<std::string_view> waitProperty;
};

// SEND_BATCH_MESSAGE: one record per item of `batchBody` (§4.7), all with the shared fields.
struct BatchToStore {
  std::string_view topic;
  int32_t queueId = 0;
  int32_t sysFlag = 0;
  int64_t bornTimestamp = 0;
  HostAddress bornHost;
  int32_t reconsumeTimes = 0;
  std::string_view batchBody;
  std::string_view batchProperties;  // header properties + CLUSTER, appended to each item's
};

struct AppendResult {
  PutStatus status = PutStatus::UNKNOWN_ERROR;
  std::string error;           // human-readable reason when status != PUT_OK
  int64_t physicalOffset = 0;  // first record's commit log offset
  int32_t wroteBytes = 0;      // all records of the batch
  int64_t queueOffset = 0;     // first record's consume queue offset
  int32_t msgNum = 0;
  int64_t storeTimestamp = 0;
  std::string msgId;           // offset msgId; comma-joined for batches
  std::string topic;           // where it was stored (SCHEDULE_TOPIC_XXXX for delay messages)
  int32_t queueId = 0;
  bool diskFull = false;       // CREATE_MAPPED_FILE_FAILED because the disk is full
  int64_t endOffset() const { return physicalOffset + wroteBytes; }  // for asyncWaitDurable
  bool ok() const { return status == PutStatus::PUT_OK; }
};

// Java GetMessageStatus (§8.3).
enum class GetStatus {
  FOUND,
  NO_MATCHED_MESSAGE,
  MESSAGE_WAS_REMOVING,
  OFFSET_FOUND_NULL,
  OFFSET_OVERFLOW_BADLY,
  OFFSET_OVERFLOW_ONE,
  OFFSET_TOO_SMALL,
  NO_MATCHED_LOGIC_QUEUE,
  NO_MESSAGE_IN_QUEUE,
};
const char* toString(GetStatus s);

// Pull filter: called with properties == nullptr for the consume-queue stage (tags code only),
// then, for units that passed, with the record's encoded properties (SQL92 stage). Return true to
// deliver. For SCHEDULE_TOPIC_XXXX the tags code is the delivery time.
using MessageFilter = std::function<bool(int64_t tagsCode, const std::string_view* properties)>;

// Records are views into mapped files; `owner` keeps those files mapped (hand it to
// RemotingCommand::bodyOwner and the views to bodySegments).
struct GetMessageResult {
  GetStatus status = GetStatus::NO_MATCHED_LOGIC_QUEUE;
  int64_t nextBeginOffset = 0;
  int64_t minOffset = 0;
  int64_t maxOffset = 0;
  std::vector<std::string_view> records;  // whole records (§4.1), CQ order
  std::vector<int64_t> queueOffsets;      // queue offset of each record
  std::vector<int64_t> tagsCodes;         // CQ tags code of each record
  std::shared_ptr<const void> owner;
  int32_t totalBytes = 0;
  bool suggestPullingFromSlave = false;   // data is cold (beyond accessMessageInMemoryMaxRatio)
};

// One record (or raw commit log range) with its keep-alive.
struct ByteView {
  std::string_view bytes;
  std::shared_ptr<const void> owner;
  explicit operator bool() const { return !bytes.empty(); }
};

struct QueryMessageResult {
  std::vector<std::string_view> records;  // sorted by commit log offset
  std::vector<std::shared_ptr<const void>> owners;
  int64_t indexLastUpdateTimestamp = 0;
  int64_t indexLastUpdatePhyoffset = 0;
  int32_t totalBytes = 0;
};

// Called by the dispatcher thread right after a message reached its consume queue. queueOffset is
// the new message's offset (the queue's max offset is now queueOffset + 1); tagsCode as in the CQ;
// properties is a view valid during the call only. Not called for PREPARED/ROLLBACK records.
using ArrivalListener = std::function<void(const std::string& topic, int queueId, int64_t queueOffset,
                                           int64_t tagsCode, int64_t storeTimestamp,
                                           std::string_view properties)>;

// What MessageStore::truncateTo cut.
struct TruncateSummary {
  int64_t offset = 0;           // the commit log end now (the offset asked for)
  int64_t messagesCut = 0;      // whole records that were at or beyond it
  int64_t firstCutOffset = -1;  // start of the first / last of them (-1: none, e.g. only a partial record)
  int64_t lastCutOffset = -1;
  int64_t bytesCut = 0;         // old end - offset (a partial record's bytes included)
};

// Group-commit counters (flusher thread writes, anyone reads): batch size = waiters / flushes,
// disk time per flush = flushNanos / flushes (what the group-commit limit is computed from).
struct GroupCommitStats {
  uint64_t flushes = 0;      // msync passes that had waiters
  uint64_t waiters = 0;      // waiters those passes completed
  uint64_t flushNanos = 0;   // time inside msync for those passes
  uint64_t overlapped = 0;   // flushes started while another was still in flight
  uint64_t cycles = 0;       // SYNC_FLUSH flushes started on an idle disk (none in flight) while busy
  uint64_t gapNanos = 0;     // for those: disk idle time since the previous flush ended
  // SYNC_FLUSH sends whose bytes a flush had already covered when they came to wait (an idle
  // flush, or one for other sends, ran between their append and their wait): answered at once,
  // in no batch.
  uint64_t alreadyFlushed = 0;
};

// The same flushes as distributions (GET /metrics: rmqnode_group_commit_flush_seconds and
// rmqnode_group_commit_batch_size): msync seconds and waiters completed per flush with waiters.
struct GroupCommitHistograms {
  metrics::Histogram::Snapshot flushSeconds;
  metrics::Histogram::Snapshot batchSize;
};

}  // namespace rmq::store
