#pragma once
// StoreEngine: the components behind MessageStore (private to src/store). Owns the maintenance
// thread (consume-queue/index flush + checkpoint, disk check, retention).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "store/allocate_service.h"
#include "store/append_thread.h"
#include "store/checkpoint.h"
#include "store/commit_log.h"
#include "store/consume_queue_table.h"
#include "store/dispatcher.h"
#include "store/flush_service.h"
#include "store/index_service.h"
#include "store/store_config.h"

namespace rmq::store {

class StoreEngine {
 public:
  StoreEngine(StoreConfig config, HostAddress host);

  StoreConfig cfg;
  HostAddress storeHost;
  StoreLock lock;
  Checkpoint checkpoint;
  AllocateService allocator;
  CommitLog commitLog;
  ConsumeQueueTable cqs;
  IndexService index;
  Dispatcher dispatcher;
  FlushService flusher;
  AppendThread appender;  // the broker's sends append here, off the network threads

  std::atomic<bool> opened{false};
  std::atomic<bool> running{false};
  std::atomic<bool> shutDown{false};
  std::atomic<bool> diskFull{false};
  std::atomic<bool> slaveAvailable{false};
  // A slave refuses appends. Set from brokerRole at construction; failover flips it at run time.
  std::atomic<bool> slaveRole{false};
  std::atomic<bool> syncMasterRole{false};  // SYNC_MASTER: sends wait for the slave ack
  // The idle spins of the dispatcher and the append thread, and the network threads' wait in place
  // for an append (AppendThread::runWaiting), are for an ASYNC master's steady stream of sends.
  // A slave has no sends. Under SYNC_MASTER the sends come in bursts a replication round trip
  // apart (each waits for the slave's ack, so a burst's senders send again together), the spins
  // miss after every burst, and on a small box their CPU is taken from the HA threads, the slave
  // and the clients the round trip waits for: issue 23 measured SYNC_MASTER at a median 76 % of
  // ASYNC_MASTER with them and 90 % without (src/repl/README.md). Called whenever the role changes.
  void applyRoleToThreads();
  // Failover (MessageStore::setInSyncSetAcks): the SYNC_MASTER wait is for the in-sync set's
  // confirmed offset only (no SLAVE_NOT_AVAILABLE for a missing or far-behind slave).
  std::atomic<bool> inSyncSetAcks{false};
  std::function<void()> appendListener;  // set before start (MessageStore::setAppendListener)
  int64_t ramBytes = 0;
  int64_t hotDataBytes() const;  // RAM × accessMessageInMemoryMaxRatio (a live key)
  int64_t dispatchedEnd = 0;  // set by recover(): where the dispatcher thread starts
  std::mutex lifecycleMu;

  // Recovery (open()): normal or abnormal (abort file present). Leaves CQ/index complete.
  Result<void> recover(bool abnormal);
  int64_t afterLastIndexed() const;  // recovery: where the index goes on from
  int64_t indexGapStart();            // recovery: a lost index file in the middle (INT64_MAX: none)
  int64_t recordEnd(int64_t phy) const;

  // MessageStore::truncateTo (lifecycleMu held; store_truncate.cpp).
  Result<TruncateSummary> truncate(int64_t offset);
  // The commit log's next-queue-offset table: each consume queue's end, then the records in
  // [dispatched, end) not in their queue yet (a stalled dispatch) own their offsets too.
  void rebuildQueueOffsets(int64_t dispatched, int64_t end);

  bool writeable() const;
  // Commit log append result: wakes the dispatcher, or on a full disk flags it (diskFull) and
  // asks for an early retention pass.
  AppendResult checked(AppendResult r);

  // Maintenance thread.
  void requestCleanup();      // retention pass now (from any thread)
  // Java's "CL: %5.2f CQ: %5.2f INDEX: %5.2f" (used ratios) as of the last checkDisk(): no
  // syscall, so a send refused on a network thread formats it without blocking.
  std::string diskUtil() const;
  void startMaintenance();
  void stopMaintenance();
  // + index + checkpoint. leastPages > 0 (the periodic flush between thorough ones): a queue
  // file is synced once that many pages are dirty, and the checkpoint keeps the consume-queue time
  // of the last thorough flush (only a flush of everything may advance it).
  void flushConsumeQueues(int leastPages = 0);
  void checkDisk();           // updates diskFull
  void retention(bool force);
  double diskUsage();
  void setDiskProbe(std::function<double()> probe);
  // cfg.deleteWhen, changed at run time by MessageStore::applyRuntimeConfig (under deleteWhenMu_).
  std::string liveDeleteWhen() const;
  void setDeleteWhen(const std::string& when);

 private:
  void maintenanceLoop();
  bool isTimeToDelete() const;
  std::mutex probeMu_;
  std::function<double()> diskProbe_;
  mutable std::mutex deleteWhenMu_;
  std::mutex maintMu_;
  std::condition_variable maintCv_;
  bool maintStop_ = false;
  // Sleeps `d` on the maintenance thread; false when the store stops meanwhile.
  bool pauseMaintenance(std::chrono::milliseconds d);
  std::atomic<double> usedCL_{-1}, usedCQ_{-1}, usedIndex_{-1};  // set by checkDisk()
  bool cleanupRequested_ = false;  // maintMu_
  bool checkpointFailing_ = false; // maintenance thread: log a failing checkpoint write once
  std::atomic<int64_t> logicsCovered_{0};  // consume-queue time the last thorough flush covered
  std::thread maintThread_;
};

}  // namespace rmq::store
