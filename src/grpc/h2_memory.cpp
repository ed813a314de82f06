#include "grpc/h2_memory.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace rmq::grpc {
namespace {

// nghttp2's outbound frame buffer: frame header + 1 padding byte + the largest payload
// (NGHTTP2_FRAMEBUF_CHUNKLEN, not in its public header).
constexpr size_t kFrameBuffer = 9 + 1 + 16384;

size_t pageSize() {
  static const size_t size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

size_t roundToPages(size_t size) { return (size + pageSize() - 1) / pageSize() * pageSize(); }

}  // namespace

SessionMemory::SessionMemory() : mem_{this, allocate, release, allocateZeroed, reallocate} {}

SessionMemory::~SessionMemory() {
  for (auto& [p, size] : mapped_) ::munmap(p, roundToPages(size));
}

size_t SessionMemory::mappedSize(void* ptr) const {
  for (auto& [p, size] : mapped_)
    if (p == ptr) return size;
  return 0;
}

void* SessionMemory::allocate(size_t size, void* self) {
  auto& m = *static_cast<SessionMemory*>(self);
  if (size < pageSize()) return std::malloc(size);
  void* p = ::mmap(nullptr, roundToPages(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return std::malloc(size);  // e.g. vm.max_map_count reached: plain memory
  m.mapped_.emplace_back(p, size);
  return p;
}

void* SessionMemory::allocateZeroed(size_t count, size_t size, void* self) {
  size_t total = count * size;
  if (total < pageSize()) return std::calloc(count, size);
  void* p = allocate(total, self);
  auto& m = *static_cast<SessionMemory*>(self);
  if (p && m.mappedSize(p) == 0) std::memset(p, 0, total);  // fresh mapped pages are zeros already
  return p;
}

void SessionMemory::release(void* ptr, void* self) {
  if (!ptr) return;
  auto& m = *static_cast<SessionMemory*>(self);
  auto it = std::find_if(m.mapped_.begin(), m.mapped_.end(), [ptr](auto& e) { return e.first == ptr; });
  if (it == m.mapped_.end()) {
    std::free(ptr);
    return;
  }
  ::munmap(ptr, roundToPages(it->second));
  m.mapped_.erase(it);
}

void* SessionMemory::reallocate(void* ptr, size_t size, void* self) {
  auto& m = *static_cast<SessionMemory*>(self);
  size_t old = ptr ? m.mappedSize(ptr) : 0;
  if (ptr && old == 0 && size < pageSize()) return std::realloc(ptr, size);
  if (old > 0 && size <= roundToPages(old)) {  // still fits its pages
    for (auto& e : m.mapped_)
      if (e.first == ptr) e.second = size;
    return ptr;
  }
  void* fresh = allocate(size, self);
  if (!fresh || !ptr) return fresh;
  size_t keep = old > 0 ? std::min(old, size) : size;  // a malloc block of unknown size: nghttp2 only grows
  if (old == 0) keep = std::min(size, ::malloc_usable_size(ptr));
  std::memcpy(fresh, ptr, keep);
  release(ptr, self);
  return fresh;
}

void SessionMemory::releaseIdle() {
  for (auto& [p, size] : mapped_)
    if (size == kFrameBuffer) ::madvise(p, roundToPages(size), MADV_DONTNEED);
}

}  // namespace rmq::grpc
