#pragma once
// StoreEngine: the components behind MessageStore (private to src/store). Owns the maintenance
// thread (consume-queue/index flush + checkpoint, disk check, retention).
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "store/allocate_service.h"
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

  std::atomic<bool> opened{false};
  std::atomic<bool> running{false};
  std::atomic<bool> shutDown{false};
  std::atomic<bool> diskFull{false};
  std::atomic<bool> slaveAvailable{false};
  std::function<void()> appendListener;  // set before start (MessageStore::setAppendListener)
  int64_t hotDataBytes = 0;  // RAM × accessMessageInMemoryMaxRatio
  std::mutex lifecycleMu;

  // Recovery (open()): normal or abnormal (abort file present). Leaves CQ/index complete.
  Result<void> recover(bool abnormal);

  // Maintenance thread.
  void startMaintenance();
  void stopMaintenance();
  void flushConsumeQueues();  // + index + checkpoint
  void checkDisk();           // updates diskFull
  void retention(bool force);
  double diskUsage();
  void setDiskProbe(std::function<double()> probe);

 private:
  void maintenanceLoop();
  bool isTimeToDelete() const;
  std::mutex probeMu_;
  std::function<double()> diskProbe_;
  std::mutex maintMu_;
  std::condition_variable maintCv_;
  bool maintStop_ = false;
  std::thread maintThread_;
};

}  // namespace rmq::store
