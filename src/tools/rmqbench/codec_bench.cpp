// `rmqbench codec`: CPU cost of the remoting frame codec (src/net/frame_codec.h) for a typical
// SEND_MESSAGE_V2 request (header keys a..n, properties with KEYS/UNIQ_KEY/WAIT/TAGS), with a JSON
// and a ROCKETMQ header: ns per encode (length words + header into a reused buffer, as the
// connection does; the body then goes out by scatter/gather, uncopied) and per decode (whole frame
// without its length prefix, body copied out of the read buffer once).
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/request_code.h"
#include "net/frame_codec.h"
#include "tools/rmqbench/bench_registry.h"

namespace rmq::bench {
namespace {

// Thread CPU time, not wall time: the figure stays meaningful on a machine busy with other work.
double cpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

template <class T>
inline void keep(T&& v) { asm volatile("" : : "g"(&v) : "memory"); }

net::RemotingCommand typicalSend(net::SerializeType type, size_t bodySize) {
  auto cmd = net::RemotingCommand::request(RequestCode::SEND_MESSAGE_V2);
  cmd.serializeType = type;
  auto& f = cmd.extFields;
  f.set("a", "please_rename_unique_group_name");
  f.set("b", "TopicTest");
  f.set("c", "TBW102");
  f.set("d", int64_t{4});
  f.set("e", int64_t{2});
  f.set("f", int64_t{0});
  f.set("g", int64_t{1700000000000});
  f.set("h", int64_t{0});
  f.set("i", std::string("KEYS\x01OrderID188\x02UNIQ_KEY\x01" "7F000001518C18B4AAC2830C6BF90000\x02WAIT\x01true"
                         "\x02TAGS\x01TagA"));
  f.set("j", int64_t{0});
  f.setBool("k", false);
  f.setBool("m", false);
  f.set("n", "broker-a");
  cmd.body.assign(bodySize, 'x');
  return cmd;
}

struct Row {
  size_t headerBytes;
  double encodeNs, decodeNs;
};

Row measure(net::SerializeType type, size_t bodySize, long iterations) {
  auto cmd = typicalSend(type, bodySize);
  std::string frame = net::encodeFrame(cmd);
  Row row{};
  row.headerBytes = frame.size() - 8 - bodySize;

  std::string buf;
  buf.reserve(frame.size() + 64);
  double t0 = cpuNs();
  for (long i = 0; i < iterations; ++i) {
    buf.clear();
    cmd.opaque = static_cast<int32_t>(i);
    net::encodeFrameHeader(cmd, buf);
    keep(buf);
  }
  double t1 = cpuNs();
  std::string_view view(frame.data() + 4, frame.size() - 4);
  for (long i = 0; i < iterations; ++i) {
    auto decoded = net::decodeFrame(view);
    if (!decoded.ok()) std::abort();
    keep(decoded);
  }
  double t2 = cpuNs();
  row.encodeNs = (t1 - t0) / iterations;
  row.decodeNs = (t2 - t1) / iterations;
  return row;
}

int runCodecBench(OptionValues& args) {
  long iterations = static_cast<long>(args.getInt({"n"}, 1'000'000));
  int64_t body = args.getInt({"s"}, 1024);
  if (body < 0) {
    args.addError("-s must be >= 0");
    return 2;
  }
  auto bodySize = static_cast<size_t>(body);
  if (iterations <= 0) iterations = 1;
  measure(net::SerializeType::Json, bodySize, iterations / 10 + 1);  // warm-up
  std::printf("SEND_MESSAGE_V2 request, %zu-byte body, %ld iterations, thread CPU ns per op\n", bodySize,
              iterations);
  std::printf("%-10s %12s %12s %12s\n", "header", "headerBytes", "encode ns", "decode ns");
  for (auto type : {net::SerializeType::Json, net::SerializeType::RocketMQ}) {
    Row r = measure(type, bodySize, iterations);
    std::printf("%-10s %12zu %12.1f %12.1f\n", type == net::SerializeType::Json ? "JSON" : "ROCKETMQ", r.headerBytes,
                r.encodeNs, r.decodeNs);
  }
  return 0;
}

Registrar reg("codec", "remoting frame encode/decode cost (SEND_MESSAGE_V2, JSON vs ROCKETMQ header)",
              {{"-n <iterations>", "default 1000000", kInteger}, {"-s <bytes>", "body size (default 1024)", kInteger}},
              &runCodecBench);

}  // namespace
}  // namespace rmq::bench
