#pragma once
// The standard process_* figures (as Prometheus client libraries name them): resident and
// virtual memory, open file descriptors, CPU seconds, start time. Read from /proc at scrape time.
#include "metrics/text_writer.h"

namespace rmq::metrics {

void writeProcessMetrics(TextWriter& w);

}  // namespace rmq::metrics
