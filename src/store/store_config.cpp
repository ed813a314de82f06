#include "store/store_config.h"

#include <charconv>
#include <cstdlib>

#include "common/response_code.h"

namespace rmq::store {

void StoreConfig::visit(config::FieldVisitor& v) {
  using config::FieldInfo;
  v.field({"storePathRootDir", "Store root directory (default $HOME/store)"}, storePathRootDir);
  v.field({"storePathCommitLog", "Commit log directory (default <root>/commitlog)"}, storePathCommitLog);
  v.field({"storePathConsumeQueue", "Consume queue directory (default <root>/consumequeue)"}, storePathConsumeQueue);
  v.field({"storePathIndex", "Index file directory (default <root>/index)"}, storePathIndex);
  v.field({"storeCheckpoint", "Checkpoint file (default <root>/checkpoint)"}, storeCheckpoint);
  v.field({"abortFile", "Crash marker file, present while the store runs (default <root>/abort)"}, abortFile);
  v.field({"mappedFileSizeCommitLog", "Commit log file size in bytes", 4096, 1 << 30,
           {}, {"mapedFileSizeCommitLog"}}, mappedFileSizeCommitLog);
  v.field({"mappedFileSizeConsumeQueue", "Consume queue file size in bytes (rounded up to 20)", 20,
           1 << 30, {}, {"mapedFileSizeConsumeQueue"}}, mappedFileSizeConsumeQueue);
  v.field({"flushDiskType", "ASYNC_FLUSH or SYNC_FLUSH (group commit)", std::nullopt, std::nullopt,
           {"ASYNC_FLUSH", "SYNC_FLUSH"}}, flushDiskType);
  v.field({"syncFlushTimeout", "ms a SYNC_FLUSH send waits before FLUSH_DISK_TIMEOUT", 1, 600000},
          syncFlushTimeout);
  v.field({"flushIntervalCommitLog", "ms between ASYNC_FLUSH commit log flushes", 1, 600000},
          flushIntervalCommitLog);
  v.field({"flushCommitLogLeastPages", "Dirty 4 KiB pages before an async flush", 0, 1 << 20},
          flushCommitLogLeastPages);
  v.field({"flushCommitLogThoroughInterval", "ms after which an async flush ignores least pages", 0,
           3600000}, flushCommitLogThoroughInterval);
  v.field({"flushIntervalConsumeQueue", "ms between consume queue flushes", 1, 600000}, flushIntervalConsumeQueue);
  v.field({"flushConsumeQueueLeastPages", "Dirty pages before a consume queue flush", 0, 1 << 20},
          flushConsumeQueueLeastPages);
  v.field({"flushConsumeQueueThoroughInterval", "ms after which a CQ flush ignores least pages", 0,
           3600000}, flushConsumeQueueThoroughInterval);
  v.field({"fileReservedTime", "Hours a commit log file is kept", 0, 24 * 365 * 10}, fileReservedTime);
  v.field({"deleteWhen", "Hours of day (\"04\" or \"04;16\") when expired files are deleted"}, deleteWhen);
  v.field({.name = "diskMaxUsedSpaceRatio", .description = "Disk use percent above which files are deleted at once",
           .min = 10, .max = 95, .clamp = true},
          diskMaxUsedSpaceRatio);
  v.field({"diskSpaceCleanForciblyRatio", "Disk use percent forcing deletion", 10, 99},
          diskSpaceCleanForciblyRatio);
  v.field({"diskSpaceWarningLevelRatio", "Disk use percent above which appends are refused", 10, 99},
          diskSpaceWarningLevelRatio);
  v.field({"cleanResourceInterval", "ms between retention checks", 10, 3600000}, cleanResourceInterval);
  v.field({"deleteCommitLogFilesInterval", "ms pause between two deleted commit log files", 0, 60000},
          deleteCommitLogFilesInterval);
  v.field({"osPageCacheBusyTimeOutMills",
           "ms an append may hold the commit-log lock before sends are refused as busy (SYSTEM_BUSY)", 1, 600000},
          osPageCacheBusyTimeOutMills);
  v.field({"offsetCheckInSlave", "A slave answers out-of-range pull offsets with OFFSET_MOVED and the corrected offset"},
          offsetCheckInSlave);
  v.field({"cleanFileForciblyEnable",
           "Above diskSpaceCleanForciblyRatio delete commit log files before fileReservedTime passes"},
          cleanFileForciblyEnable);
  v.field({"maxMessageSize", "Largest accepted message body in bytes", 1, 1 << 30}, maxMessageSize);
  v.field({"checkCRCOnRecover", "Verify body CRCs during recovery"}, checkCRCOnRecover);
  v.field({"maxHashSlotNum", "Index file hash slots", 1, 1 << 28}, maxHashSlotNum);
  v.field({"maxIndexNum", "Index file entries", 2, 1 << 28}, maxIndexNum);
  v.field({"maxMsgsNumBatch", "Largest result of a key query", 1, 1 << 16}, maxMsgsNumBatch);
  v.field({"defaultQueryMaxNum", "maxNum of unique-key queries", 1, 1 << 16}, defaultQueryMaxNum);
  v.field({"messageIndexEnable", "Build the key index"}, messageIndexEnable);
  v.field({"messageIndexSafe", "Recovery also trusts only flushed index files"}, messageIndexSafe);
  v.field({"brokerRole", "ASYNC_MASTER, SYNC_MASTER or SLAVE", std::nullopt, std::nullopt,
           {"ASYNC_MASTER", "SYNC_MASTER", "SLAVE"}}, brokerRole);
  v.field({"messageDelayLevel", "Delay levels, e.g. \"1s 5s 10s 30s 1m ...\""}, messageDelayLevel);
  v.field({"maxTransferBytesOnMessageInMemory", "Pull batch byte cap (hot data)", 1, 1 << 30},
          maxTransferBytesOnMessageInMemory);
  v.field({"maxTransferCountOnMessageInMemory", "Pull batch count cap (hot data)", 1, 1 << 20},
          maxTransferCountOnMessageInMemory);
  v.field({"maxTransferBytesOnMessageInDisk", "Pull batch byte cap (cold data)", 1, 1 << 30},
          maxTransferBytesOnMessageInDisk);
  v.field({"maxTransferCountOnMessageInDisk", "Pull batch count cap (cold data)", 1, 1 << 20},
          maxTransferCountOnMessageInDisk);
  v.field({"accessMessageInMemoryMaxRatio", "Percent of RAM counted as hot data", 0, 100},
          accessMessageInMemoryMaxRatio);
  v.field({"warmMapedFileEnable", "Write every page of a new mapped file and mlock it (Java's warm-up)"},
          warmMapedFileEnable);
  v.field({"haListenPort", "Master HA port for slaves (0 = listenPort + 1)", 0, 65535}, haListenPort);
  v.field({"haSendHeartbeatInterval", "ms between HA heartbeats / slave offset reports", 1, 3600000},
          haSendHeartbeatInterval);
  v.field({"haHousekeepingInterval", "ms of HA silence before the connection is dropped", 1, 3600000},
          haHousekeepingInterval);
  v.field({"haTransferBatchSize", "Largest body of one HA transfer frame in bytes", 1, 64 << 20},
          haTransferBatchSize);
  v.field({"haMasterAddress", "Slave: master HA address ip:port (empty = learned from the name server)"},
          haMasterAddress);
  v.field({"haSlaveFallbehindMax", "SYNC_MASTER: bytes a slave may lag before SLAVE_NOT_AVAILABLE", 0,
           INT32_MAX}, haSlaveFallbehindMax);
  v.field({"flushDelayOffsetInterval", "ms between delayOffset.json writes", 100, 3600000}, flushDelayOffsetInterval);
  v.field({"timerWheelEnable", "Accept timer messages (TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS)"},
          timerWheelEnable);
  v.field({"timerMaxDelaySec", "Farthest accepted timer delivery time, seconds from now", 1, INT32_MAX},
          timerMaxDelaySec);
  v.field({"timerPrecisionMs", "A timer message due within this many ms is stored at once", 0, 60000},
          timerPrecisionMs);
  v.field({"timerInterceptDelayLevel", "DELAY levels are delivered by the timer"}, timerInterceptDelayLevel);
  v.field({"timerMaxDeliverRate", "Timer messages delivered per second at most (backlog)", 1, 10000000},
          timerMaxDeliverRate);
  v.field({"timerRollWindowSlot", "A timer farther than this many timerPrecisionMs slots is re-parked closer to its time",
           2, INT32_MAX}, timerRollWindowSlot);
}

namespace {
std::string orDefault(const std::string& configured, std::string fallback) {
  return configured.empty() ? std::move(fallback) : configured;
}
}  // namespace

std::string StoreConfig::rootDir() const {
  if (!storePathRootDir.empty()) return storePathRootDir;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : ".") + "/store";
}

std::string StoreConfig::commitLogDir() const { return orDefault(storePathCommitLog, rootDir() + "/commitlog"); }

std::string StoreConfig::consumeQueueDir() const { return orDefault(storePathConsumeQueue, rootDir() + "/consumequeue"); }
std::string StoreConfig::indexDir() const { return orDefault(storePathIndex, rootDir() + "/index"); }
std::string StoreConfig::checkpointPath() const { return orDefault(storeCheckpoint, rootDir() + "/checkpoint"); }
std::string StoreConfig::abortPath() const { return orDefault(abortFile, rootDir() + "/abort"); }

int64_t StoreConfig::cqFileSize() const {
  int64_t s = mappedFileSizeConsumeQueue < 20 ? 20 : mappedFileSizeConsumeQueue;
  return (s + 19) / 20 * 20;
}

Result<std::vector<int64_t>> StoreConfig::delayLevelMillis() const {
  std::vector<int64_t> out;
  std::string_view s = messageDelayLevel;
  while (!s.empty()) {
    auto sp = s.find(' ');
    std::string_view item = s.substr(0, sp);
    s = sp == std::string_view::npos ? std::string_view() : s.substr(sp + 1);
    if (item.empty()) continue;
    int64_t n = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
    std::string_view unit(p, item.data() + item.size() - p);
    int64_t mult = unit == "ms" ? 1 : unit == "s" ? 1000 : unit == "m" ? 60000 : unit == "h" ? 3600000
                 : unit == "d" ? 86400000 : 0;
    if (ec != std::errc() || mult == 0 || n < 0)
      return makeError(ResponseCode::SYSTEM_ERROR, "bad messageDelayLevel item '" + std::string(item) + "'");
    out.push_back(n * mult);
  }
  return out;
}

}  // namespace rmq::store
