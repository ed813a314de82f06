// CommitLog reads, flush and recovery scan (the append side is in commit_log.cpp).
#include <algorithm>
#include <chrono>
#include <thread>

#include "common/atomic_max.h"
#include "common/bytes.h"
#include "common/fault_point.h"
#include "common/log.h"
#include "store/commit_log.h"

namespace rmq::store {

ByteView CommitLog::read(int64_t offset, int32_t size) const {
  auto f = files_.findByOffset(offset);
  if (!f || size <= 0) return {};
  int64_t pos = offset - f->fromOffset();
  if (pos + size > f->wrote()) return {};
  return ByteView{std::string_view(f->data() + pos, static_cast<size_t>(size)), f};
}

ByteView CommitLog::readRecord(int64_t offset) const {
  auto f = files_.findByOffset(offset);
  if (!f) return {};
  int64_t pos = offset - f->fromOffset();
  int64_t end = std::min(f->wrote(), f->dataEnd());  // an offset into a hole (after a blank marker) reads nothing
  if (pos + 8 > end) return {};
  auto size = static_cast<int32_t>(loadBE32(f->data() + pos));
  auto magic = static_cast<int32_t>(loadBE32(f->data() + pos + 4));
  if ((magic != kMessageMagicV1 && magic != kMessageMagicV2) || size < 91 || pos + size > end) return {};
  return ByteView{std::string_view(f->data() + pos, static_cast<size_t>(size)), f};
}

ByteView CommitLog::readRaw(int64_t offset, size_t maxBytes) const {
  auto f = files_.findByOffset(offset);
  if (!f) return {};
  int64_t pos = offset - f->fromOffset();
  int64_t wrote = f->wrote();
  int64_t mapped = std::min(wrote, f->dataEnd());
  if (pos >= mapped) return readPastDataEnd(f, pos, std::min<int64_t>(wrote - pos, static_cast<int64_t>(maxBytes)));
  int64_t n = std::min<int64_t>(mapped - pos, static_cast<int64_t>(maxBytes));
  if (n <= 0) return {};
  return ByteView{std::string_view(f->data() + pos, static_cast<size_t>(n)), f};
}

// The never-written tail of a file opened at load (a Java file is sparse after its END-of-file
// blank marker, and its written position is the file size): the bytes count, as the HA stream is
// contiguous (a slave refuses a frame that does not continue its log) and a slave's file must be
// byte-identical, but a read fault on a hole of a full tmpfs is a SIGBUS. pread reads holes as
// zeros without allocating. Rare (once per such file), so a copy is fine.
ByteView CommitLog::readPastDataEnd(const MappedFilePtr& f, int64_t pos, int64_t n) {
  constexpr int64_t kMaxCopy = 1 << 20;
  n = std::min(n, kMaxCopy);
  if (n <= 0) return {};
  auto buf = std::make_shared<std::string>(static_cast<size_t>(n), '\0');
  if (!f->readAt(pos, buf->data(), buf->size())) {
    log::error("cannot read {} bytes at {} of {}", n, pos, f->path());
    return {};
  }
  std::string_view bytes(*buf);
  return ByteView{bytes, std::move(buf)};
}

int64_t CommitLog::storeTimeAt(int64_t offset, int32_t size) const {
  auto v = read(offset, size);
  if (v.bytes.size() < 64) return -1;
  auto sysFlag = static_cast<int32_t>(loadBE32(v.bytes.data() + 36));
  size_t at = 48 + ((sysFlag & sysflag::BORNHOST_V6) ? 20 : 8);
  if (at + 8 > v.bytes.size()) return -1;
  return static_cast<int64_t>(loadBE64(v.bytes.data() + at));
}

int64_t CommitLog::minOffset() const {
  auto f = files_.first();
  return f ? f->fromOffset() : 0;
}

int64_t CommitLog::flush() {
  int64_t target = maxOffset();
  int64_t done = flushed_.load(std::memory_order_relaxed);
  if (done < target && fault::armed(fault::Point::SlowDisk))
    std::this_thread::sleep_for(std::chrono::milliseconds(fault::arg(fault::Point::SlowDisk, 100)));
  if (done < target && fault::armed(fault::Point::FlushEio)) {
    if (!flushFailed_.exchange(true)) log::error("msync of the commit log failed: EIO (fault point flush_eio)");
    return done;
  }
  bool failed = false;
  while (done < target) {
    auto f = files_.findByOffset(done);
    if (!f) {
      int64_t min = minOffset();
      if (done >= min) break;
      done = min;  // files below were deleted by retention
      continue;
    }
    int64_t wrote = f->wrote();
    f->flush();
    done = f->fromOffset() + f->flushed();
    failed = f->flushed() < wrote;         // msync failed (logged): retried by the next flush
    if (f->flushed() < f->size()) break;  // still the file being written (or failed)
  }
  if (flushFailed_.exchange(failed) != failed && !failed) log::info("commit log flush succeeds again at offset {}", done);
  return atomicRaise(flushed_, done);  // flushes may overlap: the durable end only moves forward
}

int64_t CommitLog::scanValid(size_t startIdx, bool checkCRC, const std::function<void(const RecordView&)>& onRecord) {
  auto files = files_.snapshot();
  if (files.empty() || startIdx >= files.size()) return files.empty() ? 0 : files.back()->endOffset();
  int64_t end = files[startIdx]->fromOffset();
  auto t0 = std::chrono::steady_clock::now();
  int64_t scanned = 0, nextLog = 256 << 20;
  auto progress = [&](int64_t at) {
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    log::info("commit log recovery: validated {} MiB up to offset {} in {:.2f} s", scanned >> 20, at, secs);
  };
  for (size_t i = startIdx; i < files.size(); ++i) {
    MappedFile& f = *files[i];
    f.adviseSequential();
    int64_t pos = 0;
    bool stop = false;
    int64_t limit = f.dataEnd();  // never read a hole through the mapping (full tmpfs: SIGBUS)
    while (pos < f.size()) {
      if (pos >= limit) {  // never written: zeros, the end of the log
        stop = true;
        break;
      }
      RecordView v;
      auto rc = parseRecord(f.data() + pos, static_cast<size_t>(limit - pos), v, checkCRC);
      if (rc == RecordParse::Blank) {
        pos = f.size();
        break;
      }
      if (rc != RecordParse::Ok || v.physicalOffset != f.fromOffset() + pos) {
        if (rc != RecordParse::Ok && loadBE32(f.data() + pos) != 0)
          log::warn("commit log recovery: invalid record at {} ({}), truncating after it", f.fromOffset() + pos,
                    rc == RecordParse::Truncated ? "truncated" : "bad size/magic/CRC");
        stop = true;
        break;
      }
      if (onRecord) onRecord(v);
      pos += v.totalSize;
    }
    end = f.fromOffset() + pos;
    scanned += pos;
    if (scanned >= nextLog) {
      progress(end);
      nextLog = scanned + (256 << 20);
    }
    if (stop) break;
  }
  if (scanned >= (64 << 20)) progress(end);
  return end;
}

void CommitLog::setEnd(int64_t end) {
  std::lock_guard lock(mu_);
  files_.setEnd(end);
  current_.reset();
  flushed_.store(end);
  writtenEnd_.store(files_.maxOffset(), std::memory_order_release);
}

}  // namespace rmq::store
