// gRPC's message framing and header values (src/grpc/grpc_wire.h), from any HTTP/2 peer. Input:
// byte 0 picks the grpc-encoding (identity / gzip / deflate) and byte 1 where the rest is split
// into two DATA payloads; the rest is fed to a MessageReader. Its first line is also read as a
// grpc-timeout and as a percent-encoded grpc-message.
#include <vector>

#include "fuzz/fuzz_input.h"
#include "grpc/grpc_wire.h"

using namespace rmq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static const char* kEncodings[] = {"", "identity", "gzip", "deflate"};
  std::string encoding = kEncodings[data[0] % 4];
  auto rest = fuzz::input(data + 2, size - 2);
  size_t cut = rest.empty() ? 0 : data[1] % (rest.size() + 1);
  constexpr size_t kMax = 64 * 1024;
  grpc::MessageReader reader(kMax, encoding);
  std::vector<std::string> out;
  auto err = reader.feed(rest.data(), cut, out);
  if (!err) err = reader.feed(rest.data() + cut, rest.size() - cut, out);
  for (auto& m : out) RMQ_FUZZ_CHECK(m.size() <= kMax);  // the limit holds after inflating too
  // Where the DATA frames split the stream must not change what it yields.
  if (!err) {
    grpc::MessageReader whole(kMax, encoding);
    std::vector<std::string> again;
    auto err2 = whole.feed(rest.data(), rest.size(), again);
    RMQ_FUZZ_CHECK(!err2 && again == out);
  }
  auto line = fuzz::splitAt(rest, '\n').first;
  if (auto t = grpc::parseTimeout(line)) {
    RMQ_FUZZ_CHECK(t->count() >= 0);
    auto back = grpc::parseTimeout(grpc::formatTimeout(*t));  // formatting rounds up, never down
    RMQ_FUZZ_CHECK(back && *back >= *t);
  }
  auto decoded = grpc::percentDecode(line);
  RMQ_FUZZ_CHECK(grpc::percentDecode(grpc::percentEncode(decoded)) == decoded);
  return 0;
}
