// `rmqbench rollover`: what warmMapedFileEnable buys. One appender fills --files commit log files
// of --file-mb with --body byte messages (ASYNC_FLUSH), at --rate appends/s (0 = as fast as it
// goes), once without and once with the warm-up (the background allocator writes every page of the
// next file and mlocks it). Per new file: the latency of its first append and the p99 / max of the
// appends into its first MiB (where the page faults of a cold file land); the medians over the
// files are printed per mode, and the p99 of all appends.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "common/log.h"
#include "common/message_codec.h"
#include "store/message_store.h"
#include "tools/rmqbench/bench_registry.h"

namespace rmq::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double usOf(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

struct Result {
  std::vector<double> first, headP99, headMax;  // per new file
  std::vector<double> all;
};

Result runOnce(const std::string& root, bool warm, int64_t fileMb, int files, int body, int64_t rate) {
  store::StoreConfig c;
  c.storePathRootDir = root;
  c.mappedFileSizeCommitLog = static_cast<int32_t>(fileMb << 20);
  c.warmMapedFileEnable = warm;
  c.deleteWhen = "99";
  HostAddress host;
  HostAddress::parse("127.0.0.1:10911", host);
  store::MessageStore s(c, host);
  Result r;
  if (auto o = s.open(); !o) {
    std::fprintf(stderr, "open: %s\n", o.error().message.c_str());
    return r;
  }
  s.start();
  std::string payload(static_cast<size_t>(body), 'x');
  std::string props = encodeProperties({{"TAGS", "TagA"}});
  store::MessageToStore m;
  m.topic = "RolloverBench";
  m.body = payload;
  m.properties = props;
  m.bornTimestamp = 1700000000000;
  HostAddress::parse("127.0.0.1:50000", m.bornHost);
  const int64_t fileSize = fileMb << 20;
  const int64_t end = fileSize * files;
  std::vector<double> head;
  int64_t fileIndex = 0;
  auto pace = rate > 0 ? std::chrono::nanoseconds(1000000000 / rate) : std::chrono::nanoseconds(0);
  auto next = Clock::now();
  while (s.maxPhyOffset() < end) {
    if (rate > 0) {
      next += pace;
      std::this_thread::sleep_until(next);
    }
    auto t0 = Clock::now();
    auto a = s.append(m);
    double us = usOf(Clock::now() - t0);
    if (!a.ok()) break;
    r.all.push_back(us);
    int64_t idx = a.physicalOffset / fileSize;
    if (idx != fileIndex) {  // the first append of a new file (file 0 is created at open: skipped)
      if (!head.empty() && fileIndex > 0) {
        r.headP99.push_back(percentile(head, 0.99));
        r.headMax.push_back(*std::max_element(head.begin(), head.end()));
      }
      head.clear();
      fileIndex = idx;
      r.first.push_back(us);
    }
    if (fileIndex > 0 && a.physicalOffset % fileSize < (1 << 20)) head.push_back(us);
  }
  s.shutdown();
  return r;
}

int runRolloverBench(OptionValues& args) {
  std::string dir = args.get({"dir"}, "/tmp");
  int64_t fileMb = args.getInt({"file-mb"}, 64);
  int files = static_cast<int>(args.getInt({"files"}, 8));
  int body = static_cast<int>(args.getInt({"body"}, 4096));
  int64_t rate = args.getInt({"rate"}, 0);
  if (fileMb < 1 || fileMb > 1024 || files < 2 || body < 1) {
    args.addError("--file-mb 1..1024, --files >= 2, --body >= 1");
    return 2;
  }
  log::setLevel(log::Level::Warn);
  std::printf("rmqbench rollover: %d files of %lld MiB, body %d B, rate %s\n", files, static_cast<long long>(fileMb),
              body, rate > 0 ? std::to_string(rate).c_str() : "max");
  for (bool warm : {false, true}) {
    std::string root = dir + "/rmqbench-rollover-" + std::to_string(::getpid()) + (warm ? "-warm" : "-cold");
    fs::remove_all(root);
    auto r = runOnce(root, warm, fileMb, files, body, rate);
    fs::remove_all(root);
    std::printf("warmMapedFileEnable=%-5s first append of a new file: median %8.1f us, max %8.1f us | first MiB: "
                "p99 median %7.1f us, max median %8.1f us | all appends p99 %6.1f us (%zu appends)\n",
                warm ? "true" : "false", percentile(r.first, 0.5),
                r.first.empty() ? 0 : *std::max_element(r.first.begin(), r.first.end()), percentile(r.headP99, 0.5),
                percentile(r.headMax, 0.5), percentile(r.all, 0.99), r.all.size());
  }
  return 0;
}

Registrar registrar("rollover", "store: append latency at new commit log files, warmMapedFileEnable off vs on",
                    {{"--dir <dir>", "a fresh subdirectory is made (and removed) in it (default /tmp)"},
                     {"--file-mb <mb>", "commit log file size (default 64)", kInteger},
                     {"--files <n>", "files to fill (default 8)", kInteger},
                     {"--body <bytes>", "body size (default 4096)", kInteger},
                     {"--rate <n>", "appends per second (default 0 = as fast as possible)", kInteger}},
                    &runRolloverBench);

}  // namespace
}  // namespace rmq::bench
