// SEND_BATCH_MESSAGE body (PROTOCOL.md §4.7) and the properties string of each message in it.
#include "common/message_codec.h"
#include "fuzz/fuzz_input.h"

using namespace rmq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto items = decodeBatch(fuzz::input(data, size));
  if (!items) return 0;
  for (auto& item : *items) {
    auto props = decodeProperties(item.properties);
    (void)findEncodedProperty(item.properties, "UNIQ_KEY");
    (void)props;
  }
  return 0;
}
