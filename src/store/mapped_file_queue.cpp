#include "store/mapped_file_queue.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "common/file_write.h"
#include "common/log.h"
#include "common/response_code.h"

namespace rmq::store {

namespace fs = std::filesystem;

MappedFileQueue::MappedFileQueue(std::string dir, int64_t fileSize) : dir_(std::move(dir)), fileSize_(fileSize) {}

Result<void> MappedFileQueue::load() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return makeError(ResponseCode::SYSTEM_ERROR, "cannot create " + dir_ + ": " + ec.message());
  std::vector<std::string> names;
  for (auto& e : fs::directory_iterator(dir_, ec)) {
    auto n = e.path().filename().string();
    if (e.is_regular_file() && n.size() == 20 && std::all_of(n.begin(), n.end(), ::isdigit)) names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  dropUnsizedLastFile(dir_, names);
  std::vector<MappedFilePtr> files;
  for (auto& n : names) {
    auto f = MappedFile::open(dir_ + "/" + n, std::stoll(n), fileSize_);
    if (!f) return f.error();
    f.value()->setWrote(fileSize_);
    f.value()->setFlushed(fileSize_);
    files.push_back(std::move(f.value()));
  }
  std::lock_guard lock(mu_);
  files_ = std::move(files);
  return {};
}

MappedFilePtr MappedFileQueue::first() const {
  std::lock_guard lock(mu_);
  return files_.empty() ? nullptr : files_.front();
}

MappedFilePtr MappedFileQueue::last() const {
  std::lock_guard lock(mu_);
  return files_.empty() ? nullptr : files_.back();
}

MappedFilePtr MappedFileQueue::findByOffset(int64_t offset) const {
  std::lock_guard lock(mu_);
  if (files_.empty() || offset < files_.front()->fromOffset()) return nullptr;
  size_t idx = static_cast<size_t>((offset - files_.front()->fromOffset()) / fileSize_);
  if (idx < files_.size() && files_[idx]->fromOffset() <= offset && offset < files_[idx]->endOffset())
    return files_[idx];
  for (auto& f : files_)  // not contiguous (should not happen): linear fallback
    if (f->fromOffset() <= offset && offset < f->endOffset()) return f;
  return nullptr;
}

std::vector<MappedFilePtr> MappedFileQueue::snapshot() const {
  std::lock_guard lock(mu_);
  return files_;
}

size_t MappedFileQueue::count() const {
  std::lock_guard lock(mu_);
  return files_.size();
}

Result<MappedFilePtr> MappedFileQueue::fileAt(int64_t startOffset) {
  {
    std::lock_guard lock(mu_);
    if (!files_.empty() && files_.back()->fromOffset() == startOffset) return files_.back();
  }
  std::string path = dir_ + "/" + MappedFile::fileName(startOffset);
  if (std::error_code ec; !fs::is_directory(dir_, ec)) {
    fs::create_directories(dir_, ec);  // a queue whose directory could not be made (full disk)
    if (ec) return diskError("cannot create", dir_, ec.value());  // SERVICE_NOT_AVAILABLE for ENOSPC
  }
  auto f = allocator_ ? allocator_(path, startOffset, fileSize_)
                      : MappedFile::create(path, startOffset, fileSize_, MappedFile::Backing::Reserved);
  if (!f) return f.error();
  if (pageByPageWrites_) f.value()->adviseRandom();
  std::lock_guard lock(mu_);
  if (pageByPageWrites_ && !files_.empty()) files_.back()->adviseNormal();
  files_.push_back(f.value());
  return f;
}

int64_t MappedFileQueue::minOffset() const {
  std::lock_guard lock(mu_);
  return files_.empty() ? -1 : files_.front()->fromOffset();
}

int64_t MappedFileQueue::maxOffset() const {
  std::lock_guard lock(mu_);
  return files_.empty() ? 0 : files_.back()->fromOffset() + files_.back()->wrote();
}

int64_t MappedFileQueue::flushedOffset() const {
  std::lock_guard lock(mu_);
  for (auto it = files_.rbegin(); it != files_.rend(); ++it)
    if ((*it)->flushed() > 0 || it + 1 == files_.rend()) return (*it)->fromOffset() + (*it)->flushed();
  return 0;
}

int64_t MappedFileQueue::flush(int leastPages) {
  constexpr int64_t kPage = 4096;
  int64_t end = 0;
  for (auto& f : snapshot()) {
    bool enoughDirty = leastPages <= 0 || f->wrote() >= f->size() || f->wrote() / kPage - f->flushed() / kPage >= leastPages;
    if (f->flushed() < f->wrote() && enoughDirty) f->flush();
    end = f->fromOffset() + f->flushed();
    if (f->flushed() < f->wrote()) break;  // msync failed (or still being written): nothing after counts
  }
  return end;
}

void MappedFileQueue::setEnd(int64_t end, bool durable) {
  MappedFilePtr cut;
  bool deleted = false;
  {
    std::lock_guard lock(mu_);
    std::vector<MappedFilePtr> keep;
    for (auto& f : files_) {
      if (f->endOffset() <= end) {
        f->setWrote(f->size());
        f->setFlushed(f->size());
        keep.push_back(f);
      } else if (f->fromOffset() <= end && !(f->fromOffset() == end && end != 0 && !keep.empty())) {
        int64_t pos = end - f->fromOffset();
        f->zeroFrom(pos);  // no stale tail
        f->setWrote(pos);
        f->setFlushed(pos);
        keep.push_back(f);
        cut = f;
      } else {
        log::info("truncating dirty file {}", f->path());
        f->markDeleted();
        deleted = true;
      }
    }
    files_ = std::move(keep);
  }
  if (!durable) return;
  if (cut) cut->syncAll();
  if (deleted) fsyncDirectory(dir_);  // the unlinks: a power loss must not bring the files back
}

int MappedFileQueue::deleteFilesBelow(int64_t offset) {
  return deleteFirstWhile([&](const MappedFile& f) { return f.endOffset() <= offset; }, 1 << 30);
}

int MappedFileQueue::deleteFirstWhile(const std::function<bool(const MappedFile&)>& pred, int maxFiles) {
  std::lock_guard lock(mu_);
  int n = 0;
  while (n < maxFiles && files_.size() > 1 && pred(*files_.front())) {
    log::info("deleting expired file {}", files_.front()->path());
    files_.front()->markDeleted();
    files_.erase(files_.begin());
    ++n;
  }
  return n;
}

void MappedFileQueue::destroy() {
  std::lock_guard lock(mu_);
  for (auto& f : files_) f->markDeleted();
  files_.clear();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

}  // namespace rmq::store
