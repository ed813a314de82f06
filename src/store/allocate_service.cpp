#include "store/allocate_service.h"

#include "common/log.h"

namespace rmq::store {

void AllocateService::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void AllocateService::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mu_);
  for (auto& [path, f] : ready_) f->markDeleted();  // never used: Java leaves it, we clean up
  ready_.clear();
  pending_.clear();
}

void AllocateService::discardPrepared() {
  std::unique_lock lock(mu_);
  pending_.clear();
  cv_.wait(lock, [&] { return creating_.empty(); });  // a file being created lands in ready_
  for (auto& [path, f] : ready_) f->markDeleted();
  ready_.clear();
}

Result<MappedFilePtr> AllocateService::take(const std::string& path, int64_t start, int64_t size,
                                            const std::string& nextPath, int64_t nextStart) {
  MappedFilePtr f;
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return creating_ != path; });  // being created: wait, don't race it
    if (auto it = ready_.find(path); it != ready_.end()) {
      f = std::move(it->second);
      ready_.erase(it);
    }
    pending_.erase(path);
  }
  Result<MappedFilePtr> taken = f ? Result<MappedFilePtr>(std::move(f))
                                  : MappedFile::create(path, start, size, MappedFile::Backing::Reserved);
  if (taken) {  // not while this one failed (full disk): the next file would take the space it needs
    std::lock_guard lock(mu_);
    if (thread_.joinable() && !stopping_) pending_[nextPath] = Request{nextStart, size};
  }
  cv_.notify_all();
  return taken;
}

void AllocateService::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    cv_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
    if (stopping_) break;
    auto [path, req] = *pending_.begin();
    pending_.erase(pending_.begin());
    if (ready_.count(path)) continue;
    creating_ = path;
    lock.unlock();
    auto f = MappedFile::create(path, req.start, req.size, MappedFile::Backing::Reserved);
    if (f && warm_) f.value()->warm();
    lock.lock();
    creating_.clear();
    cv_.notify_all();
    if (!f) {
      log::warn("preallocating {} failed: {}", path, f.error().message);
      continue;
    }
    if (stopping_) {
      f.value()->markDeleted();
      break;
    }
    ready_[path] = std::move(f.value());
  }
}

}  // namespace rmq::store
