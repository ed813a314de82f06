#pragma once
// TextWriter: the Prometheus text exposition format 0.0.4 (what GET /metrics answers).
//
//   TextWriter w;
//   w.family("rocketmq_producer_offset", "TopicOffset", "gauge");
//   w.sample("rocketmq_producer_offset", {{"cluster", c}, {"broker", b}, {"topic", t}}, 42);
//   w.histogram("rmqnode_request_seconds", "...", {{"code", "10"}}, h.snapshot());
//   std::string body = w.take();
//
// # HELP / # TYPE are written once per family (the first family() call for a name); label values
// are escaped (\\, \", \n); values print as integers when integral, else shortest round-trip,
// and as +Inf / -Inf / NaN.
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/metric_types.h"

namespace rmq::metrics {

using Label = std::pair<std::string_view, std::string_view>;
using LabelList = std::vector<Label>;

class TextWriter {
 public:
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

  // type: "counter", "gauge", "histogram", "summary" or "untyped".
  void family(std::string_view name, std::string_view help, std::string_view type);
  void sample(std::string_view name, std::initializer_list<Label> labels, double value);
  void sample(std::string_view name, const LabelList& labels, double value);
  // family(name, help, "histogram") + name_bucket{...,le=".."} (cumulative, +Inf last), _sum, _count.
  void histogram(std::string_view name, std::string_view help, const LabelList& labels, const Histogram::Snapshot& s);
  // Bucket lines, _sum and _count only (the family was declared already).
  void histogramSamples(std::string_view name, const LabelList& labels, const Histogram::Snapshot& s);

  const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }

  static void appendLabelValue(std::string& out, std::string_view value);  // escaped, no quotes
  static void appendHelp(std::string& out, std::string_view help);         // escaped \\ and \n
  static std::string formatValue(double v);

 private:
  void line(std::string_view name, const Label* labels, size_t n, const Label* extra, double value);
  std::string out_;
  std::set<std::string, std::less<>> declared_;
};

}  // namespace rmq::metrics
