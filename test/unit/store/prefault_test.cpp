// MappedFile::prefault (SYNC_FLUSH turnaround): the flusher populates the commit-log pages the
// released senders store into next, so their stores take no page fault under the append lock.
// Only reserved blocks are populated: a Java-written sparse file's holes stay holes.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "store/mapped_file.h"
#include "unit/store/store_test_util.h"

using namespace rmq::store;
using namespace rmq::store::test;

namespace {
constexpr int64_t kPage = 4096;

long minorFaults() {
  rusage ru{};
  ::getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_minflt;
}

// Pages of [from, to) resident in the page cache mapping (mincore).
int64_t residentPages(const MappedFile& f, int64_t from, int64_t to) {
  std::vector<unsigned char> v(static_cast<size_t>((to - from) / kPage));
  REQUIRE(::mincore(f.data() + from, static_cast<size_t>(to - from), v.data()) == 0);
  int64_t n = 0;
  for (auto b : v) n += b & 1;
  return n;
}
}  // namespace

TEST_CASE("prefault: reserved pages become present and writable once; stores there fault no more; zeros") {
  TempDir dir;
  auto created = MappedFile::create(dir.path + "/00000000000000000000", 0, 1 << 20, MappedFile::Backing::Reserved);
  REQUIRE(created);
  auto f = created.value();
  CHECK(residentPages(*f, 0, 256 * kPage) == 0);
  CHECK(f->prefault(100, 64 * 1024) == 64 * 1024 + kPage);  // whole pages around [100, 100 + 64 KiB)
  CHECK(f->prefaulted() == 17 * kPage);
  CHECK(residentPages(*f, 0, 17 * kPage) == 17);
  CHECK(f->prefault(0, 17 * kPage) == 0);  // each page once
  for (int64_t off = 0; off < 17 * kPage; ++off) REQUIRE(f->data()[off] == 0);  // populated pages read zero
  long before = minorFaults();
  std::memset(f->data(), 'x', static_cast<size_t>(17 * kPage));  // the writer's stores
  CHECK(minorFaults() - before == 0);
  before = minorFaults();
  std::memset(f->data() + 17 * kPage, 'x', static_cast<size_t>(4 * kPage));  // past it: the writer faults
  CHECK(minorFaults() - before > 0);
  CHECK(f->prefault(f->size() - kPage, 1 << 20) == kPage);  // clipped at the file's end
}

TEST_CASE("prefault: a file opened at load (maybe a sparse Java file) is not populated before its tail is reserved") {
  TempDir dir;
  std::string path = dir.path + "/00000000000000000000";
  {  // sparse, with data in its first page only (what the Java broker leaves)
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, 1 << 20) == 0);
    std::string head(kPage, 'j');
    REQUIRE(::pwrite(fd, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size()));
    ::close(fd);
  }
  auto opened = MappedFile::open(path, 0, 1 << 20);
  REQUIRE(opened);
  auto f = opened.value();
  CHECK(f->dataEnd() == kPage);
  CHECK(f->prefault(kPage, 64 * 1024) == 0);  // its blocks are not reserved: the hole stays a hole
  int fd = ::open(path.c_str(), O_RDONLY);
  CHECK(::lseek(fd, 0, SEEK_HOLE) == kPage);
  REQUIRE(f->reserveFrom(kPage));  // the writer continues the file: from here on it may be populated
  CHECK(f->prefault(kPage, 64 * 1024) == 64 * 1024);
  ::close(fd);
}
