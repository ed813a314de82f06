// Name server: REGISTER_BROKER bodies (JSON or zlib-compressed binary RegisterBrokerBody, or a
// bare TopicConfigSerializeWrapper) and QUERY_DATA_VERSION bodies (PROTOCOL.md §3.2). Input: a
// byte choosing the decoder, then the body.
#include "fuzz/fuzz_input.h"
#include "roles/namesrv/register_body.h"

using namespace rmq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  auto body = fuzz::input(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: (void)namesrv::decodeRegisterBrokerBody(body, false); break;
    case 1: (void)namesrv::decodeRegisterBrokerBody(body, true); break;
    case 2: (void)namesrv::decodeTopicConfigWrapper(body); break;
    default: (void)namesrv::decodeDataVersion(body); break;
  }
  return 0;
}
