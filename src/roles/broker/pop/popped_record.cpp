#include "roles/broker/pop/popped_record.h"

#include "common/message_codec.h"

namespace rmq::broker::pop {

std::optional<std::string> poppedRecord(std::string_view record, int32_t deliveries, std::string_view popCk) {
  RecordView rec;
  if (parseRecord(record.data(), record.size(), rec, false) != RecordParse::Ok) return std::nullopt;
  if (deliveries <= 1 && popCk.empty()) return std::string(rec.raw);
  rec.reconsumeTimes += deliveries - 1;
  std::string props;
  if (!popCk.empty()) {
    // One more item at the end (stored strings have no trailing separator, as Java writes them).
    props.reserve(rec.properties.size() + popCk.size() + 10);
    props.append(rec.properties);
    if (!props.empty() && props.back() != prop::PROPERTY_SEPARATOR) props.push_back(prop::PROPERTY_SEPARATOR);
    props.append(kPopCkProperty).push_back(prop::NAME_VALUE_SEPARATOR);
    props.append(popCk);
    rec.properties = props;
  }
  std::string out(recordSize(rec), '\0');
  encodeRecord(rec, out.data());
  return out;
}

}  // namespace rmq::broker::pop
