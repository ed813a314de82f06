// SQL92 filter (PROTOCOL.md §11.2): the expression a consumer subscribes with goes through the
// lexer and parser on the broker; a compiled filter is then evaluated against every message's
// properties. Input: expression, a NUL byte, then an encoded properties string (name 0x01 value
// 0x02 ...) to evaluate it against.
#include "filter/filter.h"
#include "filter/sql_lexer.h"
#include "fuzz/fuzz_input.h"

using namespace rmq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [expression, properties] = fuzz::splitAt(fuzz::input(data, size), '\0');
  (void)filter::sql::tokenize(expression);
  auto f = filter::compileExpression(filter::ExpressionType::Sql92, expression);
  if (!f) {
    RMQ_FUZZ_CHECK(f.error().code == 23);  // SUBSCRIPTION_PARSE_FAILED, never anything else
    return 0;
  }
  filter::RawProperties props(properties);
  (void)f->matchesProperties(props);
  (void)f->matches("TagA", props);
  return 0;
}
