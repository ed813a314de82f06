#pragma once
// StoreConfig: the store keys of Java's MessageStoreConfig, same names and defaults (PROTOCOL.md
// §6, §8.1). Both spellings of the 4.4/4.9 file-size keys are accepted (visit() aliases); both
// sizes are BYTES (the consume-queue size is rounded up to a multiple of 20 by cqFileSize()).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/field_visitor.h"

namespace rmq::store {

struct StoreConfig {
  std::string storePathRootDir;    // empty = $HOME/store (resolved by rootDir())
  std::string storePathCommitLog;  // empty = <root>/commitlog
  // Not MessageStoreConfig fields in Java 4.x (it derives them from the root), but circulating
  // broker.conf examples set them and users expect them to hold: honoured as given.
  std::string storePathConsumeQueue;  // empty = <root>/consumequeue
  std::string storePathIndex;         // empty = <root>/index
  std::string storeCheckpoint;        // empty = <root>/checkpoint
  std::string abortFile;              // empty = <root>/abort
  int32_t mappedFileSizeCommitLog = 1024 * 1024 * 1024;
  int32_t mappedFileSizeConsumeQueue = 300000 * 20;
  std::string flushDiskType = "ASYNC_FLUSH";  // ASYNC_FLUSH | SYNC_FLUSH
  int32_t syncFlushTimeout = 5000;            // ms a SYNC_FLUSH send waits for its fsync
  int32_t flushIntervalCommitLog = 500;       // ms between ASYNC_FLUSH flushes
  int32_t flushCommitLogLeastPages = 4;       // flush only when this many 4 KiB pages are dirty...
  int32_t flushCommitLogThoroughInterval = 10000;  // ...or this many ms passed
  int32_t flushIntervalConsumeQueue = 1000;
  int32_t flushConsumeQueueLeastPages = 2;
  int32_t flushConsumeQueueThoroughInterval = 60000;
  int32_t fileReservedTime = 72;        // hours a commit log file is kept
  std::string deleteWhen = "04";        // hours of the day ("04;16") when expired files go
  int32_t diskMaxUsedSpaceRatio = 75;   // percent: above it, delete expired-or-not at once
  int32_t diskSpaceCleanForciblyRatio = 85;
  int32_t diskSpaceWarningLevelRatio = 90;  // percent: above it, appends fail until space frees
  int32_t cleanResourceInterval = 10000;    // ms between retention checks
  int32_t deleteCommitLogFilesInterval = 100;  // ms pause between two deleted files
  bool cleanFileForciblyEnable = true;
  bool offsetCheckInSlave = false;  // a slave corrects out-of-range pull offsets (OFFSET_MOVED) as a master  // above diskSpaceCleanForciblyRatio, delete files not yet expired
  int32_t maxMessageSize = 4 * 1024 * 1024;
  // An append holding the commit-log lock longer than this (a stalled disk) makes the store "page
  // cache busy": sends are refused at once with Java's busy answers (MessageStore::isOSPageCacheBusy).
  int32_t osPageCacheBusyTimeOutMills = 1000;
  bool checkCRCOnRecover = true;
  int32_t maxHashSlotNum = 5000000;
  int32_t maxIndexNum = 20000000;
  int32_t maxMsgsNumBatch = 64;       // cap of a key query
  int32_t defaultQueryMaxNum = 32;
  bool messageIndexEnable = true;
  bool messageIndexSafe = false;
  std::string brokerRole = "ASYNC_MASTER";  // ASYNC_MASTER | SYNC_MASTER | SLAVE
  std::string messageDelayLevel = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h";
  int32_t maxTransferBytesOnMessageInMemory = 256 * 1024;
  int32_t maxTransferCountOnMessageInMemory = 32;
  int32_t maxTransferBytesOnMessageInDisk = 64 * 1024;
  int32_t maxTransferCountOnMessageInDisk = 8;
  int32_t accessMessageInMemoryMaxRatio = 40;
  bool warmMapedFileEnable = false;  // pre-touch new files' pages (Java's warm-up)
  int64_t flushDelayOffsetInterval = 10000;  // ms between delayOffset.json writes

  // Timer messages (RocketMQ 5.x MessageStoreConfig names; store/timer_rewrite.h, broker
  // delivery/timer_message_service.h).
  bool timerWheelEnable = true;            // park TIMER_* messages (false: refuse them, as 5.x)
  int32_t timerMaxDelaySec = 3 * 24 * 3600;  // farther delivery times are refused
  int32_t timerPrecisionMs = 100;          // due within this: stored as a normal message at once (5.x: 1000)
  bool timerInterceptDelayLevel = false;   // DELAY levels go through the timer instead of SCHEDULE_TOPIC
  int32_t timerMaxDeliverRate = 20000;     // messages/s the master re-puts at most (a backlog after a restart)
  // A timer further away than this many slots of timerPrecisionMs is re-parked ("rolled") closer
  // to its time before retention can delete its body (5.x's key; its 172,800 slots of 1 s are
  // the same 2 days). Keep the window below fileReservedTime.
  int32_t timerRollWindowSlot = 1728000;
  int64_t timerRollWindowMs() const { return int64_t{timerRollWindowSlot} * std::max(1, timerPrecisionMs); }

  // HA replication (PROTOCOL.md §9; Java's MessageStoreConfig ha* keys, same defaults).
  int32_t haListenPort = 0;                     // 0 = listenPort + 1 (what Java's BrokerStartup forces)
  int32_t haSendHeartbeatInterval = 5000;       // ms: idle master heartbeat frame / slave offset report
  int32_t haHousekeepingInterval = 20000;       // ms of silence after which an HA connection is dropped
  int32_t haTransferBatchSize = 32 * 1024;      // bytes: largest body of one master -> slave frame
  std::string haMasterAddress;                  // slave: fixed master HA "ip:port" (else learned)
  int32_t haSlaveFallbehindMax = 256 * 1024 * 1024;  // SYNC_MASTER: SLAVE_NOT_AVAILABLE beyond this lag

  void visit(config::FieldVisitor& v);

  // Derived values.
  std::string rootDir() const;
  std::string commitLogDir() const;
  std::string consumeQueueDir() const;
  std::string indexDir() const;
  std::string configDir() const { return rootDir() + "/config"; }
  std::string checkpointPath() const;
  std::string abortPath() const;
  std::string lockPath() const { return rootDir() + "/lock"; }
  std::string epochFilePath() const { return rootDir() + "/epochFile"; }  // store/epoch_file.h
  int64_t cqFileSize() const;  // mappedFileSizeConsumeQueue rounded up to a multiple of 20
  bool syncFlush() const { return flushDiskType == "SYNC_FLUSH"; }
  bool isSlave() const { return brokerRole == "SLAVE"; }
  bool isSyncMaster() const { return brokerRole == "SYNC_MASTER"; }
  // messageDelayLevel parsed: element i = delay of level i+1 in ms (units ms, s, m, h, d).
  Result<std::vector<int64_t>> delayLevelMillis() const;
};

}  // namespace rmq::store
