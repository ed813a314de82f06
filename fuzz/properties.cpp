// Properties string (PROTOCOL.md §4.5): name 0x01 value 0x02 ... The map decoder, the
// allocation-free lookup and the SQL92 lookup must agree, and decode(encode(p)) == p.
#include "common/message_codec.h"
#include "filter/filter.h"
#include "fuzz/fuzz_input.h"

using namespace rmq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto s = fuzz::input(data, size);
  Properties props = decodeProperties(s);
  filter::RawProperties raw(s);
  for (auto& [k, v] : props) {
    (void)v;
    const std::string* last = findProperty(props, k);  // the last duplicate wins, as in Java's map
    RMQ_FUZZ_CHECK(last != nullptr);
    RMQ_FUZZ_CHECK(findEncodedProperty(s, k) == std::optional<std::string_view>(*last));
    RMQ_FUZZ_CHECK(raw.get(k) == std::optional<std::string_view>(*last));
  }
  std::string encoded = encodeProperties(props);
  RMQ_FUZZ_CHECK(decodeProperties(encoded) == props);
  return 0;
}
