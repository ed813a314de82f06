#pragma once
// SessionMemory: the allocator (nghttp2_mem) of one HTTP/2 session, for what an idle connection
// costs. nghttp2 allocates about 25 KB per session up front, most of it in two blocks: the 16 KiB
// outbound frame buffer and the 4 KiB stream hash table. Blocks of a page or more are mapped
// pages of their own here, so pages nghttp2 never touches (the table of a connection with few
// streams) cost nothing, and the frame buffer's pages are handed back to the kernel whenever the
// session has nothing left to send (its contents are dead then: nghttp2 resets the buffer before
// it packs the next frame). Zeroed blocks (the stream table) map a shared all-zero file privately,
// so pages that are only read cost nothing either (h2_memory.cpp). Smaller blocks come from
// malloc. Link thread only.
#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace rmq::grpc {

class SessionMemory {
 public:
  SessionMemory();
  ~SessionMemory();
  SessionMemory(const SessionMemory&) = delete;
  SessionMemory& operator=(const SessionMemory&) = delete;

  nghttp2_mem* mem() { return &mem_; }
  // The session has nothing to send: give the frame buffer's pages back (they read as zeros).
  void releaseIdle();

 private:
  static void* allocate(size_t size, void* self);
  static void release(void* ptr, void* self);
  static void* allocateZeroed(size_t count, size_t size, void* self);
  static void* reallocate(void* ptr, size_t size, void* self);
  size_t mappedSize(void* ptr) const;  // 0: a malloc block
  void* map(size_t size, bool zeroFileBacked);  // nullptr: no mapping (use malloc)

  nghttp2_mem mem_;
  std::vector<std::pair<void*, size_t>> mapped_;  // a few blocks per session
};

}  // namespace rmq::grpc
