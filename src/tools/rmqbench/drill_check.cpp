// `rmqbench drill-check`: the checker of scripts/drill.sh. Reads the send log and the receive
// log of drill-produce / drill-consume (drill_bench.cpp) and the drill's fault log
// ("F <name> <start epoch ms> <end epoch ms> [<brokerName>]") and prints one `key=value` line each:
//   sent, acked (SEND_OK), not_ok (any other answer), received, distinct,
//   lost            acknowledged ids never received (must be 0),
//   duplicates      receptions beyond the first of an id (RocketMQ is at-least-once),
//   order_violations  per queue, in queue-offset order, a producer thread's sequence going back,
//   unacked_received  ids whose send failed or timed out but that were stored (at-least-once),
//   recovery_ms     per fault: first SEND_OK after the fault ended, minus its end,
//   failover_ms     per fault that names a broker group (failover drills): the first SEND_OK on that
//                   group of a send issued after the fault began (the send log's 8th field; without it,
//                   answered after), minus the fault's start: the new master serving, route refresh included,
//   fault_loss      per fault: lost and duplicated ids among those first sent between its start and
//                   the next fault's (or the end),
//   max_ack_gap_ms  longest time without any SEND_OK,
//   pop_*           with --pop: the POP consumers' deliveries, redeliveries by class (drill_pop_check.cpp).
// Exit code 0 when lost == 0 and order_violations == 0 (and with --pop: pop_lost, pop_redelivered_
// acked_redelivered and pop_redelivered_unexplained 0), else 1.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tools/rmqbench/bench_registry.h"
#include "tools/rmqbench/drill_pop_check.h"

namespace rmq::bench {
namespace {

struct Received {
  std::string id;
  int64_t queueOffset;
};

// "<run>-<worker>-<seq>" -> ("<run>-<worker>", seq); seq -1 when the id has another shape.
std::pair<std::string, int64_t> splitId(const std::string& id) {
  auto dash = id.rfind('-');
  if (dash == std::string::npos) return {id, -1};
  try {
    return {id.substr(0, dash), std::stoll(id.substr(dash + 1))};
  } catch (...) {
    return {id, -1};
  }
}

int runDrillCheck(OptionValues& args) {
  std::string sendPath = args.get({"send"}, "send.log");
  std::string recvPath = args.get({"recv"}, "recv.log");
  std::string faultPath = args.get({"faults"}, "");
  std::string popPath = args.get({"pop"}, "");
  std::ifstream sendIn(sendPath), recvIn(recvPath);
  if (!sendIn || !recvIn) {
    std::fprintf(stderr, "rmqbench drill-check: cannot read %s or %s\n", sendPath.c_str(), recvPath.c_str());
    return 2;
  }
  std::unordered_map<std::string, std::string> status;  // id -> last answer
  std::unordered_map<std::string, int64_t> firstSent;    // id -> time of its first answer
  std::vector<int64_t> ackTimes;
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> groupAcks;  // brokerName -> (began, answered) of SEND_OKs
  int64_t sent = 0, acked = 0, firstMs = 0, lastMs = 0;
  std::string line;
  while (std::getline(sendIn, line)) {
    std::istringstream ls(line);
    std::string tag, id, st, broker;
    int64_t qid = 0, qoff = 0, ms = 0;
    if (!(ls >> tag >> id >> st >> broker >> qid >> qoff >> ms) || tag != "S") continue;
    int64_t began = ms;
    ls >> began;  // optional (older logs have no such field)
    ++sent;
    if (firstMs == 0) firstMs = ms;
    lastMs = std::max(lastMs, ms);
    auto& s = status[id];
    if (s != "SEND_OK") s = st;  // a later answer for the same id cannot undo an ack
    firstSent.emplace(id, ms);
    if (st == "SEND_OK") {
      ++acked;
      ackTimes.push_back(ms);
      groupAcks[broker].emplace_back(began, ms);
    }
  }
  std::unordered_map<std::string, int> seen;
  std::map<std::string, std::vector<Received>> byQueue;  // "broker/qid" -> receptions
  int64_t received = 0;
  while (std::getline(recvIn, line)) {
    std::istringstream ls(line);
    std::string tag, id, broker;
    int64_t qid = 0, qoff = 0, ms = 0;
    if (!(ls >> tag >> id >> broker >> qid >> qoff >> ms) || tag != "R") continue;
    ++received;
    ++seen[id];
    byQueue[broker + "/" + std::to_string(qid)].push_back({id, qoff});
  }
  int64_t lost = 0, unackedReceived = 0, duplicates = 0;
  std::vector<std::string> lostSample, lostIds;
  for (auto& [id, st] : status) {
    bool got = seen.count(id) != 0;
    if (st == "SEND_OK" && !got) {
      ++lost;
      lostIds.push_back(id);
      if (lostSample.size() < 5) lostSample.push_back(id);
    }
    if (st != "SEND_OK" && got) ++unackedReceived;
  }
  for (auto& [id, n] : seen) duplicates += n - 1;
  int64_t orderViolations = 0;
  for (auto& [queue, recs] : byQueue) {
    std::sort(recs.begin(), recs.end(), [](auto& a, auto& b) { return a.queueOffset < b.queueOffset; });
    std::unordered_map<std::string, int64_t> lastSeq;
    std::unordered_set<std::string> first;
    int64_t prevOffset = -1;
    for (auto& r : recs) {
      if (r.queueOffset == prevOffset) continue;  // the same stored message received twice
      prevOffset = r.queueOffset;
      if (!first.insert(r.id).second) continue;  // a stored duplicate (a retried send): order judged by the first
      auto [producer, seq] = splitId(r.id);
      if (seq < 0) continue;
      auto it = lastSeq.find(producer);
      if (it != lastSeq.end() && seq < it->second) ++orderViolations;
      lastSeq[producer] = seq;
    }
  }
  std::sort(ackTimes.begin(), ackTimes.end());
  int64_t maxGap = 0;
  for (size_t i = 1; i < ackTimes.size(); ++i) maxGap = std::max(maxGap, ackTimes[i] - ackTimes[i - 1]);
  std::printf("sent=%lld\nacked=%lld\nnot_ok=%lld\nreceived=%lld\ndistinct=%zu\nlost=%lld\nduplicates=%lld\n"
              "order_violations=%lld\nunacked_received=%lld\nmax_ack_gap_ms=%lld\nsend_span_s=%.1f\n",
              static_cast<long long>(sent), static_cast<long long>(acked), static_cast<long long>(sent - acked),
              static_cast<long long>(received), seen.size(), static_cast<long long>(lost),
              static_cast<long long>(duplicates), static_cast<long long>(orderViolations),
              static_cast<long long>(unackedReceived), static_cast<long long>(maxGap), (lastMs - firstMs) / 1000.0);
  for (auto& id : lostSample) std::printf("lost_id=%s\n", id.c_str());
  std::vector<DrillFault> faults;
  if (!faultPath.empty()) {
    std::ifstream faultIn(faultPath);
    while (std::getline(faultIn, line)) {
      std::istringstream ls(line);
      DrillFault f;
      std::string tag;
      if (!(ls >> tag >> f.name >> f.start >> f.end) || tag != "F") continue;
      ls >> f.group;  // optional
      faults.push_back(f);
    }
  }
  if (!faultPath.empty()) {
    for (auto& f : faults) {
      auto it = std::lower_bound(ackTimes.begin(), ackTimes.end(), f.end);
      std::string rec = it == ackTimes.end() ? "none" : std::to_string(*it - f.end);
      std::printf("recovery_ms %s=%s (fault %lld ms)\n", f.name.c_str(), rec.c_str(),
                  static_cast<long long>(f.end - f.start));
      if (f.group.empty()) continue;
      // Sends issued strictly after the fault began: an answer already on its way when the master
      // died says nothing about the new one.
      int64_t first = -1;
      for (auto& [began, answered] : groupAcks[f.group])
        if (began > f.start && (first < 0 || answered < first)) first = answered;
      std::string fo = first < 0 ? "none" : std::to_string(first - f.start);
      std::printf("failover_ms %s=%s (group %s)\n", f.name.c_str(), fo.c_str(), f.group.c_str());
    }
    // Each lost or duplicated id goes to the last fault that began before it was first sent.
    auto faultOf = [&](const std::string& id) -> int {
      int64_t at = firstSent.count(id) ? firstSent[id] : 0;
      int idx = -1;
      for (size_t i = 0; i < faults.size(); ++i)
        if (faults[i].start <= at) idx = static_cast<int>(i);
      return idx;
    };
    std::vector<int64_t> faultLost(faults.size(), 0), faultDup(faults.size(), 0);
    for (auto& id : lostIds)
      if (int i = faultOf(id); i >= 0) ++faultLost[static_cast<size_t>(i)];
    for (auto& [id, n] : seen)
      if (int i = faultOf(id); i >= 0 && n > 1) faultDup[static_cast<size_t>(i)] += n - 1;
    for (size_t i = 0; i < faults.size(); ++i)
      std::printf("fault_loss %s lost=%lld duplicates=%lld\n", faults[i].name.c_str(),
                  static_cast<long long>(faultLost[i]), static_cast<long long>(faultDup[i]));
  }
  int64_t popViolations = popPath.empty() ? 0 : checkPopLog(popPath, status, faults);
  return lost == 0 && orderViolations == 0 && popViolations == 0 ? 0 : 1;
}

Registrar checkRegistrar("drill-check", "drill: lost acknowledged messages, duplicates, order, recovery times",
                         {{"--send <file>", "send log (default send.log)"},
                          {"--recv <file>", "receive log (default recv.log)"},
                          {"--faults <file>", "fault log: F <name> <start ms> <end ms> [<brokerName>]"},
                          {"--pop <file>", "pop log of drill-pop-consume: POP deliveries and acks checked too"}},
                         &runDrillCheck);

}  // namespace
}  // namespace rmq::bench
