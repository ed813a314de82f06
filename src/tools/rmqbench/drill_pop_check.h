#pragma once
// The POP part of `rmqbench drill-check` (--pop <pop log>, drill_pop_check.cpp): reads the pop log
// of drill-pop-consume and prints its key=value lines. Returns the number of violations (acked sends
// never delivered, deliveries after an ack the broker answered OK, redeliveries nothing explains).
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace rmq::bench {

struct DrillFault {
  std::string name, group;
  int64_t start = 0, end = 0;  // epoch ms
};

// `sendStatus`: id -> its send answer (SEND_OK when any answer was).
int64_t checkPopLog(const std::string& path, const std::unordered_map<std::string, std::string>& sendStatus,
                    const std::vector<DrillFault>& faults);

}  // namespace rmq::bench
