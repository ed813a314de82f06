#include "roles/broker/stats/request_latency.h"

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

RequestLatency::RequestLatency() {
  for (auto& h : histograms_) h = std::make_unique<metrics::Histogram>(metrics::Histogram::latencySeconds());
}

void RequestLatency::observe(int code, std::chrono::steady_clock::duration elapsed) {
  const auto& t = tracked();
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].code != code) continue;
    histograms_[i]->observe(std::chrono::duration<double>(elapsed).count());
    return;
  }
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
