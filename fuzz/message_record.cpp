// Commit-log records (PROTOCOL.md §4.1): what recovery reads from disk, what the HA slave
// appends and what PULL/QUERY/VIEW bodies carry to clients.
#include "common/message_codec.h"
#include "fuzz/fuzz_input.h"

using namespace rmq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = fuzz::input(data, size);
  // Recovery's walk: record after record, with and without the CRC check.
  for (bool crc : {false, true}) {
    size_t pos = 0;
    while (pos < bytes.size()) {
      RecordView r;
      auto st = parseRecord(bytes.data() + pos, bytes.size() - pos, r, crc);
      if (st != RecordParse::Ok) break;
      RMQ_FUZZ_CHECK(r.totalSize > 0 && static_cast<size_t>(r.totalSize) <= bytes.size() - pos);
      (void)toMessageExt(r);
      pos += static_cast<size_t>(r.totalSize);
    }
  }
  // Client side: a PULL body, bodies inflated.
  (void)decodeMessages(bytes, true);
  (void)decodeMessage(bytes, true);
  return 0;
}
