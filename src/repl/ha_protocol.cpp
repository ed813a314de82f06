#include "repl/ha_protocol.h"

#include <cstdint>
#include <cstring>

#include "common/bytes.h"

namespace rmq::repl {

std::array<char, kReportSize> encodeReport(int64_t slaveMaxOffset) {
  std::array<char, kReportSize> out;
  storeBE64(out.data(), static_cast<uint64_t>(slaveMaxOffset));
  return out;
}

std::array<char, kEpochHandshakeSize> encodeHandshake(EpochHandshake h) {
  std::array<char, kEpochHandshakeSize> out;
  storeBE64(out.data(), static_cast<uint64_t>(h.first));
  storeBE64(out.data() + 8, static_cast<uint64_t>(h.second));
  return out;
}

EpochHandshake decodeHandshake(const char* bytes) {
  return {static_cast<int64_t>(loadBE64(bytes)), static_cast<int64_t>(loadBE64(bytes + 8))};
}

std::array<char, kFrameHeaderSize> encodeFrameHeader(int64_t phyOffset, int32_t bodySize) {
  std::array<char, kFrameHeaderSize> out;
  storeBE64(out.data(), static_cast<uint64_t>(phyOffset));
  storeBE32(out.data() + 8, static_cast<uint32_t>(bodySize));
  return out;
}

std::optional<int64_t> ReportReader::feed(std::string_view bytes) {
  std::optional<int64_t> latest;
  if (partialSize_ > 0) {
    size_t n = std::min(kReportSize - partialSize_, bytes.size());
    std::memcpy(partial_.data() + partialSize_, bytes.data(), n);
    partialSize_ += n;
    bytes.remove_prefix(n);
    if (partialSize_ < kReportSize) return latest;
    latest = static_cast<int64_t>(loadBE64(partial_.data()));
    partialSize_ = 0;
  }
  size_t whole = bytes.size() / kReportSize;
  if (whole > 0) latest = static_cast<int64_t>(loadBE64(bytes.data() + (whole - 1) * kReportSize));
  bytes.remove_prefix(whole * kReportSize);
  std::memcpy(partial_.data(), bytes.data(), bytes.size());
  partialSize_ = bytes.size();
  return latest;
}

char* FrameReader::space(size_t minBytes) {
  if (begin_ == end_) begin_ = end_ = 0;
  if (buf_.size() - end_ < minBytes) {
    if (begin_ > 0) {  // slide the unconsumed tail to the front before growing
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (buf_.size() - end_ < minBytes) buf_.resize(end_ + minBytes);
  }
  return buf_.data() + end_;
}

Result<std::optional<Frame>> FrameReader::next() {
  size_t have = end_ - begin_;
  if (have < kFrameHeaderSize) return std::optional<Frame>{};
  const char* p = buf_.data() + begin_;
  auto offset = static_cast<int64_t>(loadBE64(p));
  auto size = static_cast<int32_t>(loadBE32(p + 8));
  if (size < 0 || size > kMaxFrameBody)
    return makeError(1, "HA frame at offset " + std::to_string(offset) + " announces a body of " +
                            std::to_string(size) + " bytes (limit " + std::to_string(kMaxFrameBody) + ")");
  if (offset < 0 || offset > INT64_MAX - size)  // the slave adds the size to it (masterOffsetSeen_)
    return makeError(1, "HA frame announces offset " + std::to_string(offset) + ", outside a commit log");
  if (have < kFrameHeaderSize + static_cast<size_t>(size)) {
    space(kFrameHeaderSize + static_cast<size_t>(size) - have);  // room for the rest of this frame
    return std::optional<Frame>{};
  }
  Frame f{offset, std::string_view(buf_.data() + begin_ + kFrameHeaderSize, static_cast<size_t>(size))};
  begin_ += kFrameHeaderSize + static_cast<size_t>(size);
  return std::optional<Frame>{f};
}

}  // namespace rmq::repl
