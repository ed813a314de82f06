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

// Zeroed blocks are private mappings of one sparse, never-written memfd: a page only read (the
// stream table, which nghttp2 looks into on every frame, also with no streams open) is then the
// file's one shared page, and a write copies it into a private page as with anonymous memory.
// Anonymous memory would do the same on kernels that map the shared zero page on a read, but not
// everywhere (this project's VMs boot with pvm_no_zero_page: there every read page is a new page).
constexpr size_t kZeroFileSize = 1 << 20;  // larger zeroed blocks are plain anonymous mappings

int zeroFile() {
  static const int fd = [] {
    int f = ::memfd_create("rmq-h2-zeros", MFD_CLOEXEC);
    if (f >= 0 && ::ftruncate(f, kZeroFileSize) != 0) {
      ::close(f);
      f = -1;
    }
    return f;
  }();
  return fd;
}

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

void* SessionMemory::map(size_t size, bool zeroFileBacked) {
  int fd = zeroFileBacked && size <= kZeroFileSize ? zeroFile() : -1;
  int flags = MAP_PRIVATE | (fd < 0 ? MAP_ANONYMOUS : 0);
  void* p = ::mmap(nullptr, roundToPages(size), PROT_READ | PROT_WRITE, flags, fd, 0);
  if (p == MAP_FAILED) return nullptr;  // e.g. vm.max_map_count reached
  mapped_.emplace_back(p, size);
  return p;
}

void* SessionMemory::allocate(size_t size, void* self) {
  if (size < pageSize()) return std::malloc(size);
  void* p = static_cast<SessionMemory*>(self)->map(size, false);
  return p ? p : std::malloc(size);
}

void* SessionMemory::allocateZeroed(size_t count, size_t size, void* self) {
  size_t total = count * size;
  if (total < pageSize()) return std::calloc(count, size);
  void* p = static_cast<SessionMemory*>(self)->map(total, true);  // fresh mapped pages are zeros already
  return p ? p : std::calloc(count, size);
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
