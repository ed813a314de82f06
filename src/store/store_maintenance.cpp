// StoreEngine maintenance thread: consume-queue/index flush + checkpoint, disk-space watch and
// retention (§6.7). Never on a network thread.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <utility>

#include "common/log.h"
#include "common/wall_clock.h"
#include "store/disk_space.h"
#include "store/store_engine.h"
#include "store/live_store_keys.h"

namespace rmq::store {

void StoreEngine::startMaintenance() {
  {
    std::lock_guard lock(maintMu_);
    maintStop_ = false;
  }
  maintThread_ = std::thread([this] { maintenanceLoop(); });
}

void StoreEngine::stopMaintenance() {
  {
    std::lock_guard lock(maintMu_);
    maintStop_ = true;
  }
  maintCv_.notify_all();
  if (maintThread_.joinable()) maintThread_.join();
}

void StoreEngine::maintenanceLoop() {
  using namespace std::chrono;
  // Re-read after each run: UPDATE_BROKER_CONFIG may change them (the running wait keeps its end).
  auto flushEvery = [&] { return milliseconds(liveRead(cfg.flushIntervalConsumeQueue)); };
  auto cleanEvery = [&] { return milliseconds(liveRead(cfg.cleanResourceInterval)); };
  auto nextFlush = steady_clock::now() + flushEvery(), nextClean = steady_clock::now() + cleanEvery();
  steady_clock::time_point lastThorough{};  // the first flush is thorough (Java: lastFlushTimestamp 0)
  std::unique_lock lock(maintMu_);
  while (!maintStop_) {
    maintCv_.wait_until(lock, std::min(nextFlush, nextClean), [&] { return maintStop_ || cleanupRequested_; });
    if (maintStop_) break;
    bool cleanupNow = std::exchange(cleanupRequested_, false);
    lock.unlock();
    auto now = steady_clock::now();
    if (cleanupNow) retention(false);  // a write hit a full disk: free space without waiting
    if (now >= nextFlush) {
      // Java's FlushConsumeQueueService: flushConsumeQueueLeastPages dirty pages, or everything
      // once flushConsumeQueueThoroughInterval passed.
      bool thorough = now - lastThorough >= milliseconds(liveRead(cfg.flushConsumeQueueThoroughInterval));
      if (thorough) lastThorough = now;
      flushConsumeQueues(thorough ? 0 : liveRead(cfg.flushConsumeQueueLeastPages));
      nextFlush = now + flushEvery();
    }
    if (now >= nextClean) {
      checkDisk();
      retention(false);
      nextClean = now + cleanEvery();
    }
    lock.lock();
  }
}

void StoreEngine::flushConsumeQueues(int leastPages) {
  if (leastPages <= 0) logicsCovered_.store(checkpoint.logicsMsgTimestamp());  // read first: covers what we flush below
  int64_t logicsTs = logicsCovered_.load();
  for (auto& cq : cqs.all()) cq->flush(leastPages);
  index.flushFullFiles(checkpoint);
  // The file gets what the flush covered; setting the in-memory value back instead would undo
  // what the dispatcher wrote meanwhile, and a clean shutdown would then write that stale time.
  auto written = checkpoint.flush(logicsTs);
  if (!written && !checkpointFailing_) log::error("{} (retrying every flush)", written.error().message);
  if (written && checkpointFailing_) log::info("checkpoint written again");
  checkpointFailing_ = !written;
}

void StoreEngine::setDiskProbe(std::function<double()> probe) {
  std::lock_guard lock(probeMu_);
  diskProbe_ = std::move(probe);
}

double StoreEngine::diskUsage() {
  {
    std::lock_guard lock(probeMu_);
    if (diskProbe_) return diskProbe_();
  }
  return diskUsedRatio(cfg.commitLogDir());
}

std::string StoreEngine::diskUtil() const {
  return fmt::format("CL: {:5.2f} CQ: {:5.2f} INDEX: {:5.2f}", usedCL_.load(std::memory_order_relaxed),
                     usedCQ_.load(std::memory_order_relaxed), usedIndex_.load(std::memory_order_relaxed));
}

void StoreEngine::requestCleanup() {
  {
    std::lock_guard lock(maintMu_);
    cleanupRequested_ = true;
  }
  maintCv_.notify_all();
}

void StoreEngine::checkDisk() {
  double used = diskUsage();
  usedCL_.store(used, std::memory_order_relaxed);
  usedCQ_.store(diskUsedRatio(cfg.consumeQueueDir()), std::memory_order_relaxed);
  usedIndex_.store(diskUsedRatio(cfg.indexDir()), std::memory_order_relaxed);
  const int32_t warningRatio = liveRead(cfg.diskSpaceWarningLevelRatio);
  bool full = used > warningRatio / 100.0;
  bool was = diskFull.exchange(full);
  if (full && !was) log::error("disk {:.1f}% used (> {}%): store refuses writes until space frees", used * 100,
                               warningRatio);
  if (!full && was) log::info("disk {:.1f}% used: store writeable again", used * 100);
}

std::string StoreEngine::liveDeleteWhen() const {
  std::lock_guard lock(deleteWhenMu_);
  return cfg.deleteWhen;
}

void StoreEngine::setDeleteWhen(const std::string& when) {
  std::lock_guard lock(deleteWhenMu_);
  cfg.deleteWhen = when;
}

bool StoreEngine::isTimeToDelete() const {
  time_t secs = time(nullptr);
  struct tm t {};
  localtime_r(&secs, &t);
  std::string deleteWhen = liveDeleteWhen();
  std::string_view when = deleteWhen;
  while (!when.empty()) {
    auto sep = when.find(';');
    auto item = when.substr(0, sep);
    if (!item.empty() && std::atoi(std::string(item).c_str()) == t.tm_hour) return true;
    if (sep == std::string_view::npos) break;
    when.remove_prefix(sep + 1);
  }
  return false;
}

bool StoreEngine::pauseMaintenance(std::chrono::milliseconds d) {
  std::unique_lock lock(maintMu_);
  return !maintCv_.wait_for(lock, d, [&] { return maintStop_; });
}

void StoreEngine::retention(bool force) {
  double used = diskUsage();
  bool spaceToDelete = used > liveRead(cfg.diskMaxUsedSpaceRatio) / 100.0;
  // Java's cleanAtOnce: above diskSpaceCleanForciblyRatio files go whatever their age, unless
  // cleanFileForciblyEnable is off.
  bool cleanImmediately = liveRead(cfg.cleanFileForciblyEnable) && used > liveRead(cfg.diskSpaceCleanForciblyRatio) / 100.0;
  if (!(force || spaceToDelete || isTimeToDelete())) return;
  int64_t expireBefore = nowMillis() - int64_t(liveRead(cfg.fileReservedTime)) * 3600 * 1000;
  int64_t dispatched = dispatcher.position();
  auto expired = [&](const MappedFile& f) {
    if (f.endOffset() > dispatched) return false;  // never drop bytes not yet in a queue
    return cleanImmediately || f.lastModifiedMs() <= expireBefore;
  };
  // At most 10 files a run, one at a time with deleteCommitLogFilesInterval between them while
  // another file could follow (Java's deleteExpiredFileByTime): a burst of unlinks of 1 GiB files
  // stalls the disk for the appends.
  const auto pause = std::chrono::milliseconds(liveRead(cfg.deleteCommitLogFilesInterval));
  int deleted = 0;
  while (deleted < 10 && commitLog.files().deleteFirstWhile(expired, 1) == 1) {
    ++deleted;
    if (deleted < 10 && pause.count() > 0 && commitLog.files().count() > 1 && !pauseMaintenance(pause)) break;
  }
  if (deleted == 0) return;
  int64_t minPhy = commitLog.minOffset();
  log::info("retention: deleted {} commit log file(s) (disk {:.1f}% used), min offset now {}", deleted,
            used * 100, minPhy);
  for (auto& cq : cqs.all()) cq->deleteExpiredFiles(minPhy);
  index.deleteFilesBelow(minPhy);
  checkDisk();
}

}  // namespace rmq::store
