// Tag subscription expressions (PROTOCOL.md §11.1), from heartbeats and pull headers. Input:
// expression, a NUL byte, then a message's TAGS value to match against it.
#include "common/message_codec.h"
#include "filter/filter.h"
#include "fuzz/fuzz_input.h"

using namespace rmq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [expression, tags] = fuzz::splitAt(fuzz::input(data, size), '\0');
  auto f = filter::compileExpression("TAG", expression);
  RMQ_FUZZ_CHECK(f.ok());  // tag expressions never fail
  auto& te = f->tags();
  RMQ_FUZZ_CHECK(te.codes.size() <= te.tags.size());  // codes deduplicated apart ("Aa"/"BB")
  bool byString = f->matchesTags(tags);
  // A message whose tags match by string also passes the consume-queue hash check.
  if (byString && !tags.empty()) RMQ_FUZZ_CHECK(f->matchesTagsCode(javaStringHash(tags)));
  for (auto& t : te.tags) RMQ_FUZZ_CHECK(f->matchesTags(t));
  return 0;
}
