// EpochFile: RocketMQ 5.x CheckpointFile format, atomic writes with a .bak, truncation.
#include <doctest/doctest.h>

#include <climits>
#include <filesystem>
#include <fstream>

#include "common/file_write.h"
#include "common/message_codec.h"
#include "store/epoch_file.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::store;
using namespace rmq::store::test;
namespace fs = std::filesystem;

namespace {
using Entries = std::vector<std::pair<int64_t, int64_t>>;
void writeFile(const std::string& path, const std::string& content) { std::ofstream(path, std::ios::binary) << content; }
}  // namespace

TEST_CASE("epoch file: Java's layout (count, crc, epoch-startOffset lines); append / load round trip") {
  TempDir dir;
  std::string path = dir.path + "/epochFile";
  EpochFile f(path);
  REQUIRE(f.load().ok());  // missing: empty
  CHECK(f.entries().empty());
  CHECK(f.lastEpoch() == 0);
  REQUIRE(f.append(1, 0).ok());
  REQUIRE(f.append(2, 1000).ok());
  REQUIRE(f.append(5, 5000).ok());
  CHECK_FALSE(f.append(5, 6000).ok());  // epoch must grow
  CHECK_FALSE(f.append(6, 4000).ok());  // start must not go back
  std::string lines = "1-0\n2-1000\n5-5000\n";
  CHECK(*readWholeFile(path) == "3\n" + std::to_string(crc32Masked(lines)) + "\n" + lines);
  CHECK(*readWholeFile(path + ".bak") == EpochFile::serialize({{1, 0}, {2, 1000}}));  // the previous content

  EpochFile g(path);
  REQUIRE(g.load().ok());
  CHECK(g.entries() == Entries{{1, 0}, {2, 1000}, {5, 5000}});
  CHECK(g.lastEpoch() == 5);
  CHECK(g.endOf(1) == 1000);
  CHECK(g.endOf(2) == 5000);
  CHECK(g.endOf(5) == INT64_MAX);
  CHECK(g.endOf(3) == -1);
  // A file Java wrote with crc 0 (not checked) reads too.
  writeFile(path, "2\n0\n7-7000\n8-8000\n");
  REQUIRE(g.load().ok());
  CHECK(g.entries() == Entries{{7, 7000}, {8, 8000}});
}

TEST_CASE("epoch file: a corrupt main file falls back to the .bak; both bad is an error") {
  TempDir dir;
  std::string path = dir.path + "/epochFile";
  EpochFile f(path);
  REQUIRE(f.append(1, 0).ok());
  REQUIRE(f.append(2, 100).ok());
  std::string good = *readWholeFile(path);
  for (std::string bad : {good.substr(0, good.size() - 3), std::string("3\n") + good.substr(2), std::string("garbage"),
                          good.substr(0, good.size() - 2) + "9\n"}) {
    CAPTURE(bad);
    writeFile(path, bad);
    EpochFile g(path);
    REQUIRE(g.load().ok());
    CHECK(g.entries() == Entries{{1, 0}});  // the .bak: one append behind
  }
  writeFile(path + ".bak", "nonsense");
  EpochFile h(path);
  CHECK_FALSE(h.load().ok());
  fs::remove(path);  // main missing, .bak bad: an error too (something was written once)
  CHECK_FALSE(h.load().ok());
}

TEST_CASE("epoch file: truncateFrom drops entries at or beyond the cut, persisted; emptied stays empty") {
  TempDir dir;
  std::string path = dir.path + "/epochFile";
  EpochFile f(path);
  for (auto [e, s] : Entries{{1, 0}, {2, 1000}, {3, 2000}, {4, 2000}}) REQUIRE(f.append(e, s).ok());
  REQUIRE(f.truncateFrom(2500).ok());  // nothing starts at or beyond it
  CHECK(f.entries().size() == 4);
  REQUIRE(f.truncateFrom(2000).ok());
  CHECK(f.entries() == Entries{{1, 0}, {2, 1000}});
  CHECK(f.endOf(2) == INT64_MAX);
  EpochFile g(path);
  REQUIRE(g.load().ok());
  CHECK(g.entries() == Entries{{1, 0}, {2, 1000}});
  REQUIRE(g.append(3, 1500).ok());  // epochs continue after the cut
  REQUIRE(g.truncateFrom(0).ok());
  EpochFile h(path);
  REQUIRE(h.load().ok());
  CHECK(h.entries().empty());  // the .bak (non-empty) does not come back
}
