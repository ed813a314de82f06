// HA stream, master -> slave (PROTOCOL.md §9.3): frames of offset + size + commit-log bytes,
// arriving in reads of any size. Input: a byte that drives how the stream is cut into reads,
// then the stream. Checks the frames against a direct parse of the whole stream, and does the
// slave's bookkeeping on each (ha_client.cpp: a frame must continue where the last one ended).
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
  repl::FrameReader reader;
  size_t pos = 0, read = 0, parsed = 0;  // parsed: where the next frame starts in `stream`
  int64_t slaveEnd = 0;
  while (pos < stream.size()) {
    size_t n = std::min<size_t>(stream.size() - pos, 1 + (cut * 31 + read * 13) % 4096);
    ++read;
    char* space = reader.space(n);
    std::memcpy(space, stream.data() + pos, n);
    reader.commit(n);
    pos += n;
    for (;;) {
      auto next = reader.next();
      if (!next) return 0;  // broken stream: the slave closes the connection
      if (!next->has_value()) break;
      const repl::Frame& f = **next;
      RMQ_FUZZ_CHECK(parsed + repl::kFrameHeaderSize + f.body.size() <= pos);
      RMQ_FUZZ_CHECK(f.phyOffset == static_cast<int64_t>(loadBE64(stream.data() + parsed)));
      RMQ_FUZZ_CHECK(f.body == stream.substr(parsed + repl::kFrameHeaderSize, f.body.size()));
      parsed += repl::kFrameHeaderSize + f.body.size();
      if (slaveEnd != 0 && slaveEnd != f.phyOffset) return 0;  // refused: not continuous
      int64_t seen = f.phyOffset + static_cast<int64_t>(f.body.size());  // masterOffsetSeen_
      if (!f.body.empty()) slaveEnd = seen;  // appendReplicated
    }
  }
  RMQ_FUZZ_CHECK(reader.buffered() == pos - parsed);
  return 0;
}
