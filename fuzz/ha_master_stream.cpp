// HA stream, slave -> master (PROTOCOL.md §9.2): 8-byte offset reports, arriving in reads of any
// size. Input: a byte that drives how the stream is cut into reads, then the stream. The reader
// must report exactly the last complete 8-byte group of what has arrived, whatever the cuts.
#include <algorithm>
#include <cstring>
#include <optional>

#include "common/bytes.h"
#include "fuzz/fuzz_input.h"
#include "repl/ha_protocol.h"

using namespace rmq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  unsigned cut = data[0];
  auto stream = fuzz::input(data + 1, size - 1);
  repl::ReportReader reader;
  size_t pos = 0, read = 0;
  while (pos < stream.size()) {
    size_t n = std::min<size_t>(stream.size() - pos, 1 + (cut + read * 7) % 23);
    ++read;
    auto report = reader.feed(stream.substr(pos, n));
    pos += n;
    size_t complete = pos / repl::kReportSize;
    size_t before = (pos - n) / repl::kReportSize;
    if (complete > before) {
      RMQ_FUZZ_CHECK(report.has_value());
      auto expect = static_cast<int64_t>(loadBE64(stream.data() + (complete - 1) * repl::kReportSize));
      RMQ_FUZZ_CHECK(*report == expect);
    } else {
      RMQ_FUZZ_CHECK(!report.has_value());
    }
  }
  return 0;
}
