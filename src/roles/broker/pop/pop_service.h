#pragma once
// PopService: the broker's POP consumption engine (RocketMQ 5.x consumers): pop, ack,
// changeInvisible, forwardToDeadLetter. The remoting processor (pop_processor.h) and the gRPC
// endpoint call it; README.md documents the API, the semantics and the pop log.
//
// Semantics in one paragraph: a pop takes up to maxNums messages of (group, topic, queue or every
// readable queue) — first the group's due messages (popped before, invisible time over, not acked),
// then new ones from the group's next offset — and makes them invisible to the group for
// invisibleTime. A message is redelivered in place (the same stored record; no copy to a retry
// topic) as soon as its invisible time ends: an exact timer marks it due and wakes one parked pop
// of the group. Each delivery counts: delivery attempt = reconsumeTimes + 1 in the record handed
// out. When the delivery number retryMaxTimes + 1 (the subscription group's) ends un-acked, the
// message goes to %DLQ%<group> instead. An ack removes the message for good. FIFO (request flag or
// the group's consumeMessageOrderly): a queue is held while any message of its batch is in flight
// and invisible; its un-acked messages come first, in order, when the hold ends.
//
// Every change is a PopEvent appended to the pop log (pop_log.h) before it is applied, under one
// lock, so the log order is the apply order; a restart (or a promoted slave) replays it.
//
// Threads: pop()/ack()/changeInvisible()/forwardToDeadLetter() on any network thread (they never
// block: store reads and appends are memory operations; a SYNC_FLUSH / SYNC_MASTER wait is
// awaited). One timer thread: due messages, dead letters, checkpoints.
// Lifecycle: start() on a master (recovers), shutdown() (checkpoint; idempotent). Without start()
// every call answers SERVICE_NOT_AVAILABLE.
#include <asio/awaitable.hpp>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "roles/broker/pop/invisibility_timers.h"
#include "roles/broker/pop/pop_log.h"
#include "roles/broker/pop/pop_state.h"
#include "roles/broker/pop/receipt_handle.h"

namespace rmq::filter {
class Filter;
}

namespace rmq::broker {
struct BrokerContext;
class ParkCancel;
}

namespace rmq::broker::pop {

// Error code of an expired, foreign, garbled or already used receipt handle (gRPC:
// INVALID_RECEIPT_HANDLE). The remark says which.
inline constexpr int kInvalidReceiptHandle = 208;  // ResponseCode::NO_MESSAGE

struct PopRequest {
  std::string group;
  std::string topic;
  int32_t queueId = -1;           // -1: every readable queue of the topic, from a rotating start
  int32_t maxNums = 32;           // 1..32
  int64_t invisibleTime = 60000;  // ms, >= 1
  int64_t pollTime = 0;           // ms to wait for a message when there is none (0: answer at once)
  std::string expressionType = "TAG";  // TAG or SQL92
  std::string expression = "*";
  bool fifo = false;       // also on when the group has consumeMessageOrderly
  std::string attemptId;   // FIFO: the same attempt may take its still-invisible batch again
  int32_t initMode = 0;    // where a group's first pop of a queue starts: 0 MIN, 1 MAX (Java ConsumeInitMode)
  std::shared_ptr<ParkCancel> cancel;  // optional: cancel() ends the long poll (delivery/pull_request_hold.h)
};

struct PoppedMessage {
  std::string record;         // the stored record, reconsumeTimes = stored + deliveries before this one
  std::string receiptHandle;  // ReceiptHandle text (9 fields)
  int32_t deliveryAttempt = 1;
  int32_t queueId = 0;
  int64_t queueOffset = 0;
  int64_t commitLogOffset = 0;
};

struct PopResult {
  enum class Status { Found, NoMessage, PollingFull };
  Status status = Status::NoMessage;
  int64_t popTime = 0;
  int64_t invisibleTime = 0;
  int32_t reviveQid = kNormalReviveQid;
  int64_t restNum = 0;  // messages left behind in the queues looked at (new + due)
  std::vector<PoppedMessage> messages;     // by (queueId, queueOffset)
  std::map<int32_t, int64_t> startOffsets; // per queue of `messages`: its smallest offset
  bool fifo = false;
};

struct PopStats {
  bool running = false;
  uint64_t inFlight = 0;
  uint64_t timers = 0;
  uint64_t popped = 0, acked = 0, redelivered = 0, deadLettered = 0, changed = 0;
  int64_t snapshotSeq = -1;
  int64_t eventsSinceCheckpoint = 0;
  RecoveryStats recovery;
};

// One (group, topic, queue)'s figures for the operators' views (/metrics, GET_CONSUME_STATS).
struct PopQueueFigures {
  QueueKey key;
  int64_t nextOffset = -1;     // first offset never popped (5.x's pullOffset)
  uint64_t inFlight = 0;       // popped, not acked (due ones included)
  uint64_t due = 0;            // invisible time over, waiting for the group's next pop
  uint64_t deadLettered = 0;   // moved to %DLQ%<group> since start
};

// PEEK_MESSAGE's answer: what the group's next pops would get, nothing changed.
struct PeekResult {
  std::vector<std::string> records;  // stored records as they are
  int64_t restNum = 0;               // messages not yet popped in the queues looked at
};

class PopService {
 public:
  explicit PopService(BrokerContext& ctx);
  ~PopService();

  void start();     // recovers from the pop log, starts the timer thread (master)
  void shutdown();  // stops the timer thread, writes a checkpoint
  bool running() const { return running_.load(); }

  // Long-polls up to req.pollTime when nothing is there (cancellable: req.cancel, asio cancellation
  // of the awaiting coroutine, or shutdown). Errors: a refused request (group/topic/queue/filter) with
  // Java's codes and remarks.
  asio::awaitable<Result<PopResult>> pop(PopRequest req);
  // The message of `handle` is done. Answered once the ack is stored as the broker's flush /
  // replication mode requires (SYNC_FLUSH, SYNC_MASTER).
  asio::awaitable<Result<void>> ack(std::string group, std::string topic, std::string handle);
  // The acks of one pop batch (BATCH_ACK_MESSAGE): each offset of `offsets` of (group, topic, queue)
  // delivered at popTime. Offsets not in flight with that popTime, or whose invisible time is
  // over, are skipped (as 5.x does, silently). Returns how many were acked; answered once stored
  // as `ack`.
  asio::awaitable<Result<size_t>> ackBatch(std::string group, std::string topic, int32_t queueId, int64_t popTime,
                                           std::vector<int64_t> offsets);
  // PEEK_MESSAGE: up to maxNums records the group's next pops of (topic, queue or every readable
  // queue when queueId < 0) would get — due ones first, then new ones from its next offset —
  // without popping them. Errors as pop's, INVALID_PARAMETER for a queue beyond the read queues.
  Result<PeekResult> peek(const std::string& group, const std::string& topic, int32_t queueId, int32_t maxNums);
  // A new delivery of the same message, invisible for `invisibleTime` ms from now; the old handle
  // is dead. Returns the new handle.
  asio::awaitable<Result<std::string>> changeInvisible(std::string group, std::string topic, std::string handle,
                                                       int64_t invisibleTime);
  // To %DLQ%<group> now, then done (gRPC ForwardMessageToDeadLetterQueue).
  asio::awaitable<Result<void>> forwardToDeadLetter(std::string group, std::string topic, std::string handle);

  // The group's consumer offset of a queue (what consumerProgress shows), -1 when it never popped it.
  int64_t committedOffset(const QueueKey& key);
  PopStats stats();
  // Every queue a POP group used (since start or recovery), by key; empty on a slave.
  std::vector<PopQueueFigures> figures();
  // One queue's, when the group popped it.
  std::optional<PopQueueFigures> figures(const QueueKey& key);
  void checkpointNow();  // tests and shutdown

 private:
  struct Prepared;
  Result<Prepared> prepare(PopRequest req);
  // pop() after prepare(): the coroutine frame of a parked pop keeps one copy of the request.
  asio::awaitable<Result<PopResult>> popPrepared(Result<Prepared> prepared);
  Result<PopResult> popOnce(const Prepared& p);
  // One queue's share of a pop (mu_ held), delivered with out.popTime. Appends the event; fills `out`.
  Result<void> popQueue(const Prepared& p, int32_t queueId, int64_t now, PopResult& out);
  bool readyFor(const Prepared& p);
  int64_t initialOffset(const Prepared& p, int32_t queueId);
  Result<store::AppendResult> record(const PopEvent& e);  // append + apply + timers (mu_ held)
  Result<InFlight> validate(const QueueKey& key, const ReceiptHandle& h, int64_t now);
  struct AcksRecorded {
    int64_t endOffset = 0;  // of the ack record in the commit log
    bool released = false;  // nothing of the queue is invisible any more: a held FIFO queue is free
  };
  // Appends and applies one ack event of `items` (deliveries in flight; mu_ held).
  Result<AcksRecorded> recordAcks(const QueueKey& key, std::vector<PopItem> items, int64_t now);
  void peekQueue(const QueueKey& key, int64_t from, int32_t maxNums, PeekResult& out);  // mu_ held
  Result<ReceiptHandle> decodeFor(std::string_view text);
  asio::awaitable<Result<void>> awaitStored(int64_t endOffset);
  Result<void> deadLetter(const QueueKey& key, const InFlight& m);  // mu_ held
  int32_t maxDeliveries(const std::string& group) const;
  void commitOffset(const QueueKey& key, const PopQueue& q);
  void run();
  void fireDue(int64_t now, std::vector<const QueueKey*>& woken);
  void maybeCheckpoint(int64_t now, bool force);
  void rebuildTimers();
  std::string handleFor(const QueueKey& key, const InFlight& m, int64_t startOffset, bool fifo) const;

  BrokerContext& ctx_;
  PopLog log_;
  std::mutex mu_;  // state_, timers_, counters below
  PopState state_;
  InvisibilityTimers timers_;
  int64_t nextEventOffset_ = 0;
  int64_t eventsSinceCheckpoint_ = 0;
  int64_t lastCheckpointMs_ = 0;
  int64_t snapshotSeq_ = 0;
  uint32_t rotate_ = 0;
  RecoveryStats recovery_;
  std::atomic<uint64_t> popped_{0}, acked_{0}, redelivered_{0}, deadLettered_{0}, changed_{0};

  std::mutex wakeMu_;
  std::condition_variable cv_;
  bool woken_ = false;
  std::thread thread_;
  std::atomic<bool> running_{false};
};

}  // namespace rmq::broker::pop
