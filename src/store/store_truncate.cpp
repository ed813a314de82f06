// MessageStore::truncateTo: the run-time commit log cut of automatic failover (README "Truncation").
#include <fmt/format.h>

#include <algorithm>

#include "common/log.h"
#include "common/response_code.h"
#include "store/message_store.h"
#include "store/store_engine.h"

namespace rmq::store {

namespace {
Error refused(const std::string& why) { return makeError(ResponseCode::SYSTEM_ERROR, "truncate: " + why); }

// Store time of the last whole record below `b.boundary` (0: none): the checkpoint's physic time.
int64_t lastKeptStoreTime(const CommitLog& log, const CommitLog::Boundary& b) {
  int64_t rec = b.lastRecord;
  if (rec < 0 && b.boundary > log.minOffset()) rec = log.boundaryAtOrBelow(b.boundary - 1).lastRecord;  // previous file
  if (rec < 0) return 0;
  auto v = log.readRecord(rec);
  return v ? std::max<int64_t>(0, log.storeTimeAt(rec, static_cast<int32_t>(v.bytes.size()))) : 0;
}
}  // namespace

Result<TruncateSummary> StoreEngine::truncate(int64_t offset) {
  if (!opened || shutDown) return refused("the store is not open");
  const int64_t end = commitLog.maxOffset(), min = commitLog.minOffset();
  if (offset < min || offset > end)
    return refused(fmt::format("offset {} is outside the commit log [{}, {}]", offset, min, end));
  TruncateSummary s;
  s.offset = offset;
  s.bytesCut = end - offset;
  if (offset == end) return s;
  const auto boundary = commitLog.boundaryAtOrBelow(offset);
  if (boundary.boundary != offset)
    return refused(fmt::format("offset {} is not a record boundary (the last one at or below it is {})", offset,
                               boundary.boundary));

  // Park everything that writes: appends (refused meanwhile), the dispatcher, the maintenance
  // thread (CQ flush, retention); flushes wait inside cutAt.
  commitLog.setAppendsBlocked(true);
  const bool threads = running.load();
  if (threads) {
    stopMaintenance();
    dispatcher.stop();
  }
  auto resume = [&](int64_t dispatchFrom) {
    dispatchedEnd = dispatchFrom;
    if (threads) {
      dispatcher.start(dispatchFrom);
      startMaintenance();
    }
    commitLog.setAppendsBlocked(false);
  };
  // Kept records not in their queues yet go there first, so the queues are whole up to the cut.
  const int64_t wasDispatched = dispatcher.position();
  dispatcher.rewind(std::min(wasDispatched, offset));
  const int64_t dispatched = dispatcher.dispatchRange(dispatcher.position(), offset, threads);
  dispatcher.forEachRecord(offset, end, [&](const RecordView& r) {
    if (s.firstCutOffset < 0) s.firstCutOffset = r.physicalOffset;
    s.lastCutOffset = r.physicalOffset;
    ++s.messagesCut;
    return true;
  });
  const int64_t lastTs = lastKeptStoreTime(commitLog, boundary);

  Result<void> cut;
  flusher.cutAt(offset, [&] {
    cut = commitLog.truncateTo(offset);
    if (cut) commitLog.setLastStoreTimestamp(lastTs);  // before a flush can copy it to the checkpoint
    return cut.ok();
  });
  if (!cut) {  // nothing cut: the queues and the index are as they were
    dispatcher.rewind(std::max(wasDispatched, dispatched));
    resume(dispatcher.position());
    return refused(cut.error().message);
  }

  // Derived data follows the commit log (a crash in between is what recovery repairs anyway:
  // units and index files beyond the commit log end are cut at start).
  auto storeTimeOf = [&](int64_t phy) -> int64_t {
    auto v = commitLog.readRecord(phy);
    return v ? commitLog.storeTimeAt(phy, static_cast<int32_t>(v.bytes.size())) : -1;
  };
  index.truncateFrom(offset, storeTimeOf);
  for (auto& cq : cqs.all())
    if (cq->maxPhysicOffset() > offset) cq->truncateDirty(offset, true);
  allocator.discardPrepared();
  rebuildQueueOffsets(dispatched, offset);
  checkpoint.setPhysicMsgTimestamp(lastTs);
  checkpoint.setLogicsMsgTimestamp(std::min(checkpoint.logicsMsgTimestamp(), lastTs));
  checkpoint.setIndexMsgTimestamp(std::min(checkpoint.indexMsgTimestamp(), lastTs));
  flushConsumeQueues();  // every queue's units and the checkpoint durable
  resume(dispatched);
  log::warn("commit log truncated at {}: {} message(s) cut (first at {}, last at {}), {} bytes", offset, s.messagesCut,
            s.firstCutOffset, s.lastCutOffset, s.bytesCut);
  return s;
}

Result<TruncateSummary> MessageStore::truncateTo(int64_t offset) {
  std::lock_guard guard(engine_->lifecycleMu);
  return engine_->truncate(offset);
}

int64_t MessageStore::lastRecordBoundaryAtOrBelow(int64_t offset) const {
  return engine_->commitLog.boundaryAtOrBelow(offset).boundary;
}

}  // namespace rmq::store
