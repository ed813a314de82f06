#pragma once
// MessageStore: the facade of the store engine (CommitLog + ConsumeQueues + IndexFiles +
// checkpoint/abort/lock + flush/dispatch/retention threads), file-compatible with RocketMQ 4.9.
//
// Lifecycle: construct → open() (lock, load, recover) → start() (threads) → ... → shutdown()
// (stop threads, flush, checkpoint, remove `abort`, unlock). open()/shutdown() block (disk I/O):
// call them at broker start/stop, not on a network thread.
//
// Threads: every public method is thread-safe.
//  - append()/appendBatch() encode straight into the mapped CommitLog under a short spin-free
//    mutex: no syscall per message (the next file is preallocated by a background thread).
//  - asyncWaitDurable() completes on the handler's associated executor (post, never inline).
//  - Owned threads: flusher (fsync/msync; group commit), dispatcher ("reput": CQ + index, calls
//    the ArrivalListener), allocator (next mapped file), cleaner (retention, CQ flush, checkpoint).
//  - Reads return views into mapped files kept alive by shared_ptr owners.
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/system_executor.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "common/result.h"
#include "store/completion.h"
#include "store/store_config.h"
#include "store/store_types.h"

namespace rmq::store {

class AppendThread;
class StoreEngine;  // implementation (store_engine.h)

class MessageStore {
 public:
  // storeHost: brokerIP1:listenPort, stamped on every record and encoded in offset msgIds.
  MessageStore(StoreConfig config, HostAddress storeHost);
  ~MessageStore();  // calls shutdown() if still running
  MessageStore(const MessageStore&) = delete;
  MessageStore& operator=(const MessageStore&) = delete;

  // ---- lifecycle ----
  // Takes the lock file (error if another process holds it), loads files, recovers (normal or
  // abnormal per the `abort` file), rebuilds CQ/index past the last valid entry.
  Result<void> open();
  void start();     // starts background threads, creates `abort`
  void shutdown();  // idempotent; clean: flushed, checkpointed, `abort` removed
  // The store's own copy: the keys of isLiveStoreKey() may change while it runs (read them with
  // liveRead(); deleteWhen is the retention thread's).
  const StoreConfig& config() const;
  // UPDATE_BROKER_CONFIG: takes the isLiveStoreKey() keys of `updated` (the broker's StoreConfig
  // after the update); they apply from the next operation that reads them. Callers serialize calls.
  void applyRuntimeConfig(const StoreConfig& updated);
  const HostAddress& storeHost() const;

  // Called on the dispatcher thread right after each message reached its consume queue. Set
  // before start(). Must be cheap and non-blocking (e.g. post to the long-poll executor).
  void setArrivalListener(ArrivalListener listener);
  // Called on the appending thread right after an append/appendBatch published its bytes (the
  // HA master wakes its slave connections with it: replication starts at the append, not on a
  // poll). Set before start(). Must be cheap and non-blocking.
  void setAppendListener(std::function<void()> listener);

  // ---- writes ----
  AppendResult append(const MessageToStore& msg);
  // Atomic: all items land consecutively in one file with consecutive queue offsets, or none.
  AppendResult appendBatch(const BatchToStore& batch);
  // The thread the broker's sends run append()/appendBatch() on (append_thread.h): a stalled
  // append holds it instead of a network thread. Started by start(), stopped by shutdown().
  AppendThread& appender();

  // Completes with PUT_OK once every byte below endOffset (AppendResult::endOffset()) is
  // durable: SYNC_FLUSH waits for the group commit (one fsync covers all waiters below it) or
  // FLUSH_DISK_TIMEOUT after syncFlushTimeout; ASYNC_FLUSH completes at once. Signature
  // void(PutStatus). Usage: `auto st = co_await store.asyncWaitDurable(r.endOffset(), asio::use_awaitable);`
  template <class Token>
  auto asyncWaitDurable(int64_t endOffset, Token&& token) {
    return asio::async_initiate<Token, void(PutStatus)>(
        [this](auto handler, int64_t end) { addWaiter(WaitKind::Flush, end, wrap(std::move(handler))); },
        token, endOffset);
  }
  // Replication seam (SYNC_MASTER): completes when a slave acked endOffset (notifySlaveAck), or
  // FLUSH_SLAVE_TIMEOUT after syncFlushTimeout, or SLAVE_NOT_AVAILABLE at once when no slave is
  // connected (setSlaveAvailable) or the best slave ack is haSlaveFallbehindMax or more behind
  // endOffset (Java's HAService.isSlaveOK). Signature void(PutStatus).
  template <class Token>
  auto asyncWaitReplicated(int64_t endOffset, Token&& token) {
    return asio::async_initiate<Token, void(PutStatus)>(
        [this](auto handler, int64_t end) { addWaiter(WaitKind::SlaveAck, end, wrap(std::move(handler))); },
        token, endOffset);
  }
  bool needsDurabilityWait() const;  // true under SYNC_FLUSH (callers may skip the await otherwise)
  // What a send waits for under this store's flushDiskType and brokerRole: the flush (SYNC_FLUSH)
  // and the slave ack (SYNC_MASTER). Both waits are registered at once, each with its own
  // syncFlushTimeout (Java 4.9's flushResultFuture.thenCombine(replicaResultFuture)), so a hung
  // slave answers after one timeout, not after the flush plus one. Completes when both did: the
  // replication status when it is not PUT_OK, else the flush status. Signature void(PutStatus).
  template <class Token>
  auto asyncWaitStored(int64_t endOffset, Token&& token) {
    return asio::async_initiate<Token, void(PutStatus)>(
        [this](auto handler, int64_t end) { addStoredWaiter(end, wrap(std::move(handler))); }, token, endOffset);
  }
  bool needsStoredWait() const;  // SYNC_FLUSH or SYNC_MASTER: asyncWaitStored has something to wait for

  // ---- queue reads ----
  // Messages of topic/queueId from `offset` (count cap maxMsgNums, byte cap maxTotalBytes on top
  // of the hot/cold transfer caps); filter may be null (accept all).
  GetMessageResult getMessages(std::string_view topic, int queueId, int64_t offset, int maxMsgNums,
                               int maxTotalBytes, const MessageFilter* filter) const;
  // Consume-queue units of topic/queueId from `offset` (clamped up to the queue's min offset), at
  // most maxUnits, fillers skipped; reads no record (the timer rebuilds its index from these).
  std::vector<QueueUnit> queueUnits(std::string_view topic, int queueId, int64_t offset, int64_t maxUnits) const;
  int64_t minOffsetInQueue(std::string_view topic, int queueId) const;
  int64_t maxOffsetInQueue(std::string_view topic, int queueId) const;  // next offset to write
  // Queue offset of the first message stored at or after `timestampMs` (binary search).
  int64_t offsetInQueueByTime(std::string_view topic, int queueId, int64_t timestampMs) const;
  int64_t earliestMessageTime(std::string_view topic, int queueId) const;  // -1 when empty
  int64_t earliestMessageTime() const;                                    // commit log, -1 when empty
  int64_t messageStoreTime(std::string_view topic, int queueId, int64_t queueOffset) const;  // -1
  int64_t commitLogOffsetInQueue(std::string_view topic, int queueId, int64_t queueOffset) const;  // -1

  // ---- lookups ----
  ByteView lookMessageByOffset(int64_t commitLogOffset) const;   // one record, empty if invalid
  ByteView lookMessageByMsgId(std::string_view offsetMsgId) const;
  // Index query: topic#key, newest first then sorted by offset; maxNum capped at maxMsgsNumBatch.
  QueryMessageResult queryMessage(std::string_view topic, std::string_view key, int maxNum,
                                  int64_t beginTimestamp, int64_t endTimestamp) const;

  // ---- commit log positions / HA seam ----
  int64_t minPhyOffset() const;
  int64_t maxPhyOffset() const;      // end of written bytes (= commitLogMaxOffset for HA)
  int64_t flushedPhyOffset() const;  // durable end
  int64_t dispatchedPhyOffset() const;
  GroupCommitStats groupCommitStats() const;  // SYNC_FLUSH batches (benchmarks, shutdown log)
  GroupCommitHistograms groupCommitHistograms() const;  // the same per flush (GET /metrics)
  // Raw commit log bytes from `offset` up to the end of its file / written end (≤ maxBytes).
  ByteView readCommitLog(int64_t offset, size_t maxBytes) const;
  // Slave: appends replicated bytes; `offset` must equal maxPhyOffset(), or, while the commit log
  // has no file at all, be a multiple of mappedFileSizeCommitLog (a master starts an empty slave
  // at the beginning of its last file, §9.3). Dispatched like appends.
  Result<void> appendReplicated(int64_t offset, std::string_view bytes);
  // Failover: cuts the commit log at `offset` while the store runs (or is open, not started),
  // e.g. an old master rejoining behind the new one, or a new master dropping a partial
  // replicated record. `offset` must be a record boundary (the start of a record, or
  // maxPhyOffset()); else an error and nothing changes. The caller stops appending first (and
  // drops its HA connections); reads may go on. Consume queues, index files, queue offsets, the
  // checkpoint and the dispatcher follow; everything is durable when it returns (a kill -9 or
  // power loss brings nothing back); flush / slave-ack waiters beyond the cut get
  // SERVICE_NOT_AVAILABLE. Blocking (msync, fsync): not on a network thread. README "Truncation".
  Result<TruncateSummary> truncateTo(int64_t offset);
  // The last record boundary at or below `offset` (clamped to maxPhyOffset()): the end of the
  // last whole record, e.g. before a slave's partial tail (the HA stream is not record-aligned:
  // a new master calls truncateTo(lastRecordBoundaryAtOrBelow(maxPhyOffset()))). -1 below
  // minPhyOffset(). Reads the record headers of the file holding `offset`.
  int64_t lastRecordBoundaryAtOrBelow(int64_t offset) const;
  // Failover, a slave becoming master: replicated appends do not keep the queue-offset table (the
  // next queue offset of every topic/queue), so it is rebuilt from the consume queues and the
  // records not dispatched yet, as at start-up. Call with no appends in flight; blocks briefly.
  void rebuildQueueOffsets();
  void notifySlaveAck(int64_t ackedOffset);  // master: slave reported this durable offset
  int64_t slaveAckedOffset() const;          // master: highest offset any slave acked (0 = none)
  void setSlaveAvailable(bool available);
  // Failover (src/roles/broker/failover): a broker changes role at run time. setSlaveRole(true)
  // setRole("SLAVE") refuses appends (SERVICE_NOT_AVAILABLE); "SYNC_MASTER" / "ASYNC_MASTER" take
  // them, sends waiting for the slave ack or not (the store's brokerRole until then).
  void setRole(std::string_view brokerRole);
  bool isSlaveRole() const;
  // Failover: SYNC_MASTER sends wait for the in-sync set's confirmed offset (repl/replica_set.h
  // feeds notifySlaveAck / resetSlaveAck), never SLAVE_NOT_AVAILABLE.
  void setInSyncSetAcks(bool on);
  // Sets the acked offset to exactly `confirmedOffset`, lower or higher (notifySlaveAck only
  // raises it): the in-sync set changed, or this broker became master at a new epoch. Waiters at
  // or below it complete.
  void resetSlaveAck(int64_t confirmedOffset);

  // ---- topic/queue management ----
  std::map<std::string, std::set<int>> queues() const;  // every topic with a consume queue
  void deleteTopics(const std::set<std::string>& topics);  // drops their consume queues
  // Retention: runs one pass now (tests/admin); `force` ignores deleteWhen and file age.
  void runRetention(bool force);
  // Test/ops seam: replaces the disk-usage probe (returns used ratio 0..1 of the store disk).
  void setDiskUsageProbe(std::function<double()> probe);
  // False while the disk is too full (above diskSpaceWarningLevelRatio, or a file could not be
  // created for lack of space), dispatch is stalled (a consume queue / index file cannot be
  // written), or the store is shut down / a slave. Becomes true again by itself.
  bool isWriteable() const;
  // The response remark Java's broker gives a send that ended with `s` (SERVICE_NOT_AVAILABLE
  // names the disk usage "CL: 0.95 CQ: 0.95 INDEX: 0.95" of the last disk check); other
  // statuses: "STATUS: detail". No syscall: fine on a network thread.
  std::string remarkFor(PutStatus s, std::string_view detail = {}) const;
  // How long the append now holding the commit-log lock has held it (ms; 0 = nobody holds it):
  // Java's lockTimeMills, GET_BROKER_RUNTIME_INFO "pageCacheLockTimeMills". Lock-free; reads the
  // clock only while the lock is held.
  int64_t lockTimeMills() const;
  // Java's isOSPageCacheBusy: lockTimeMills() > osPageCacheBusyTimeOutMills (a stalled disk).
  // append()/appendBatch() then refuse at once with OS_PAGECACHE_BUSY (toResponseCode: SYSTEM_ERROR,
  // remark kPageCacheBusyRemark), as Java's putMessage.
  bool isOSPageCacheBusy() const;
  static constexpr std::string_view kPageCacheBusyRemark = "[PC_SYNCHRONIZED]broker busy, start flow control for a while";

 private:
  enum class WaitKind { Flush, SlaveAck };
  void addWaiter(WaitKind kind, int64_t endOffset, Completion done);
  void addStoredWaiter(int64_t endOffset, Completion done);

  template <class Handler>
  static Completion wrap(Handler&& h) {
    return completionOf(std::move(h), [](auto&& handler, PutStatus st) { std::move(handler)(st); });
  }

  std::unique_ptr<StoreEngine> engine_;
};

}  // namespace rmq::store
