// `rmqbench store`: store engine throughput beside the raw disk limit, measured in one run on the
// same directory: sequential write and write+fsync of the same bytes; appends (1 KiB bodies) with
// ASYNC_FLUSH and SYNC_FLUSH (group commit) for 1/16/256 concurrent appenders (coroutines on two
// threads with an io_context each, awaiting durability as broker connections do), with SYNC_FLUSH set against the disk's
// group-commit limit (appenders / durable-write latency, msync as measured in the run and
// write+fdatasync of one record and of one batch sampled around each of --slices slices of the run;
// --repeat N for medians); pull-path read throughput; recovery
// time after a crash for --recover-mb of commit log (normal, abnormal, and full CQ rebuild).
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <time.h>

#include <algorithm>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
// Process CPU seconds (user + system, all threads): robust on a loaded machine, unlike wall time.
double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

// Minor page faults of the calling thread so far.
long threadMinorFaults() {
  rusage ru{};
  ::getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_minflt;
}

struct Options {
  std::string dir = "/tmp";     // a fresh subdirectory is created (and removed) inside it
  int64_t messages = 200000;  // per append scenario
  int64_t syncMessages = 5000;
  int bodySize = 1024;
  int64_t recoverMb = 1024;
  int64_t fileMb = 1024;
  std::string only = "raw,append,read,recovery";  // comma-separated parts to run
  std::string flush = "sync,async";                // append runs: which flush modes
  std::vector<int> appenders{1, 16, 256};          // append runs: concurrent appenders
  int repeat = 1;                                  // SYNC_FLUSH append runs: rounds (disk latency drifts)
  int slices = 8;                                  // SYNC_FLUSH append runs: slices between latency samples
  bool verbose = false;
  bool runs(const char* part) const { return only.find(part) != std::string::npos; }
};

Options readOptions(const OptionValues& args) {
  Options o;
  o.dir = args.get({"dir"}, o.dir);
  o.messages = args.getInt({"messages"}, o.messages);
  o.syncMessages = args.getInt({"sync-messages"}, o.syncMessages);
  o.bodySize = static_cast<int>(args.getInt({"body"}, o.bodySize));
  o.recoverMb = args.getInt({"recover-mb"}, o.recoverMb);
  o.fileMb = args.getInt({"file-mb"}, o.fileMb);
  o.slices = static_cast<int>(args.getInt({"slices"}, o.slices));
  o.only = args.get({"only"}, o.only);
  o.flush = args.get({"flush"}, o.flush);
  o.repeat = static_cast<int>(args.getInt({"repeat"}, o.repeat));
  std::string appenders = args.get({"appenders"}, std::string());
  if (!appenders.empty()) {
    o.appenders.clear();
    for (const char* p = appenders.c_str(); *p;) {
      char* end = nullptr;
      long n = std::strtol(p, &end, 10);
      if (end == p || n <= 0) {
        o.appenders.clear();  // rejected by runStoreBench
        break;
      }
      o.appenders.push_back(static_cast<int>(n));
      p = *end == ',' ? end + 1 : end;
    }
  }
  o.verbose = args.flag("verbose");
  return o;
}

struct Sample {
  std::string topic = "BenchTopic";
  std::string body;
  std::string props = encodeProperties({{"TAGS", "TagA"}, {"KEYS", "bench-key"},
                                        {"UNIQ_KEY", "7F000001518C18B4AAC2830C6BF90000"}});
  explicit Sample(int size) : body(static_cast<size_t>(size), 'x') {}
  store::MessageToStore msg(int queueId) const {
    store::MessageToStore m;
    m.topic = topic;
    m.queueId = queueId;
    m.body = body;
    m.properties = props;
    m.bornTimestamp = 1700000000000;
    HostAddress::parse("127.0.0.1:50000", m.bornHost);
    return m;
  }
};

store::StoreConfig benchConfig(const Options& o, const std::string& root, bool sync) {
  store::StoreConfig c;
  c.storePathRootDir = root;
  c.mappedFileSizeCommitLog = static_cast<int32_t>(std::min<int64_t>(o.fileMb << 20, 1 << 30));
  c.flushDiskType = sync ? "SYNC_FLUSH" : "ASYNC_FLUSH";
  c.deleteWhen = "99";
  return c;
}

HostAddress benchHost() {
  HostAddress h;
  HostAddress::parse("127.0.0.1:10911", h);
  return h;
}

struct FsyncSample {
  int64_t records = 0;
  double seconds = 0;
  double micros() const { return records > 0 ? seconds / records * 1e6 : 0; }
};

// write + fdatasync of `batch` records at a time (one write) to a fresh file (fd < 0: appended,
// the file grows), or into `fd` at `*pos` onwards (a probe file reserved like a commit log file:
// each fdatasync converts the written range from unwritten and writes the inode, as the store's
// msync does): the disk's durable-write latency for one record, or for one group commit of
// `batch` records (more bytes per flush).
FsyncSample fdatasyncLatency(const Options& o, int64_t recordBytes, int64_t maxWrites, double maxSeconds,
                             int batch = 1, int fd = -1, int64_t* pos = nullptr) {
  std::string path = o.dir + "/fsync.bin";
  const bool own = fd < 0;
  if (own) fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  std::string rec(static_cast<size_t>(recordBytes * batch), 'r');
  FsyncSample out;
  auto t0 = Clock::now();
  while (out.records < maxWrites && secondsSince(t0) < maxSeconds) {
    ssize_t n = own ? ::write(fd, rec.data(), rec.size()) : ::pwrite(fd, rec.data(), rec.size(), *pos);
    if (n < 0 || ::fdatasync(fd) != 0) break;
    if (!own) *pos += static_cast<int64_t>(rec.size());
    ++out.records;
  }
  out.seconds = secondsSince(t0);
  if (!own) return out;
  ::close(fd);
  fs::remove(path);
  return out;
}

void rawDisk(const Options& o, int64_t recordBytes) {
  std::string path = o.dir + "/raw.bin";
  int64_t total = recordBytes * o.messages;
  std::string chunk(1 << 20, 'x');
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  auto t0 = Clock::now();
  for (int64_t done = 0; done < total; done += static_cast<int64_t>(chunk.size()))
    if (::write(fd, chunk.data(), chunk.size()) < 0) break;
  double w = secondsSince(t0);
  ::fdatasync(fd);
  double wf = secondsSince(t0);
  std::printf("raw  sequential write (1 MiB writes)     %8.0f MB/s  = %9.0f records/s of %lld B\n",
              total / w / 1e6, total / w / recordBytes, static_cast<long long>(recordBytes));
  std::printf("raw  same bytes + one final fdatasync    %8.0f MB/s  = %9.0f records/s\n", total / wf / 1e6,
              total / wf / recordBytes);
  ::close(fd);
  fs::remove(path);
  // write + fdatasync per record: the limit without group commit.
  FsyncSample f = fdatasyncLatency(o, recordBytes, o.syncMessages, 5.0);
  std::printf("raw  write+fdatasync per record          %8.1f MB/s  = %9.0f records/s (%.0f us each)\n",
              f.records * recordBytes / f.seconds / 1e6, f.records / f.seconds, f.micros());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Share of the disk's group-commit limit that a SYNC_FLUSH run reached: `concurrency` records in
// flight, each needing one durable write, so at most concurrency / latency per second. Latency
// estimates: (1) write+fdatasync of one record (the definition), (2) write+fdatasync of one
// batch of `concurrency` records (what one group commit has to write: the tighter, reachable
// limit), (3) the flusher's own msync times in the run. A shared disk's latency drifts (10x within
// seconds on a loaded VM), so the run is cut into slices, each between two short samples of (1)
// and (2), and each slice's rate is set against the disk as it was around it: medians over slices.
struct GroupCommitReach {
  double vsMsync = 0, vsFdatasync = 0, vsBatch = 0;
};

// Short samples between slices go to one probe file per run, reserved (fallocate) like a commit
// log file and written at advancing offsets, as the store writes: creating and deleting a file per
// sample would add its creation, its directory's sync and (on a `discard` mount) a discard of its
// blocks to what is measured, and appending would add block allocation and a size change.
struct LatencyProbe {
  static constexpr int64_t kSize = 32 << 20;
  std::string path;
  int fd = -1;
  int64_t pos = 0;
  explicit LatencyProbe(std::string p) : path(std::move(p)) {  // empty: no probe
    if (path.empty()) return;
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0 && ::fallocate(fd, 0, 0, kSize) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ~LatencyProbe() {
    if (fd < 0) return;
    ::close(fd);
    fs::remove(path);
  }
};

struct DiskLatency {
  FsyncSample record, batch;
  void sample(const Options& o, int64_t recordBytes, int concurrency, int64_t writes, LatencyProbe& probe) {
    if (probe.fd < 0) return;
    for (int i = 0; i < 2; ++i) {
      if (probe.pos + 2 * writes * concurrency * recordBytes > LatencyProbe::kSize) probe.pos = 0;
      auto r = fdatasyncLatency(o, recordBytes, writes / 2, 0.25, 1, probe.fd, &probe.pos);
      auto b = fdatasyncLatency(o, recordBytes, writes / 2, 0.25, concurrency, probe.fd, &probe.pos);
      record.records += r.records, record.seconds += r.seconds;
      batch.records += b.records, batch.seconds += b.seconds;
    }
  }
};

GroupCommitReach appendRun(const Options& o, bool sync, int concurrency, int64_t recordBytes) {
  std::string root = o.dir + "/append";
  fs::remove_all(root);
  GroupCommitReach reach;
  store::MessageStore st(benchConfig(o, root, sync), benchHost());
  if (!st.open().ok()) return reach;
  st.start();
  Sample sample(o.bodySize);
  const int64_t total = sync ? o.syncMessages : o.messages;
  const int slices = sync ? o.slices : 1;
  std::atomic<int64_t> failed{0};
  // Two network threads with an io_context each, appenders spread over them round-robin: the
  // broker's IoPool shape (a connection stays on its thread).
  asio::io_context ios[2];
  double secs = 0, cpu = 0;
  long appendFaults = 0;  // page faults taken on the two appending threads
  DiskLatency disk;  // all samples of the run
  std::vector<double> vsRecord, vsBatch, vsMsync;
  store::GroupCommitStats prev{};
  LatencyProbe probe(sync ? o.dir + "/latency.bin" : "");
  if (sync) {  // the probe file's first syncs (its directory, the fallocate) aside
    DiskLatency warmup;
    warmup.sample(o, recordBytes, concurrency, 4, probe);
  }
  for (int slice = 0; slice < slices; ++slice) {
    DiskLatency around;
    if (sync) around.sample(o, recordBytes, concurrency, 16, probe);
    std::atomic<int64_t> left{total * (slice + 1) / slices - total * slice / slices};
    for (int c = 0; c < concurrency; ++c) {
      asio::co_spawn(ios[c % 2], [&, c]() -> asio::awaitable<void> {
        auto m = sample.msg(c % 8);
        while (left.fetch_sub(1) > 0) {
          auto r = st.append(m);
          if (!r.ok()) { ++failed; continue; }
          if (sync) {
            auto s = co_await st.asyncWaitDurable(r.endOffset(), asio::use_awaitable);
            if (s != store::PutStatus::PUT_OK) ++failed;
          }
        }
      }, asio::detached);
    }
    auto t0 = Clock::now();
    double c0 = cpuSeconds();
    std::atomic<long> helperFaults{0};
    std::thread helper([&] {
      long f0 = threadMinorFaults();
      ios[1].run();
      helperFaults = threadMinorFaults() - f0;
    });
    long f0 = threadMinorFaults();
    ios[0].run();
    appendFaults += threadMinorFaults() - f0;
    helper.join();
    appendFaults += helperFaults.load();
    const double sliceSecs = secondsSince(t0);
    secs += sliceSecs;
    cpu += cpuSeconds() - c0;
    for (auto& io : ios) io.restart();
    if (!sync) break;
    around.sample(o, recordBytes, concurrency, 16, probe);
    auto gc = st.groupCommitStats();
    const double rate = double(total * (slice + 1) / slices - total * slice / slices) / sliceSecs;
    const double flushes = double(gc.flushes - prev.flushes);
    if (flushes > 0) {
      auto limit = [&](double micros) { return concurrency / (micros / 1e6); };
      vsRecord.push_back(rate / limit(around.record.micros()));
      vsBatch.push_back(rate / limit(around.batch.micros()));
      vsMsync.push_back(rate / limit(double(gc.flushNanos - prev.flushNanos) / 1e3 / flushes));
    }
    prev = gc;
    disk.record.records += around.record.records, disk.record.seconds += around.record.seconds;
    disk.batch.records += around.batch.records, disk.batch.seconds += around.batch.seconds;
  }
  int64_t bytes = st.maxPhyOffset();
  std::printf("store append %-11s x%-3d            %8.0f MB/s  = %9.0f msgs/s   (%lld msgs, %lld failed, %.1f us CPU/msg,"
              " %.2f page faults/msg on the appending threads)\n",
              sync ? "SYNC_FLUSH" : "ASYNC_FLUSH", concurrency, bytes / secs / 1e6, total / secs,
              static_cast<long long>(total), static_cast<long long>(failed.load()), cpu / total * 1e6,
              double(appendFaults) / double(total));
  auto gc = st.groupCommitStats();
  st.shutdown();
  if (!sync || gc.flushes == 0) return reach;
  const double msyncUs = gc.flushNanos / 1e3 / gc.flushes;
  reach = {median(vsMsync), median(vsRecord), median(vsBatch)};
  std::printf("      group commit: %.1f waiters/flush, %.0f %% of flushes overlapped another, disk idle %.0f us"
              " between flushes (%llu times), msync %.0f us\n",
              double(gc.waiters) / gc.flushes, 100.0 * double(gc.overlapped) / double(gc.flushes),
              gc.cycles ? gc.gapNanos / 1e3 / gc.cycles : 0.0, static_cast<unsigned long long>(gc.cycles), msyncUs);
  std::printf("      limit = %d in flight / durable-write latency; reached, median of %zu slices each set against\n"
              "      the latency sampled around it (whole-run mean latency in brackets):\n"
              "        %5.1f %% of the limit by write+fdatasync of 1 record     (%5.0f us)\n"
              "        %5.1f %% of the limit by write+fdatasync of %d records   (%5.0f us)\n"
              "        %5.1f %% of the limit by the flusher's msync in the run (%5.0f us)\n",
              concurrency, vsRecord.size(), 100 * reach.vsFdatasync, disk.record.micros(), 100 * reach.vsBatch,
              concurrency, disk.batch.micros(), 100 * reach.vsMsync, msyncUs);
  return reach;
}

// Returns whether the last run was an ASYNC_FLUSH one (its store is what readRun reads).
bool appendRuns(const Options& o, int64_t recordBytes) {
  bool lastAsync = false;
  for (const char* mode : {"sync", "async"}) {
    const bool sync = mode[0] == 's';
    bool wanted = false;  // token match: "sync" must not select "async"
    for (size_t p = 0; (p = o.flush.find(mode, p)) != std::string::npos; ++p)
      wanted |= (p == 0 || o.flush[p - 1] == ',');
    if (!wanted) continue;
    for (int c : o.appenders) {
      std::vector<double> vsMsync, vsFsync, vsBatch;
      for (int round = 0; round < (sync ? o.repeat : 1); ++round) {
        auto r = appendRun(o, sync, c, recordBytes);
        lastAsync = !sync;
        vsMsync.push_back(100 * r.vsMsync);
        vsFsync.push_back(100 * r.vsFdatasync);
        vsBatch.push_back(100 * r.vsBatch);
      }
      if (sync && o.repeat > 1)
        std::printf("      x%d over %d rounds: median reached %.1f %% of the 1-record fdatasync limit, %.1f %% of the"
                    " %d-record fdatasync limit, %.1f %% of the msync limit\n",
                    c, o.repeat, median(vsFsync), median(vsBatch), c, median(vsMsync));
    }
  }
  return lastAsync;
}

void readRun(const Options& o) {
  std::string root = o.dir + "/append";  // left by the last append run (ASYNC, full size)
  store::MessageStore st(benchConfig(o, root, false), benchHost());
  if (!st.open().ok()) return;
  st.start();
  auto t0 = Clock::now();
  int64_t msgs = 0, bytes = 0;
  for (int q = 0; q < 8; ++q) {
    int64_t off = 0, max = st.maxOffsetInQueue("BenchTopic", q);
    while (off < max) {
      auto g = st.getMessages("BenchTopic", q, off, 32, 1 << 30, nullptr);
      if (g.status != store::GetStatus::FOUND) break;
      msgs += static_cast<int64_t>(g.records.size());
      bytes += g.totalBytes;
      off = g.nextBeginOffset;
    }
  }
  double secs = secondsSince(t0);
  std::printf("store read (getMessages 32/batch, no copy) %8.0f MB/s  = %9.0f msgs/s   (%lld msgs)\n",
              bytes / secs / 1e6, msgs / secs, static_cast<long long>(msgs));
  st.shutdown();
}

void recoveryRun(const Options& o) {
  std::string root = o.dir + "/recover";
  fs::remove_all(root);
  Sample sample(o.bodySize);
  int64_t target = o.recoverMb << 20;
  {
    store::MessageStore st(benchConfig(o, root, false), benchHost());
    if (!st.open().ok()) return;
    st.start();
    auto m0 = sample.msg(0);
    for (int64_t i = 0; st.maxPhyOffset() < target; ++i) {
      m0.queueId = static_cast<int>(i % 8);
      st.append(m0);
    }
    st.shutdown();
  }
  auto reopen = [&](const char* what) {
    auto t0 = Clock::now();
    double c0 = cpuSeconds();
    store::MessageStore st(benchConfig(o, root, false), benchHost());
    bool ok = st.open().ok();
    double secs = secondsSince(t0), cpu = cpuSeconds() - c0;
    int64_t size = st.maxPhyOffset();
    std::printf("recovery %-42s %6.3f s wall, %6.3f s CPU for %lld MiB = %.2f s/GiB wall (%s, page cache warm)\n",
                what, secs, cpu, static_cast<long long>(size >> 20), secs * 1024.0 / std::max<int64_t>(1, size >> 20),
                ok ? "ok" : "FAILED");
    st.shutdown();
  };
  reopen("normal (clean shutdown)");
  std::ofstream(root + "/abort").flush();
  fs::remove(root + "/checkpoint");
  reopen("abnormal, no checkpoint (CRC all files)");
  std::ofstream(root + "/abort").flush();
  fs::remove(root + "/checkpoint");
  fs::remove_all(root + "/consumequeue");
  fs::remove_all(root + "/index");
  reopen("abnormal, CQ+index deleted (full rebuild)");
  fs::remove_all(root);
}

int runStoreBench(OptionValues& args) {
  Options o = readOptions(args);
  if (o.messages < 1 || o.syncMessages < 1 || o.bodySize < 1 || o.recoverMb < 1 || o.fileMb < 1 || o.repeat < 1 ||
      o.slices < 1) {
    args.addError("--messages, --sync-messages, --body, --recover-mb, --file-mb, --repeat and --slices must be >= 1");
    return 2;
  }
  if (o.appenders.empty()) {
    args.addError("--appenders: a comma-separated list of counts >= 1, e.g. 1,16,256");
    return 2;
  }
  log::setLevel(o.verbose ? log::Level::Info : log::Level::Warn);
  o.dir += "/rmqbench-store-" + std::to_string(::getpid());  // never wipe a caller's directory
  fs::create_directories(o.dir);
  Sample sample(o.bodySize);
  auto m = sample.msg(0);
  RecordFields f;
  f.body = m.body;
  f.topic = m.topic;
  f.properties = m.properties;
  int64_t recordBytes = static_cast<int64_t>(recordSize(f));
  std::printf("rmqbench store: dir %s, body %d B (record %lld B), %lld async / %lld sync messages\n",
              o.dir.c_str(), o.bodySize, static_cast<long long>(recordBytes), static_cast<long long>(o.messages),
              static_cast<long long>(o.syncMessages));
  if (o.runs("raw")) rawDisk(o, recordBytes);
  bool asyncStoreLeft = o.runs("append") && appendRuns(o, recordBytes);
  if (o.runs("read") && !asyncStoreLeft) appendRun(o, false, 256, recordBytes);  // the data readRun reads
  if (o.runs("read")) readRun(o);
  if (o.runs("recovery")) recoveryRun(o);
  fs::remove_all(o.dir);
  return 0;
}

Registrar registrar("store", "store engine: append (async/sync, 1/16/256), read, recovery vs raw disk",
                    {{"--dir <dir>", "a fresh subdirectory is made (and removed) in it (default /tmp)"},
                     {"--messages <n>", "per async append run (default 200000)", kInteger},
                     {"--sync-messages <n>", "per sync append run (default 5000)", kInteger},
                     {"--body <bytes>", "body size (default 1024)", kInteger},
                     {"--recover-mb <mb>", "commit log size for the recovery run (default 1024)", kInteger},
                     {"--file-mb <mb>", "commit log file size (default 1024)", kInteger},
                     {"--only <parts>", "comma-separated: raw,append,read,recovery (default all)"},
                     {"--flush <modes>", "append runs: sync,async (default both)"},
                     {"--appenders <list>", "append runs: concurrent appenders, comma-separated (default 1,16,256)"},
                     {"--repeat <n>", "SYNC_FLUSH append runs per appender count, with medians (default 1)", kInteger},
                     {"--slices <n>", "SYNC_FLUSH runs: slices, each set against disk latency sampled around it (default 8)",
                      kInteger},
                     {"--verbose", "store logging at info"}},
                    &runStoreBench);

}  // namespace
}  // namespace rmq::bench
