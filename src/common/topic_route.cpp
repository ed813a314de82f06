#include "common/topic_route.h"

#include <iterator>
#include <random>

namespace rmq {

const std::string* BrokerData::masterAddr() const {
  auto it = brokerAddrs.find(0);
  return it == brokerAddrs.end() ? nullptr : &it->second;
}

const std::string* BrokerData::selectAddr() const {
  if (auto* m = masterAddr()) return m;
  if (brokerAddrs.empty()) return nullptr;
  static thread_local std::mt19937 rng{std::random_device{}()};
  auto it = brokerAddrs.begin();
  std::advance(it, static_cast<std::ptrdiff_t>(rng() % brokerAddrs.size()));
  return &it->second;
}

}  // namespace rmq
