// StoreEngine::recover: PROTOCOL.md §6.6. Commit log validation (size, magic, physical offset,
// CRC), torn-tail truncation, then CQ/index rebuild through the Dispatcher (one code path).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>

#include "common/bytes.h"
#include "common/log.h"
#include "store/store_engine.h"

namespace rmq::store {

namespace {
// Store time of a file's first record, or -1 when it does not start with a valid magic.
int64_t firstRecordStoreTime(const MappedFile& f) {
  RecordView v;
  if (parseRecord(f.data(), static_cast<size_t>(f.size()), v, false) != RecordParse::Ok) return -1;
  return v.storeTimestamp;
}
}  // namespace

// Where indexing must go on from: after the newest record an index file holds (its keys are
// there), or the commit log's start when there is no index file.
int64_t StoreEngine::afterLastIndexed() const {
  int64_t last = index.lastIndexedPhy();
  int64_t end = last < 0 ? -1 : recordEnd(last);
  return end < 0 ? commitLog.minOffset() : end;
}

// Index files follow each other: between one file's last record and the next file's first, the
// commit log holds no record with keys. If it does, a file in between was lost: the files after
// the gap are dropped and everything from the gap on is indexed again. Cheap when intact (the
// scan stops at the first keyed record, normally the next file's first one).
int64_t StoreEngine::indexGapStart() {
  auto spans = index.spans();
  for (size_t i = 1; i < spans.size(); ++i) {
    int64_t from = recordEnd(spans[i - 1].second);
    int64_t to = spans[i].first;
    if (from < 0 || from >= to) continue;
    int64_t keyed = -1;
    dispatcher.forEachRecord(from, to, [&](const RecordView& r) {
      if (IndexService::hasKeys(r)) keyed = r.physicalOffset;
      return keyed < 0;
    });
    if (keyed < 0) continue;
    index.dropFrom(i, fmt::format("an index file before it is missing (keys of commit log offset {} are in none)", keyed));
    return from;
  }
  return INT64_MAX;
}

void StoreEngine::rebuildQueueOffsets(int64_t dispatched, int64_t end) {
  commitLog.clearQueueOffsets();
  for (auto& cq : cqs.all()) commitLog.setQueueOffset(cq->topic(), cq->queueId(), cq->maxOffset());
  // Records not in their consume queue yet (full disk) still own their queue offsets.
  dispatcher.forEachRecord(dispatched, end, [&](const RecordView& r) {
    int32_t tt = sysflag::transactionType(r.sysFlag);
    if (tt == sysflag::TRANSACTION_NOT_TYPE || tt == sysflag::TRANSACTION_COMMIT_TYPE)
      commitLog.setQueueOffset(r.topic, r.queueId, r.queueOffset + 1);
    return true;
  });
}

// End of the record at `phy` (-1 when it cannot be read).
int64_t StoreEngine::recordEnd(int64_t phy) const {
  auto head = commitLog.read(phy, 4);
  if (head.bytes.size() < 4) return -1;
  return phy + static_cast<int32_t>(loadBE32(head.bytes.data()));
}

Result<void> StoreEngine::recover(bool abnormal) {
  auto t0 = std::chrono::steady_clock::now();
  auto cqList = cqs.all();
  int64_t rebuildFrom = INT64_MAX;  // damaged consume queues / missing index files: re-dispatch from here
  for (auto& cq : cqList)
    if (int64_t from = cq->recover(); from >= 0) rebuildFrom = std::min(rebuildFrom, from);
  int64_t cqMaxPhy = -1;
  for (auto& cq : cqList) cqMaxPhy = std::max(cqMaxPhy, cq->maxPhysicOffset());

  auto files = commitLog.files().snapshot();
  if (files.empty()) {
    for (auto& cq : cqList) cq->truncateDirty(0);  // no commit log: no queue content survives
    log::info("store recovery: empty commit log");
    dispatchedEnd = 0;
    return {};
  }
  size_t startIdx = files.size() > 3 ? files.size() - 3 : 0;
  int64_t dispatchFrom;
  int64_t lastTs = 0;
  auto noteTime = [&](const RecordView& r) { lastTs = r.storeTimestamp; };
  if (!abnormal) {
    int64_t end = commitLog.scanValid(startIdx, cfg.checkCRCOnRecover, noteTime);
    commitLog.setEnd(end);
    dispatchFrom = std::max(cqMaxPhy, commitLog.minOffset());
  } else {
    // Newest file whose first record was stored before the checkpoint says all was durable.
    int64_t minTs = checkpoint.minTimestamp(cfg.messageIndexEnable && cfg.messageIndexSafe);
    startIdx = 0;
    for (size_t i = files.size(); i > 0; --i) {
      int64_t ts = firstRecordStoreTime(*files[i - 1]);
      if (ts > 0 && ts <= minTs) {
        startIdx = i - 1;
        break;
      }
    }
    // Unlike Java, also go back far enough to re-index what the deleted index files covered.
    while (startIdx > 0 && files[startIdx]->fromOffset() > index.rebuildFrom()) --startIdx;
    log::warn("store recovery: abnormal exit, re-validating from file {}",
              MappedFile::fileName(files[startIdx]->fromOffset()));
    // One pass: each record is re-dispatched right after it validated (CQ/index guards skip
    // entries that exist); CQ units beyond the valid end are cut below.
    int64_t stalledAt = -1;  // first record that could not be dispatched (full disk): redo from there
    int64_t end = commitLog.scanValid(startIdx, cfg.checkCRCOnRecover, [&](const RecordView& r) {
      lastTs = r.storeTimestamp;
      if (stalledAt < 0 && !dispatcher.dispatchRecord(r, false)) stalledAt = r.physicalOffset;
    });
    commitLog.setEnd(end);
    dispatchFrom = stalledAt >= 0 ? stalledAt : end;
  }
  int64_t end = commitLog.maxOffset();
  for (auto& cq : cqs.all())
    if (cq->maxPhysicOffset() > end) cq->truncateDirty(end);
  // Index files of records cut off are stale; the newest index file lost (or all of them): index
  // what came after the last one kept.
  rebuildFrom = std::min(rebuildFrom, index.dropBeyond(end));
  if (cfg.messageIndexEnable) rebuildFrom = std::min({rebuildFrom, indexGapStart(), afterLastIndexed()});
  if (rebuildFrom < dispatchFrom) {
    dispatchFrom = std::max(rebuildFrom, commitLog.minOffset());
    log::info("store recovery: rebuilding consume queue / index entries from commit log offset {}", dispatchFrom);
  }
  if (dispatchFrom > end) dispatchFrom = end;
  int64_t reached = dispatcher.dispatchRange(dispatchFrom, end, false);
  if (reached != end) log::error("store recovery: dispatch stopped at {} before end {}", reached, end);
  dispatchedEnd = dispatcher.stalled() ? reached : end;  // the dispatcher thread goes on from here

  int64_t minPhy = commitLog.minOffset();
  for (auto& cq : cqs.all()) cq->correctMinOffset(minPhy);
  rebuildQueueOffsets(dispatchedEnd, end);
  if (lastTs > 0) commitLog.setLastStoreTimestamp(lastTs);  // newest record we trust
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  log::info("store recovery ({}): commit log [{}, {}), {} consume queues, {:.3f} s",
            abnormal ? "abnormal" : "normal", minPhy, end, cqs.all().size(), secs);
  return {};
}

}  // namespace rmq::store
