// CommitLog run-time truncation: the record-boundary walk and the cut (MessageStore::truncateTo).
#include <algorithm>

#include "common/bytes.h"
#include "common/response_code.h"
#include "store/commit_log.h"

namespace rmq::store {

namespace {
// The start of the record or blank marker at `pos` of `f` is sound: its next position, or -1.
// Only the header is read (size, magic, the record's own physical offset): the walk touches one
// cache line per record, not the record.
int64_t nextPosition(const MappedFile& f, int64_t pos, int64_t limit) {
  if (pos + 8 > limit) return -1;
  const char* p = f.data() + pos;
  auto size = static_cast<int32_t>(loadBE32(p));
  auto magic = static_cast<int32_t>(loadBE32(p + 4));
  if (magic == kBlankMagic) return f.size();
  if (magic != kMessageMagicV1 && magic != kMessageMagicV2) return -1;
  if (size < 36 || pos + size > limit) return -1;  // a partial record (a slave's replicated tail)
  if (static_cast<int64_t>(loadBE64(p + 28)) != f.fromOffset() + pos) return -1;
  return pos + size;
}
}  // namespace

CommitLog::Boundary CommitLog::boundaryAtOrBelow(int64_t offset) const {
  offset = std::min(offset, maxOffset());
  if (offset < minOffset()) return {};
  auto f = files_.findByOffset(offset);
  if (!f) f = files_.last();  // offset is the end of the last (full) file, or the log is empty
  if (!f) return {offset, -1};
  const int64_t target = offset - f->fromOffset();
  const int64_t limit = std::min(f->wrote(), f->dataEnd());  // never read a hole through the mapping
  Boundary b;
  int64_t pos = 0;
  while (pos < target) {
    int64_t next = nextPosition(*f, pos, limit);
    if (next < 0 || next > target) break;
    if (static_cast<int32_t>(loadBE32(f->data() + pos + 4)) != kBlankMagic) b.lastRecord = f->fromOffset() + pos;
    pos = next;
  }
  b.boundary = f->fromOffset() + pos;
  return b;
}

Result<void> CommitLog::truncateTo(int64_t offset) {
  std::lock_guard lock(mu_);
  int64_t end = maxOffset();
  // Everything below the cut becomes durable first: setEnd marks the files it keeps flushed.
  if (flush() < end)
    return makeError(ResponseCode::SYSTEM_ERROR,
                     "commit log flush failed before the cut at " + std::to_string(offset) + ": nothing cut");
  files_.setEnd(offset, true);
  current_.reset();
  flushed_.store(offset);
  writtenEnd_.store(files_.maxOffset(), std::memory_order_release);
  return {};
}

}  // namespace rmq::store
