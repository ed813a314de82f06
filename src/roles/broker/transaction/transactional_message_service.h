#pragma once
// TransactionalMessageService: the broker side of RocketMQ transactions (PROTOCOL.md §10.3).
// - prepare(): a TRAN_MSG send is stored as a half message (RMQ_SYS_TRANS_HALF_TOPIC queue 0,
//   REAL_TOPIC/REAL_QID, transaction bits cleared), invisible to consumers of the real topic.
// - endTransaction(): END_TRANSACTION commits (the half record to its real topic, COMMIT type,
//   properties unchanged) or rolls back, then writes the op record (RMQ_SYS_TRANS_OP_HALF_TOPIC,
//   tags "d", body = half queue offset). A transaction (UNIQ_KEY) is decided once: a repeated or
//   late decision of an already decided transaction changes nothing.
// - The check service: every transactionCheckInterval it walks the half queue from its offset
//   (consumer offsets of group CID_RMQ_SYS_TRANS, as Java), skips half messages with an op record,
//   discards those checked transactionCheckMax times or born longer ago than fileReservedTime to
//   TRANS_CHECK_MAX_TIME_TOPIC, puts one younger than its CHECK_IMMUNITY_TIME_IN_SECONDS back
//   unchecked (a copy with TRAN_PREPARED_QUEUE_OFFSET = the original's half offset; passed once
//   the original is decided) and for each one older than transactionTimeOut (or its immunity)
//   appends a renewed copy (TRANSACTION_CHECK_TIMES + 1) and sends CHECK_TRANSACTION_STATE
//   (oneway) about that copy to a live producer connection of its PGROUP. As Java 4.9.8, an
//   immunity copy counts as a check (TRANSACTION_CHECK_TIMES + 1), so an immunity longer than
//   transactionCheckMax rounds ends in the discard topic unchecked. Op records are read in
//   batches of 32 as far as a half message needs. Everything is rebuilt from the half/op queues and the
//   two offsets, so a restart (kill -9 included) loses no decision and applies none twice: in
//   memory a transaction is decided once by UNIQ_KEY; across restarts a commit is found again
//   through the index (UNIQ_KEY under the real topic) before a second one is written or checked.
// Threads: prepare/endTransaction run on network threads (each a few short store appends, no
// waiting for disk); the check rounds run on the service's own thread (io_context + timer).
// Lifecycle: construct after the store and managers, start() on masters, shutdown().
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "common/message_codec.h"
#include "roles/broker/broker_context.h"
#include "store/store_types.h"

namespace rmq::broker {

struct EndTransactionHeader {
  std::string producerGroup;
  int64_t tranStateTableOffset = 0;
  int64_t commitLogOffset = 0;
  int32_t commitOrRollback = 0;  // 0 unknown, 8 commit, 12 rollback
  bool fromTransactionCheck = false;
  std::string msgId, transactionId;
};

class TransactionalMessageService {
 public:
  explicit TransactionalMessageService(BrokerContext& ctx);
  ~TransactionalMessageService();

  // Stores `m` (a TRAN_MSG send) as a half message.
  store::AppendResult prepare(store::MessageToStore m);

  struct EndResult {
    int code = 0;  // ResponseCode
    std::string remark;
  };
  EndResult endTransaction(const EndTransactionHeader& h);
  // RESUME_CHECK_HALF_MESSAGE: the message of offset message id `msgId` back into the half queue
  // with its check count reset (Java's remarks on failure).
  EndResult resumeCheck(std::string_view msgId);

  void start();
  void shutdown();
  // One check round now, on the calling thread (the timer calls it; tests may too).
  void checkRound();

  uint64_t checksSent() const { return checksSent_.load(std::memory_order_relaxed); }
  uint64_t discarded() const { return discarded_.load(std::memory_order_relaxed); }

 private:
  // Op records read so far in a round (Java's fillOpRemoveMap: batches of 32, read on demand).
  struct OpScan {
    std::map<int64_t, int64_t> opByHalf;  // half queue offset -> op queue offset
    std::map<int64_t, int64_t> halfByOp;  // op queue offset -> half queue offset
    int64_t end = 0;                      // op queue offset after the last op read
    bool exhausted = false;               // no op record after `end` (yet)
  };
  // Up to 32 messages of the half or op queue from `offset`, counted as a get of group
  // CID_RMQ_SYS_TRANS when found (Java's TransactionalMessageBridge.getMessage).
  store::GetMessageResult readQueue(std::string_view topic, int64_t offset, int maxBytes) const;
  // Reads the next batch of op records into `s` (their transactions become decided); false when
  // there was none.
  bool readOps(OpScan& s);
  // Whether half offset `halfOffset` has an op record, reading further batches until found or none left.
  bool hasOp(OpScan& s, int64_t halfOffset);
  // Puts a half message inside its CHECK_IMMUNITY_TIME back (Java checkPrepareQueueOffset): true
  // when the round may pass it (its original was decided, or the copy is stored).
  bool passImmune(OpScan& ops, const RecordView& half, int32_t checkTimes);
  std::string uniqKeyOfHalf(int64_t halfQueueOffset) const;
  // Whether the half message's transaction already has a committed record in its real topic.
  bool alreadyCommitted(const RecordView& half, const std::string& uniq) const;
  bool writeOp(int64_t halfQueueOffset);
  void markDecided(const std::string& uniqKey, int64_t halfQueueOffset);
  bool isDecided(const std::string& uniqKey) const;
  // Appends a renewed copy of `half` and sends the check for it; false if the append failed.
  bool checkBack(const RecordView& half, int32_t checkTimes);
  void scheduleRound();

  BrokerContext& ctx_;
  mutable std::mutex mu_;                  // decided_ and the decision path (one decision at a time)
  std::unordered_map<std::string, int64_t> decided_;  // UNIQ_KEY -> half offset of its decision (bounded)
  std::multimap<int64_t, std::string> decidedByOffset_;  // the same, oldest first (eviction order)
  std::atomic<uint64_t> checksSent_{0}, discarded_{0};

  asio::io_context io_;
  std::unique_ptr<asio::steady_timer> timer_;
  std::thread thread_;
  std::atomic<bool> running_{false};
};

}  // namespace rmq::broker
