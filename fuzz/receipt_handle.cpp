// POP receipt handles (src/roles/broker/pop/receipt_handle.h): opaque to clients, so whatever a
// 5.x client or a remoting ACK_MESSAGE sends back is decoded. A decoded handle re-encodes to
// text that decodes to the same handle.
#include "fuzz/fuzz_input.h"
#include "roles/broker/pop/receipt_handle.h"

using namespace rmq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto h = broker::pop::decodeReceiptHandle(fuzz::input(data, size));
  if (!h) return 0;
  auto again = broker::pop::decodeReceiptHandle(h->encode());
  RMQ_FUZZ_CHECK(again && *again == *h);
  return 0;
}
