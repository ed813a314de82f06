#pragma once
// The HA stream's wire format (PROTOCOL.md §9.2, §9.3): raw big-endian binary over plain TCP, no
// handshake, byte for byte what Apache RocketMQ 4.9's HAService/HAConnection/HAClient exchange.
//   slave -> master: 8-byte reports, the slave's commit log max offset;
//   master -> slave: frames of 8-byte physical offset + 4-byte body size + body (commit log bytes
//                    copied verbatim; size 0 = heartbeat).
// Pure codec, no I/O: the stream readers keep partial input between reads.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rmq::repl {

inline constexpr size_t kReportSize = 8;
inline constexpr size_t kFrameHeaderSize = 12;
// Largest frame body a slave accepts. A Java master sends at most haTransferBatchSize (32 KiB by
// default; Java's own slave buffer is 4 MiB); anything beyond this bound is a broken stream.
inline constexpr int32_t kMaxFrameBody = 64 * 1024 * 1024;

std::array<char, kReportSize> encodeReport(int64_t slaveMaxOffset);

// Failover mode only (both ends rmqnode with failoverEnable; never sent otherwise, so the 4.x
// stream above stays byte-compatible with Java): right after connecting, the slave sends
// {int64 its brokerId, int64 the epoch it follows} and waits; the master answers {int64 its
// epoch, int64 the commit-log offset where that epoch began}; then the 4.x stream as above. A
// slave refuses a master whose epoch is lower than the one it follows; a master that hears of a
// higher epoch than its own learns it is stale.
inline constexpr size_t kEpochHandshakeSize = 16;
struct EpochHandshake {
  int64_t first = 0;   // slave: its brokerId; master: its epoch
  int64_t second = 0;  // slave: the epoch it follows; master: the epoch's start offset
};
std::array<char, kEpochHandshakeSize> encodeHandshake(EpochHandshake h);
EpochHandshake decodeHandshake(const char* bytes);  // kEpochHandshakeSize bytes
std::array<char, kFrameHeaderSize> encodeFrameHeader(int64_t phyOffset, int32_t bodySize);

// Master side: slave reports arrive as a byte stream; like Java's ReadSocketService only the last
// complete 8-byte report of what has arrived counts.
class ReportReader {
 public:
  // Consumes `bytes`; returns the newest complete report among them (with earlier leftovers).
  std::optional<int64_t> feed(std::string_view bytes);

 private:
  std::array<char, kReportSize> partial_{};
  size_t partialSize_ = 0;
};

struct Frame {
  int64_t phyOffset = 0;
  std::string_view body;  // valid until the next FrameReader call; empty = heartbeat
};

// Slave side: reassembles frames from the byte stream. Usage: write into space(n), commit(k),
// then call next() until it returns no frame.
class FrameReader {
 public:
  // Writable space of at least `minBytes` at the end of the buffer.
  char* space(size_t minBytes);
  size_t spaceSize() const { return buf_.size() - end_; }
  void commit(size_t n) { end_ += n; }
  // Next complete frame; std::nullopt when more bytes are needed; an error for a negative or
  // oversized body length, or a negative offset / one whose end overflows int64 (the stream cannot
  // be resynchronised: close the connection).
  Result<std::optional<Frame>> next();
  size_t buffered() const { return end_ - begin_; }
  void reset() { begin_ = end_ = 0; }

 private:
  std::string buf_;
  size_t begin_ = 0;  // first unconsumed byte
  size_t end_ = 0;    // end of received bytes
};

}  // namespace rmq::repl
