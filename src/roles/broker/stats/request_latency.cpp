#include "roles/broker/stats/request_latency.h"

#include <iterator>
#include <string>

#include "common/request_code.h"

namespace rmq::broker {

const std::array<RequestLatency::Tracked, 12>& RequestLatency::tracked() {
  static const std::array<Tracked, 12> table{{
      {RequestCode::SEND_MESSAGE, "SEND_MESSAGE"},
      {RequestCode::SEND_MESSAGE_V2, "SEND_MESSAGE_V2"},
      {RequestCode::SEND_BATCH_MESSAGE, "SEND_BATCH_MESSAGE"},
      {RequestCode::SEND_REPLY_MESSAGE, "SEND_REPLY_MESSAGE"},
      {RequestCode::SEND_REPLY_MESSAGE_V2, "SEND_REPLY_MESSAGE_V2"},
      {RequestCode::PULL_MESSAGE, "PULL_MESSAGE"},
      {RequestCode::CONSUMER_SEND_MSG_BACK, "CONSUMER_SEND_MSG_BACK"},
      {RequestCode::END_TRANSACTION, "END_TRANSACTION"},
      {RequestCode::HEART_BEAT, "HEART_BEAT"},
      {RequestCode::QUERY_CONSUMER_OFFSET, "QUERY_CONSUMER_OFFSET"},
      {RequestCode::UPDATE_CONSUMER_OFFSET, "UPDATE_CONSUMER_OFFSET"},
      {RequestCode::GET_CONSUMER_LIST_BY_GROUP, "GET_CONSUMER_LIST_BY_GROUP"},
  }};
  return table;
}

namespace {
// Upper bounds (ms) of Java's putMessageDistributeTime ranges; "0ms" is below 1 ms.
constexpr double kPutBoundsMs[] = {0.999, 10, 50, 100, 200, 500, 1000, 2000, 3000, 4000, 5000, 10000};
constexpr std::string_view kPutSuffixes[] = {"0ms",      "0to10ms", "10to50ms", "50to100ms", "100to200ms",
                                             "200to500ms", "500to1s", "1to2s",    "2to3s",     "3to4s",
                                             "4to5s",    "5to10s",  "10stomore"};
bool isSend(int code) {
  return code == RequestCode::SEND_MESSAGE || code == RequestCode::SEND_MESSAGE_V2 ||
         code == RequestCode::SEND_BATCH_MESSAGE;
}
}  // namespace

RequestLatency::RequestLatency() : putDistribution_(std::vector<double>(std::begin(kPutBoundsMs), std::end(kPutBoundsMs))) {
  for (auto& h : histograms_) h = std::make_unique<metrics::Histogram>(metrics::Histogram::latencySeconds());
}

void RequestLatency::observe(int code, std::chrono::steady_clock::duration elapsed) {
  if (isSend(code)) putDistribution_.observe(std::chrono::duration<double, std::milli>(elapsed).count());
  const auto& t = tracked();
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].code != code) continue;
    histograms_[i]->observe(std::chrono::duration<double>(elapsed).count());
    return;
  }
}

std::vector<std::pair<std::string_view, uint64_t>> RequestLatency::putDistribution() const {
  auto s = putDistribution_.snapshot();
  std::vector<std::pair<std::string_view, uint64_t>> out;
  uint64_t below = 0;
  for (size_t i = 0; i < s.cumulative.size(); ++i) {
    out.emplace_back(kPutSuffixes[i], s.cumulative[i] - below);
    below = s.cumulative[i];
  }
  return out;
}

const std::array<std::string_view, 13>& RequestLatency::javaPutRanges() {
  static const std::array<std::string_view, 13> ranges{"[<=0ms]",     "[0~10ms]",  "[10~50ms]", "[50~100ms]", "[100~200ms]",
                                                       "[200~500ms]", "[500ms~1s]", "[1~2s]",    "[2~3s]",     "[3~4s]",
                                                       "[4~5s]",      "[5~10s]",   "[10s~]"};
  return ranges;
}

double RequestLatency::putLatencyMillis(double q) const { return metrics::quantile(sendLatencies(), q) * 1000.0; }

metrics::Histogram::Snapshot RequestLatency::sendLatencies() const {
  metrics::Histogram::Snapshot sends;
  const auto& t = tracked();
  for (size_t i = 0; i < t.size(); ++i) {
    if (!isSend(t[i].code)) continue;
    auto s = histograms_[i]->snapshot();
    if (sends.cumulative.empty()) {
      sends = std::move(s);
      continue;
    }
    for (size_t b = 0; b < s.cumulative.size(); ++b) sends.cumulative[b] += s.cumulative[b];
    sends.count += s.count;
    sends.sum += s.sum;
  }
  return sends;
}

void RequestLatency::write(metrics::TextWriter& w, const metrics::LabelList& brokerLabels) const {
  constexpr std::string_view name = "rmqnode_request_duration_seconds";
  w.family(name, "Time a broker request took to process (a long-polled pull: including the time it was parked), by request code.",
           "histogram");
  const auto& t = tracked();
  for (size_t i = 0; i < t.size(); ++i) {
    std::string code = std::to_string(t[i].code);
    metrics::LabelList labels = brokerLabels;
    labels.emplace_back("code", code);
    labels.emplace_back("request", t[i].name);
    w.histogramSamples(name, labels, histograms_[i]->snapshot());
  }
}

}  // namespace rmq::broker
