// Classifies every delivery of the pop log (drill_pop.cpp) after the first of its id by what
// happened to the delivery before it:
//   skipped            left un-acked on purpose (--skip-every): comes back after its invisible time
//   late               acked after its invisible time on purpose (--late-every): the broker refuses
//                      the ack (INVALID_RECEIPT_HANDLE) and redelivers
//   in_flight_at_kill  delivered, then a fault (kill -9) began before its ack was sent (the ack,
//                      if any, went to the dead or restarting broker and failed)
//   ack_lost_at_kill   its ack was sent before the fault began but not answered OK (LOST or an
//                      error): it was not durable (or not stored at all) when the broker died
//   ack_too_late       its ack was refused without a fault (the consumer was slower than the
//                      invisible time)
//   acked_redelivered  its ack was answered OK and it came again anyway: a violation
//   unexplained        none of those: a violation
// and prints the redelivery delay (redelivery minus the previous delivery's invisible-time end) of
// the skipped and late ones that no fault interrupted.
#include "tools/rmqbench/drill_pop_check.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace rmq::bench {
namespace {

struct Delivery {
  int attempt = 0;
  std::string plan;
  int64_t due = -1, ms = 0;
};

struct AckAnswer {
  std::string result;  // OK, LOST or a v2 code
  int64_t sent = 0;
};

using AckKey = std::pair<std::string, int>;  // id, attempt

struct PopLog {
  std::unordered_map<std::string, std::vector<Delivery>> deliveries;
  std::map<AckKey, std::vector<AckAnswer>> acks;
  int64_t lines = 0;
};

PopLog readPopLog(const std::string& path) {
  PopLog log;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag, id;
    ls >> tag >> id;
    if (tag == "D") {
      Delivery d;
      int32_t qid = 0;
      int64_t qoff = 0;
      if (ls >> d.attempt >> qid >> qoff >> d.plan >> d.due >> d.ms) log.deliveries[id].push_back(d), ++log.lines;
    } else if (tag == "A") {
      int attempt = 0;
      AckAnswer a;
      int64_t answered = 0;
      if (ls >> attempt >> a.result >> a.sent >> answered) log.acks[{id, attempt}].push_back(a), ++log.lines;
    }
  }
  for (auto& [id, ds] : log.deliveries)
    std::stable_sort(ds.begin(), ds.end(), [](const Delivery& a, const Delivery& b) { return a.ms < b.ms; });
  return log;
}

// The answer to the ack of delivery `d` of `id` sent before `until`: an OK one if any was, else the
// last one; result "" when none was sent.
AckAnswer ackOf(const PopLog& log, const std::string& id, const Delivery& d, int64_t until) {
  auto it = log.acks.find({id, d.attempt});
  if (it == log.acks.end()) return {};
  AckAnswer out;
  for (const auto& a : it->second) {
    if (a.sent < d.ms || a.sent > until) continue;
    if (a.result == "OK") return a;
    out = a;
  }
  return out;
}

// The start of the first fault whose window [start, end] overlaps [from, to], -1 if none does.
// Overlap, not "began in between": the drill takes a fault's start just before the signal, so a
// delivery logged a few ms after that start may still come from the broker about to die.
int64_t faultBetween(const std::vector<DrillFault>& faults, int64_t from, int64_t to) {
  for (const auto& f : faults)
    if (f.start <= to && f.end >= from) return f.start;
  return -1;
}

int64_t percentile(std::vector<int64_t>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * double(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

int64_t checkPopLog(const std::string& path, const std::unordered_map<std::string, std::string>& sendStatus,
                    const std::vector<DrillFault>& faults) {
  PopLog log = readPopLog(path);
  std::map<std::string, int64_t> classes{{"skipped", 0},          {"late", 0},         {"in_flight_at_kill", 0},
                                         {"ack_lost_at_kill", 0}, {"ack_too_late", 0}, {"acked_redelivered", 0},
                                         {"unexplained", 0}};
  std::vector<int64_t> delays;
  int64_t deliveries = 0, lateOk = 0, lateRefused = 0, unfinished = 0, lost = 0, unackedDelivered = 0;
  std::vector<std::string> samples;
  for (const auto& [id, ds] : log.deliveries) {
    deliveries += static_cast<int64_t>(ds.size());
    for (size_t i = 0; i < ds.size(); ++i) {
      const Delivery& d = ds[i];
      const int64_t until = i + 1 < ds.size() ? ds[i + 1].ms : INT64_MAX;
      const AckAnswer answer = ackOf(log, id, d, until);
      const std::string& ack = answer.result;
      if (d.plan == "late") {  // its late ack may follow the redelivery
        std::string any = ackOf(log, id, d, INT64_MAX).result;
        if (!any.empty()) (any == "OK" ? lateOk : lateRefused)++;
      }
      if (i + 1 == ds.size()) {
        if (ack != "OK") ++unfinished;
        continue;
      }
      const int64_t faultStart = faultBetween(faults, d.ms, until);
      const bool fault = faultStart >= 0;
      // An ack sent before the fault began and not answered OK was on its way (or not yet durable)
      // when the broker died; one not sent by then leaves the message in flight at the kill.
      const bool ackBeforeFault = !ack.empty() && answer.sent < faultStart;
      std::string cls = ack == "OK"                   ? "acked_redelivered"
                        : d.plan == "skip"            ? "skipped"
                        : d.plan == "late"            ? "late"
                        : fault && ackBeforeFault     ? "ack_lost_at_kill"
                        : fault                       ? "in_flight_at_kill"
                        : !ack.empty() && ack != "LOST" ? "ack_too_late"
                                                        : "unexplained";
      ++classes[cls];
      if ((cls == "acked_redelivered" || cls == "unexplained") && samples.size() < 5)
        samples.push_back(cls + " " + id + " attempt " + std::to_string(d.attempt));
      if ((cls == "skipped" || cls == "late") && !fault && d.due > 0) delays.push_back(until - d.due);
    }
  }
  for (const auto& [id, st] : sendStatus) {
    bool got = log.deliveries.count(id) != 0;
    if (st == "SEND_OK" && !got) {
      if (lost++ < 5) samples.push_back("pop_lost " + id);
    }
    if (st != "SEND_OK" && got) ++unackedDelivered;
  }
  int64_t redeliveries = 0;
  for (const auto& [c, n] : classes) redeliveries += n;
  std::printf("pop_deliveries=%lld\npop_distinct=%zu\npop_lost=%lld\npop_redeliveries=%lld\n",
              static_cast<long long>(deliveries), log.deliveries.size(), static_cast<long long>(lost),
              static_cast<long long>(redeliveries));
  for (const auto& [c, n] : classes) std::printf("pop_redelivered_%s=%lld\n", c.c_str(), static_cast<long long>(n));
  std::printf("pop_late_acks_ok=%lld\npop_late_acks_refused=%lld\npop_not_acked_at_end=%lld\n"
              "pop_unacked_sends_delivered=%lld\n",
              static_cast<long long>(lateOk), static_cast<long long>(lateRefused), static_cast<long long>(unfinished),
              static_cast<long long>(unackedDelivered));
  std::printf("pop_redelivery_delay_ms n=%zu p50=%lld p99=%lld max=%lld\n", delays.size(),
              static_cast<long long>(percentile(delays, 0.5)), static_cast<long long>(percentile(delays, 0.99)),
              static_cast<long long>(delays.empty() ? 0 : *std::max_element(delays.begin(), delays.end())));
  for (const auto& s : samples) std::printf("pop_sample=%s\n", s.c_str());
  return lost + classes["acked_redelivered"] + classes["unexplained"];
}

}  // namespace rmq::bench
