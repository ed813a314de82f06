// What the store's small scattered writes cost in page cache: a consume queue's fresh file (and
// an index file) must fault in only the pages written. With the default mmap advice the first
// 20-byte unit read (zero-filled) a whole read-ahead window around it: with read_ahead_kb = 8192
// every 6 MB file of a 1,024-queue topic (BenchmarkTest) was filled with zeros for its first
// message, two thirds of the broker's CPU in a 16-producer sync-send benchmark.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "store/consume_queue.h"
#include "store/index_file.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::store;
using namespace rmq::store::test;

namespace {
// Pages of the file at `path` in the page cache (mincore on a file mapping reports the page
// cache, whoever faulted the pages in).
int residentPages(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  struct stat st {};
  REQUIRE(::fstat(fd, &st) == 0);
  auto len = static_cast<size_t>(st.st_size);
  void* p = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  REQUIRE(p != MAP_FAILED);
  long page = ::sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> vec((len + static_cast<size_t>(page) - 1) / static_cast<size_t>(page));
  int rc = ::mincore(p, len, vec.data());
  ::munmap(p, len);
  REQUIRE(rc == 0);
  int n = 0;
  for (auto v : vec) n += v & 1;
  return n;
}
}  // namespace

TEST_CASE("page cache: a fresh consume-queue file holds only the pages its units were written to") {
  TempDir dir;
  const int64_t fileSize = 300000 * kCqUnitSize;  // RocketMQ's default: 6,000,000 bytes
  ConsumeQueue cq("T", 0, dir.path, fileSize);
  REQUIRE(cq.load().ok());
  for (int64_t i = 0; i < 3; ++i) REQUIRE(cq.putUnit(i, i * 100, 100, 0).ok());
  std::string path = dir.path + "/T/0/" + MappedFile::fileName(0);
  // One page holds the three units; the kernel may add a neighbour, never a read-ahead window.
  CHECK(residentPages(path) <= 2);

  // A unit far into the file faults in its own page only.
  REQUIRE(cq.putUnit(100000, 3 * 100, 100, 0).ok());  // a gap is logged, the unit is written
  CHECK(residentPages(path) <= 4);
}

TEST_CASE("page cache: an index file holds only the pages its hash slots and items were written to") {
  TempDir dir;
  auto idx = IndexFile::create(dir.path + "/idx", 5000000, 20000000, 0, 0);
  REQUIRE(idx);
  for (int i = 0; i < 8; ++i) {
    auto put = idx.value()->put("key-" + std::to_string(i * 7919), i * 100, 1000 + i);
    REQUIRE((put == IndexFile::PutOutcome::Stored));
  }
  // 8 scattered slots + the header + the items page: at most ~2 pages each with a neighbour.
  CHECK(residentPages(dir.path + "/idx") <= 24);
}
