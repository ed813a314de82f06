// Prometheus text exposition 0.0.4: escaping, HELP/TYPE once, value formatting, histograms.
#include <doctest/doctest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "metrics/metric_types.h"
#include "metrics/text_writer.h"

using namespace rmq::metrics;

TEST_CASE("metrics text: label values escape backslash, quote and newline; HELP escapes backslash and newline") {
  TextWriter w;
  w.family("m", "a \\ help\nline \"quoted\"", "gauge");
  w.sample("m", {{"k", "a\\b\"c\nd"}, {"e", ""}}, 1);
  CHECK(w.text() ==
        "# HELP m a \\\\ help\\nline \"quoted\"\n"
        "# TYPE m gauge\n"
        "m{k=\"a\\\\b\\\"c\\nd\",e=\"\"} 1\n");
}

TEST_CASE("metrics text: HELP/TYPE once per family; no braces without labels") {
  TextWriter w;
  w.family("c_total", "count", "counter");
  w.sample("c_total", {}, 3);
  w.family("c_total", "count", "counter");
  w.sample("c_total", {{"x", "1"}}, 4);
  CHECK(w.text() == "# HELP c_total count\n# TYPE c_total counter\nc_total 3\nc_total{x=\"1\"} 4\n");
}

TEST_CASE("metrics text: values") {
  CHECK(TextWriter::formatValue(0) == "0");
  CHECK(TextWriter::formatValue(-12) == "-12");
  CHECK(TextWriter::formatValue(1234567890123.0) == "1234567890123");
  CHECK(TextWriter::formatValue(0.25) == "0.25");
  CHECK(TextWriter::formatValue(1e300) == "1e+300");
  CHECK(TextWriter::formatValue(INFINITY) == "+Inf");
  CHECK(TextWriter::formatValue(-INFINITY) == "-Inf");
  CHECK(TextWriter::formatValue(NAN) == "NaN");
}

TEST_CASE("metrics histogram: buckets are cumulative, le is inclusive, +Inf = _count, _sum adds up") {
  Histogram h({0.1, 1, 0.5});  // unsorted on purpose
  for (double v : {0.05, 0.1, 0.3, 0.5, 0.7, 2.0, 100.0}) h.observe(v);
  auto s = h.snapshot();
  REQUIRE(s.upperBounds == std::vector<double>{0.1, 0.5, 1});
  CHECK(s.cumulative == std::vector<uint64_t>{2, 4, 5, 7});
  CHECK(s.count == 7);
  CHECK(s.sum == doctest::Approx(103.65));

  TextWriter w;
  w.histogram("lat_seconds", "latency", {{"code", "10"}}, s);
  CHECK(w.text() ==
        "# HELP lat_seconds latency\n"
        "# TYPE lat_seconds histogram\n"
        "lat_seconds_bucket{code=\"10\",le=\"0.1\"} 2\n"
        "lat_seconds_bucket{code=\"10\",le=\"0.5\"} 4\n"
        "lat_seconds_bucket{code=\"10\",le=\"1\"} 5\n"
        "lat_seconds_bucket{code=\"10\",le=\"+Inf\"} 7\n"
        "lat_seconds_sum{code=\"10\"} 103.65\n"
        "lat_seconds_count{code=\"10\"} 7\n");
}

TEST_CASE("metrics histogram: an empty histogram still writes every bucket, zero sum and count") {
  Histogram h(Histogram::latencySeconds());
  TextWriter w;
  w.histogram("h", "x", {}, h.snapshot());
  std::string t = w.text();
  CHECK(t.find("h_bucket{le=\"0.0001\"} 0\n") != std::string::npos);
  CHECK(t.find("h_bucket{le=\"+Inf\"} 0\n") != std::string::npos);
  CHECK(t.find("h_sum 0\nh_count 0\n") != std::string::npos);
}

TEST_CASE("metrics: counters and histograms updated from several threads lose nothing") {
  Counter c;
  Histogram h({1, 2});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.inc();
        h.observe(i % 3);  // 0, 1, 2
      }
    });
  for (auto& t : threads) t.join();
  CHECK(c.value() == 40000);
  auto s = h.snapshot();
  CHECK(s.count == 40000);
  CHECK(s.cumulative.back() == 40000);
  CHECK(s.sum == doctest::Approx(4 * (3333 * 1 + 3333 * 2 + 1 * 0)).epsilon(0.001));
}
