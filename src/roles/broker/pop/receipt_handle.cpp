#include "roles/broker/pop/receipt_handle.h"

#include <fmt/format.h>

#include "common/response_code.h"
#include "common/text_split.h"
#include "roles/broker/pop/text_number.h"

namespace rmq::broker::pop {

std::string ReceiptHandle::encode() const {
  std::string s = fmt::format("{} {} {} {} {} {} {} {}", startOffset, popTime, invisibleTime, reviveQid, topicType,
                              brokerName, queueId, queueOffset);
  if (commitLogOffset >= 0) s += fmt::format(" {}", commitLogOffset);
  return s;
}

namespace {

Error garbled(std::string_view text, std::string_view why) {
  return makeError(ResponseCode::NO_MESSAGE, fmt::format("receipt handle garbled ({}): '{}'", why, text));
}

}  // namespace

Result<ReceiptHandle> decodeReceiptHandle(std::string_view text) {
  auto f = splitNonEmpty(text, ' ');
  if (f.size() != 8 && f.size() != 9) return garbled(text, "not 8 or 9 fields");
  ReceiptHandle h;
  h.brokerName = std::string(f[5]);
  bool ok = parseNumber(f[0], h.startOffset) && parseNumber(f[1], h.popTime) && parseNumber(f[2], h.invisibleTime) &&
            parseNumber(f[3], h.reviveQid) && parseNumber(f[4], h.topicType) && parseNumber(f[6], h.queueId) &&
            parseNumber(f[7], h.queueOffset) && (f.size() == 8 || parseNumber(f[8], h.commitLogOffset));
  if (!ok) return garbled(text, "not a number");
  if (h.queueOffset < 0 || h.queueId < 0 || h.popTime <= 0) return garbled(text, "out of range");
  // A ninth field is a commit-log offset (>= 0): a negative one would re-encode as an 8-field
  // handle, i.e. another handle (fuzz receipt_handle).
  if (f.size() == 9 && h.commitLogOffset < 0) return garbled(text, "out of range");
  return h;
}

}  // namespace rmq::broker::pop
