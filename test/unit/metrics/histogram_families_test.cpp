// The group-commit histograms' bucket sets (flush seconds, batch size) in the text format, and
// quantile() (rocketmq_brokeruntime_put_latency_99 / _999) from cumulative buckets.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "metrics/metric_types.h"
#include "metrics/text_writer.h"

using namespace rmq::metrics;

TEST_CASE("metrics histogram: group-commit batch sizes as cumulative power-of-two buckets, _sum = sends, _count = flushes") {
  Histogram h(Histogram::batchSizes());
  for (double batch : {1, 1, 3, 8, 9, 2000}) h.observe(batch);
  TextWriter w;
  w.histogram("rmqnode_group_commit_batch_size", "Sends completed per group-commit flush (SYNC_FLUSH).",
              {{"cluster", "C"}, {"broker", "b"}}, h.snapshot());
  const std::string l = "rmqnode_group_commit_batch_size_bucket{cluster=\"C\",broker=\"b\",le=";
  CHECK(w.text() ==
        "# HELP rmqnode_group_commit_batch_size Sends completed per group-commit flush (SYNC_FLUSH).\n"
        "# TYPE rmqnode_group_commit_batch_size histogram\n" +
            l + "\"1\"} 2\n" + l + "\"2\"} 2\n" + l + "\"4\"} 3\n" + l + "\"8\"} 4\n" + l + "\"16\"} 5\n" + l +
            "\"32\"} 5\n" + l + "\"64\"} 5\n" + l + "\"128\"} 5\n" + l + "\"256\"} 5\n" + l + "\"512\"} 5\n" + l +
            "\"1024\"} 5\n" + l + "\"+Inf\"} 6\n" +
            "rmqnode_group_commit_batch_size_sum{cluster=\"C\",broker=\"b\"} 2022\n"
            "rmqnode_group_commit_batch_size_count{cluster=\"C\",broker=\"b\"} 6\n");
}

TEST_CASE("metrics histogram: flush-seconds buckets run from 10 us to 5 s, le printed shortest") {
  Histogram h(Histogram::flushSeconds());
  h.observe(0.00003);  // 30 us: the 50 us bucket
  h.observe(0.004);    // 4 ms: the 5 ms bucket
  TextWriter w;
  w.histogram("f_seconds", "flush", {}, h.snapshot());
  const std::string& t = w.text();
  CHECK(t.find("f_seconds_bucket{le=\"1e-05\"} 0\n") != std::string::npos);
  CHECK(t.find("f_seconds_bucket{le=\"2.5e-05\"} 0\n") != std::string::npos);
  CHECK(t.find("f_seconds_bucket{le=\"5e-05\"} 1\n") != std::string::npos);
  CHECK(t.find("f_seconds_bucket{le=\"0.0025\"} 1\n") != std::string::npos);
  CHECK(t.find("f_seconds_bucket{le=\"0.005\"} 2\n") != std::string::npos);
  CHECK(t.find("f_seconds_bucket{le=\"5\"} 2\n") != std::string::npos);
  CHECK(t.find("f_seconds_bucket{le=\"+Inf\"} 2\nf_seconds_sum 0.00403\nf_seconds_count 2\n") != std::string::npos);
}

TEST_CASE("metrics quantile: linear inside the bucket holding the rank, as Prometheus' histogram_quantile") {
  Histogram empty({1, 2});
  CHECK(quantile(empty.snapshot(), 0.99) == 0);

  Histogram h({10, 20, 40});
  for (int i = 0; i < 50; ++i) h.observe(5);   // bucket le=10
  for (int i = 0; i < 50; ++i) h.observe(15);  // bucket le=20
  auto s = h.snapshot();
  CHECK(quantile(s, 0.5) == doctest::Approx(10));   // rank 50: the top of the first bucket
  CHECK(quantile(s, 0.25) == doctest::Approx(5));   // rank 25: half way into [0, 10]
  CHECK(quantile(s, 0.75) == doctest::Approx(15));  // rank 75: half way into (10, 20]
  CHECK(quantile(s, 0.99) == doctest::Approx(19.8));

  h.observe(1000);  // beyond the last bound: the highest finite bound
  CHECK(quantile(h.snapshot(), 0.999) == doctest::Approx(40));
}
