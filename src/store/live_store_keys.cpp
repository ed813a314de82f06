#include "store/live_store_keys.h"

namespace rmq::store {

namespace {
template <class T>
void storeLive(T& live, T updated) {
  std::atomic_ref<T>(live).store(updated, std::memory_order_relaxed);
}

struct LiveInt {
  std::string_view key;
  int32_t StoreConfig::*field;
};
constexpr LiveInt kLiveInts[] = {
    {"syncFlushTimeout", &StoreConfig::syncFlushTimeout},
    {"flushIntervalCommitLog", &StoreConfig::flushIntervalCommitLog},
    {"flushCommitLogLeastPages", &StoreConfig::flushCommitLogLeastPages},
    {"flushCommitLogThoroughInterval", &StoreConfig::flushCommitLogThoroughInterval},
    {"flushIntervalConsumeQueue", &StoreConfig::flushIntervalConsumeQueue},
    {"cleanResourceInterval", &StoreConfig::cleanResourceInterval},
    {"fileReservedTime", &StoreConfig::fileReservedTime},
    {"diskMaxUsedSpaceRatio", &StoreConfig::diskMaxUsedSpaceRatio},
    {"diskSpaceCleanForciblyRatio", &StoreConfig::diskSpaceCleanForciblyRatio},
    {"diskSpaceWarningLevelRatio", &StoreConfig::diskSpaceWarningLevelRatio},
    {"maxMessageSize", &StoreConfig::maxMessageSize},
    {"osPageCacheBusyTimeOutMills", &StoreConfig::osPageCacheBusyTimeOutMills},
    {"maxMsgsNumBatch", &StoreConfig::maxMsgsNumBatch},
    {"maxTransferBytesOnMessageInMemory", &StoreConfig::maxTransferBytesOnMessageInMemory},
    {"maxTransferCountOnMessageInMemory", &StoreConfig::maxTransferCountOnMessageInMemory},
    {"maxTransferBytesOnMessageInDisk", &StoreConfig::maxTransferBytesOnMessageInDisk},
    {"maxTransferCountOnMessageInDisk", &StoreConfig::maxTransferCountOnMessageInDisk},
    {"accessMessageInMemoryMaxRatio", &StoreConfig::accessMessageInMemoryMaxRatio},
    {"haSlaveFallbehindMax", &StoreConfig::haSlaveFallbehindMax},
    {"deleteCommitLogFilesInterval", &StoreConfig::deleteCommitLogFilesInterval},
    {"flushConsumeQueueLeastPages", &StoreConfig::flushConsumeQueueLeastPages},
    {"flushConsumeQueueThoroughInterval", &StoreConfig::flushConsumeQueueThoroughInterval},
};
}  // namespace

bool isLiveStoreKey(std::string_view key) {
  if (key == "messageIndexEnable" || key == "deleteWhen" || key == "cleanFileForciblyEnable") return true;
  for (const auto& k : kLiveInts)
    if (k.key == key) return true;
  return false;
}

void applyLiveKeys(StoreConfig& live, const StoreConfig& updated) {
  for (const auto& k : kLiveInts) storeLive(live.*(k.field), updated.*(k.field));
  storeLive(live.messageIndexEnable, updated.messageIndexEnable);
  storeLive(live.cleanFileForciblyEnable, updated.cleanFileForciblyEnable);
}

}  // namespace rmq::store
