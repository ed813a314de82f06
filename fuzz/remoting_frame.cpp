// Remoting frame as the server reads it after the 4-byte length prefix (PROTOCOL.md §1):
// header-length word, JSON or ROCKETMQ header, body. A decoded frame must encode and decode
// back to the same command (what the server answers with is what it understood).
#include "fuzz/fuzz_input.h"
#include "net/frame_codec.h"

using namespace rmq;

static bool sameCommand(const net::RemotingCommand& a, const net::RemotingCommand& b) {
  if (a.code != b.code || a.language != b.language || a.version != b.version || a.opaque != b.opaque ||
      a.flag != b.flag || a.remark != b.remark || a.body != b.body || a.extFields.size() != b.extFields.size())
    return false;
  auto i = b.extFields.begin();
  for (auto& kv : a.extFields)
    if (kv != *i++) return false;
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto decoded = net::decodeFrame(fuzz::input(data, size));
  if (!decoded) return 0;
  auto& cmd = *decoded;
  // What processors do with ext fields: typed reads of whatever arrived.
  for (auto& [k, v] : cmd.extFields) {
    (void)cmd.extFields.getInt(k);
    (void)cmd.extFields.getBool(k);
  }
  std::string again = net::encodeFrame(cmd);
  RMQ_FUZZ_CHECK(again.size() >= 4);
  auto back = net::decodeFrame(std::string_view(again).substr(4));
  RMQ_FUZZ_CHECK(back.ok());
  RMQ_FUZZ_CHECK(sameCommand(cmd, *back));
  return 0;
}
