#pragma once
// AllocateMessageQueueAveragely (PROTOCOL.md §12.2), exactly as the Java client computes it, so
// C++ and Java members of one group agree on who owns which queue.
#include <string>
#include <vector>

#include "client/types.h"

namespace rmq::client {

// mqAll and cidAll are sorted here (callers may pass them in any order). Empty when currentCid is
// not in cidAll or either list is empty.
std::vector<MessageQueue> allocateAveragely(const std::string& currentCid, std::vector<MessageQueue> mqAll,
                                            std::vector<std::string> cidAll);

}  // namespace rmq::client
