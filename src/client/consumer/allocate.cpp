#include "client/consumer/allocate.h"

#include <algorithm>

namespace rmq::client {

std::vector<MessageQueue> allocateAveragely(const std::string& currentCid, std::vector<MessageQueue> mqAll,
                                            std::vector<std::string> cidAll) {
  std::vector<MessageQueue> result;
  if (currentCid.empty() || mqAll.empty() || cidAll.empty()) return result;
  std::sort(mqAll.begin(), mqAll.end());
  std::sort(cidAll.begin(), cidAll.end());
  auto it = std::find(cidAll.begin(), cidAll.end(), currentCid);
  if (it == cidAll.end()) return result;
  const size_t n = mqAll.size(), c = cidAll.size(), i = static_cast<size_t>(it - cidAll.begin());
  const size_t mod = n % c;
  const size_t avg = n <= c ? 1 : ((mod > 0 && i < mod) ? n / c + 1 : n / c);
  const size_t start = (mod > 0 && i < mod) ? i * avg : i * avg + mod;
  const size_t range = start >= n ? 0 : std::min(avg, n - start);
  for (size_t k = 0; k < range; ++k) result.push_back(mqAll[(start + k) % n]);
  return result;
}

}  // namespace rmq::client
