#include "failover_checks.h"

#include <map>
#include <set>

#include "broker_calls.h"
#include "client/route.h"
#include "common/request_code.h"
#include "broker_requests.h"
#include "common/response_code.h"
#include "repl_cluster.h"

namespace rmq::test {

using namespace std::chrono_literals;

Sender::Sender(FailoverCluster& cluster, SenderSpec spec) : c_(cluster), spec_(std::move(spec)) {
  thread_ = std::thread([this] { run(); });
}

void Sender::finish() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void Sender::run() {
  if (spec_.onThread) spec_.onThread();
  TestClient client;  // made here: its network thread lives in this thread's network namespace
  std::string target = spec_.target;
  for (int64_t n = 0; !stop_;) {
    if (target.empty()) {
      auto m = c_.routeMaster(spec_.topic);
      if (!m) {
        std::this_thread::sleep_for(20ms);
        continue;
      }
      target = *m;
    }
    std::string body = spec_.prefix + "-" + std::to_string(n);
    ++attempts_;
    auto r = client.call(target, sendRequest({.topic = spec_.topic, .body = body, .queueId = static_cast<int32_t>(n % 4)}),
                         3s);
    if (r.ok() && r->code == ResponseCode::SUCCESS) {
      std::lock_guard lock(mu_);
      acked_.push_back(body);
      okAt_.emplace_back(Clock::now(), target);
      ++okCount_;
      ++n;
      continue;
    }
    target = spec_.target;  // a routed sender asks the name server again
    std::this_thread::sleep_for(20ms);
  }
}

bool Sender::waitOks(int64_t atLeast, std::chrono::milliseconds timeout) const {
  return eventually([&] { return okCount() >= atLeast; }, timeout);
}

std::vector<std::string> Sender::acknowledged() {
  std::lock_guard lock(mu_);
  return acked_;
}

std::vector<std::string> Sender::acknowledgedBy(const std::string& broker) {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (size_t i = 0; i < acked_.size(); ++i)
    if (okAt_[i].second == broker) out.push_back(acked_[i]);
  return out;
}

std::optional<Sender::Clock::time_point> Sender::firstOkAfter(Clock::time_point t, const std::string& broker) {
  std::lock_guard lock(mu_);
  for (auto& [when, who] : okAt_)
    if (when >= t && (broker.empty() || who == broker)) return when;
  return std::nullopt;
}

std::optional<Sender::Clock::time_point> Sender::lastOk() {
  std::lock_guard lock(mu_);
  if (okAt_.empty()) return std::nullopt;
  return okAt_.back().first;
}

QueueBodies storedBodies(FailoverCluster& c, const std::string& addr, const std::string& topic, int queues) {
  QueueBodies out(static_cast<size_t>(queues));
  for (int q = 0; q < queues; ++q) {
    int64_t offset = 0;
    for (int round = 0; round < 1000; ++round) {
      auto msgs = pullMessages(c.client, addr, {.group = "fo-check", .topic = topic, .queueId = q, .offset = offset});
      if (msgs.empty()) break;
      for (auto& m : msgs) out[static_cast<size_t>(q)].push_back(m.body);
      offset += static_cast<int64_t>(msgs.size());
    }
  }
  return out;
}

StoreAudit audit(const std::vector<std::string>& acknowledged, const QueueBodies& stored) {
  StoreAudit a;
  a.acknowledged = acknowledged.size();
  std::set<std::string> seen;
  for (auto& queue : stored) {
    std::map<std::string, long long> lastOf;  // sender prefix -> newest number seen in this queue
    for (auto& body : queue) {
      ++a.stored;
      if (!seen.insert(body).second) ++a.duplicates;
      const auto dash = body.rfind('-');
      if (dash == std::string::npos) continue;
      const std::string prefix = body.substr(0, dash);
      const long long n = std::stoll(body.substr(dash + 1));
      auto it = lastOf.find(prefix);
      if (it != lastOf.end() && n < it->second) ++a.outOfOrder;
      lastOf[prefix] = it == lastOf.end() ? n : std::max(n, it->second);
    }
  }
  for (auto& b : acknowledged) {
    if (seen.count(b)) continue;
    ++a.lost;
    if (a.missing.size() < 1000) a.missing.push_back(b);
  }
  return a;
}

std::string StoreAudit::describe() const {
  return std::to_string(acknowledged) + " SEND_OK, " + std::to_string(stored) + " stored: " + std::to_string(lost) +
         " acknowledged missing, " + std::to_string(duplicates) + " duplicates, " + std::to_string(outOfOrder) +
         " out of order within a queue";
}

StoreAudit auditStored(FailoverCluster& c, const std::string& addr, const std::string& topic,
                       const std::vector<std::string>& acknowledged) {
  StoreAudit a;
  eventually(
      [&] {
        a = audit(acknowledged, storedBodies(c, addr, topic));
        return a.lost == 0;
      },
      10s);
  return a;
}

std::string commitLogsDiffer(FailoverCluster& c, int a, int b, int64_t end) {
  return commitLogDiff(c.broker(a).path("store/commitlog"), c.broker(b).path("store/commitlog"), 64 << 20, 0, end,
                       "broker " + std::to_string(a), "broker " + std::to_string(b));
}

RoleSampler::RoleSampler(FailoverCluster& cluster) : c_(cluster) {
  thread_ = std::thread([this] { run(); });
}

void RoleSampler::finish() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

std::vector<std::string> RoleSampler::violations() {
  std::lock_guard lock(mu_);
  return violations_;
}

void RoleSampler::run() {
  using namespace std::chrono_literals;
  TestClient client;
  std::map<int, int64_t> lastEpoch;     // broker id -> epoch it last reported
  std::map<int64_t, int> masterOf;      // epoch -> the broker that said master at it
  auto note = [&](std::string v) {
    std::lock_guard lock(mu_);
    if (violations_.size() < 20) violations_.push_back(std::move(v));
  };
  for (int round = 0; !stop_ && round < 20000; ++round) {
    for (int id = 1; id <= c_.spec.brokers; ++id) {
      // One runtime-info read per broker, with a short timeout: a frozen broker must not stall the sampling.
      auto kv = brokerRuntimeInfo(client, c_.addr(id), 300ms);
      if (!kv || !kv->count("failoverEpoch") || !kv->count("failoverRole")) continue;  // down, or not answering now
      int64_t epoch = std::stoll(kv->at("failoverEpoch"));
      const std::optional<std::string> role = kv->at("failoverRole");
      if (auto it = lastEpoch.find(id); it != lastEpoch.end() && epoch < it->second)
        note("broker " + std::to_string(id) + " went from epoch " + std::to_string(it->second) + " to " +
             std::to_string(epoch));
      lastEpoch[id] = epoch;
      if (*role == "master") {
        auto [it, fresh] = masterOf.emplace(epoch, id);
        if (!fresh && it->second != id)
          note("brokers " + std::to_string(it->second) + " and " + std::to_string(id) + " both said master at epoch " +
               std::to_string(epoch));
      }
    }
    ++samples_;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace rmq::test
