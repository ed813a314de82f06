#pragma once
// The bytes a popped message goes out with: its stored record with reconsumeTimes = what it had
// stored + the deliveries before this one (5.x delivery attempt = reconsumeTimes + 1), and
// optionally one more property (the remoting answer's POP_CK). Pure; any thread.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rmq::broker::pop {

inline constexpr std::string_view kPopCkProperty = "POP_CK";  // Java MessageConst.PROPERTY_POP_CK

// nullopt when `record` is not a valid record.
std::optional<std::string> poppedRecord(std::string_view record, int32_t deliveries,
                                        std::string_view popCk = {});

}  // namespace rmq::broker::pop
