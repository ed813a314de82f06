#include "store/index_service.h"
#include "common/wall_clock.h"
#include "store/live_store_keys.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <filesystem>

#include "common/log.h"
#include "store/disk_space.h"
#include "store/mapped_file.h"

namespace rmq::store {

namespace fs = std::filesystem;

namespace {
std::string timeFileName(int64_t ms) {
  time_t secs = static_cast<time_t>(ms / 1000);
  struct tm t {};
  localtime_r(&secs, &t);
  return fmt::format("{:04d}{:02d}{:02d}{:02d}{:02d}{:02d}{:03d}", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday,
                     t.tm_hour, t.tm_min, t.tm_sec, static_cast<int>(ms % 1000));
}
}  // namespace

IndexService::IndexService(const StoreConfig& cfg) : cfg_(cfg), dir_(cfg.indexDir()) {}

Result<void> IndexService::load(bool lastExitOk, int64_t checkpointIndexTs) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  std::vector<std::string> names;
  for (auto& e : fs::directory_iterator(dir_, ec))
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  dropUnsizedLastFile(dir_, names);
  std::lock_guard lock(mu_);
  for (auto& n : names) {
    auto f = IndexFile::open(dir_ + "/" + n, cfg_.maxHashSlotNum, cfg_.maxIndexNum);
    if (!f) return f.error();
    if (!lastExitOk && f.value()->endTimestamp() > checkpointIndexTs) {
      log::info("deleting index file {} (newer than checkpoint)", n);
      rebuildFrom_ = std::min(rebuildFrom_, f.value()->beginPhyOffset());
      f.value()->markDeleted();
      continue;
    }
    files_.push_back(std::move(f.value()));
  }
  return {};
}

int64_t IndexService::lastIndexedPhy() const {
  std::lock_guard lock(mu_);
  int64_t last = -1;
  for (auto& f : files_) last = std::max(last, f->endPhyOffset());
  return last;
}

int64_t IndexService::dropBeyond(int64_t phyEnd) {
  size_t keep;
  int64_t from = INT64_MAX;
  {
    std::lock_guard lock(mu_);
    keep = files_.size();
    while (keep > 0 && files_[keep - 1]->endPhyOffset() >= phyEnd && files_[keep - 1]->endPhyOffset() > 0) {
      --keep;
      from = files_[keep]->beginPhyOffset();
    }
  }
  if (from != INT64_MAX)
    dropFrom(keep, fmt::format("it indexes records beyond the commit log end {}", phyEnd));
  return from;
}

int IndexService::truncateFrom(int64_t phyOffset, const std::function<int64_t(int64_t)>& storeTimeOf) {
  std::lock_guard lock(mu_);
  int touched = 0;
  while (!files_.empty() && files_.back()->endPhyOffset() >= phyOffset) {
    ++touched;
    if (files_.back()->truncateFrom(phyOffset, storeTimeOf) > 0) break;
    log::info("deleting index file {}: it held only records beyond the commit log cut at {}", files_.back()->path(),
              phyOffset);
    files_.back()->markDeleted();
    files_.pop_back();
  }
  // A truncated file is not full any more (it is synced already); a deleted one must not be flushed.
  std::erase_if(fullUnflushed_, [&](const IndexFilePtr& f) {
    return !f->isFull() || std::find(files_.begin(), files_.end(), f) == files_.end();
  });
  if (resumePhy_ >= phyOffset) {  // a partly indexed record that was cut
    resumePhy_ = -1;
    resumeKeys_ = 0;
  }
  return touched;
}

std::vector<std::pair<int64_t, int64_t>> IndexService::spans() const {
  std::lock_guard lock(mu_);
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto& f : files_) out.emplace_back(f->beginPhyOffset(), f->endPhyOffset());
  return out;
}

void IndexService::dropFrom(size_t i, const std::string& why) {
  std::lock_guard lock(mu_);
  while (files_.size() > i) {
    log::warn("deleting index file {}: {}", files_.back()->path(), why);
    files_.back()->markDeleted();
    files_.pop_back();
  }
}

bool IndexService::hasKeys(const RecordView& rec) {
  if (sysflag::transactionType(rec.sysFlag) == sysflag::TRANSACTION_ROLLBACK_TYPE) return false;
  return findEncodedProperty(rec.properties, prop::UNIQ_KEY) || findEncodedProperty(rec.properties, prop::KEYS);
}

Result<IndexFilePtr> IndexService::writableFile(int64_t phyOffset, int64_t storeTs) {
  std::lock_guard lock(mu_);
  if (!files_.empty() && !files_.back()->isFull()) return files_.back();
  int64_t beginPhy = 0, beginTs = 0;
  if (!files_.empty()) {
    beginPhy = files_.back()->endPhyOffset();
    beginTs = files_.back()->endTimestamp();
    if (fullUnflushed_.empty() || fullUnflushed_.back() != files_.back()) fullUnflushed_.push_back(files_.back());
  }
  int64_t t = nowMillis();
  std::string path = dir_ + "/" + timeFileName(t);
  while (fs::exists(path)) path = dir_ + "/" + timeFileName(++t);  // two rolls in one ms
  auto f = IndexFile::create(path, cfg_.maxHashSlotNum, cfg_.maxIndexNum, beginPhy, beginTs);
  if (!f) return f.error();
  files_.push_back(f.value());
  return f;
}

Result<void> IndexService::putKey(IndexFilePtr& file, std::string_view topic, std::string_view key,
                                  const RecordView& rec) {
  keyBuf_.assign(topic);
  keyBuf_.push_back('#');
  keyBuf_.append(key);
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto outcome = file->put(keyBuf_, rec.physicalOffset, rec.storeTimestamp);
    if (outcome == IndexFile::PutOutcome::Stored) return {};
    if (outcome == IndexFile::PutOutcome::NoSpace) return diskError("cannot reserve space in", file->path(), ENOSPC);
    auto next = writableFile(rec.physicalOffset, rec.storeTimestamp);  // full: roll over
    if (!next) return next.error();
    file = next.value();
  }
  log::error("index: no room for key {} even in a new file (maxIndexNum {})", keyBuf_, cfg_.maxIndexNum);
  return {};
}

Result<void> IndexService::buildIndex(const RecordView& rec) {
  if (!liveRead(cfg_.messageIndexEnable)) return {};
  if (sysflag::transactionType(rec.sysFlag) == sysflag::TRANSACTION_ROLLBACK_TYPE) return {};
  auto uniq = findEncodedProperty(rec.properties, prop::UNIQ_KEY);
  auto keys = findEncodedProperty(rec.properties, prop::KEYS);
  if (!uniq && !keys) return {};
  auto fileR = writableFile(rec.physicalOffset, rec.storeTimestamp);
  if (!fileR) return fileR.error();
  IndexFilePtr file = fileR.value();
  int skip = rec.physicalOffset == resumePhy_ ? resumeKeys_ : 0;  // a retry after a partial failure
  if (skip == 0 && rec.physicalOffset < file->endPhyOffset()) return {};  // indexed before (re-dispatch)
  int done = 0;
  auto putOne = [&](std::string_view key) -> Result<void> {
    if (done >= skip) {
      if (auto r = putKey(file, rec.topic, key, rec); !r) {
        resumePhy_ = rec.physicalOffset;
        resumeKeys_ = done;
        return r;
      }
    }
    ++done;
    return {};
  };
  if (uniq && !uniq->empty())
    if (auto r = putOne(*uniq); !r) return r;
  if (keys) {
    std::string_view k = *keys;
    while (!k.empty()) {
      auto sp = k.find(prop::KEY_SEPARATOR);
      std::string_view word = k.substr(0, sp);
      if (!word.empty())
        if (auto r = putOne(word); !r) return r;
      if (sp == std::string_view::npos) break;
      k.remove_prefix(sp + 1);
    }
  }
  resumePhy_ = -1;
  resumeKeys_ = 0;
  return {};
}

IndexService::Query IndexService::query(std::string_view topic, std::string_view key, int maxNum, int64_t begin,
                                        int64_t end) const {
  std::vector<IndexFilePtr> files;
  {
    std::lock_guard lock(mu_);
    files = files_;
  }
  Query q;
  std::string full = fmt::format("{}#{}", topic, key);
  for (size_t i = files.size(); i > 0; --i) {
    auto& f = files[i - 1];
    if (i == files.size()) {
      q.lastUpdateTimestamp = f->endTimestamp();
      q.lastUpdatePhyOffset = f->endPhyOffset();
    }
    if (f->overlaps(begin, end)) f->query(full, maxNum, begin, end, q.offsets);
    if (f->beginTimestamp() < begin || static_cast<int>(q.offsets.size()) >= maxNum) break;
  }
  return q;
}

void IndexService::flushFullFiles(Checkpoint& cp) {
  std::vector<IndexFilePtr> full;
  {
    std::lock_guard lock(mu_);
    full.swap(fullUnflushed_);
  }
  for (auto& f : full) {
    f->flush();
    cp.setIndexMsgTimestamp(f->endTimestamp());
  }
  if (!full.empty()) cp.flush();
}

void IndexService::flushAll() {
  std::lock_guard lock(mu_);
  for (auto& f : files_) f->flush();
  fullUnflushed_.clear();
}

int IndexService::deleteFilesBelow(int64_t phyMin) {
  std::lock_guard lock(mu_);
  int n = 0;
  while (files_.size() > 1 && files_.front()->endPhyOffset() < phyMin) {
    log::info("deleting index file {}", files_.front()->path());
    files_.front()->markDeleted();
    files_.erase(files_.begin());
    ++n;
  }
  return n;
}

void IndexService::destroy() {
  std::lock_guard lock(mu_);
  for (auto& f : files_) f->markDeleted();
  files_.clear();
  fullUnflushed_.clear();
}

}  // namespace rmq::store
