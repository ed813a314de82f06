#pragma once
// gRPC's rules on top of HTTP/2 that both sides share (grpc/doc/PROTOCOL-HTTP2.md): the 5-byte
// message prefix (compressed flag + big-endian length), grpc-timeout values, percent-encoded
// grpc-message, and the message compressions a peer may send (gzip, deflate).
#include <chrono>
#include <cstdint>
#include <vector>
#include <optional>
#include <string>
#include <string_view>

#include "grpc/grpc_status.h"

namespace rmq::grpc {

constexpr size_t kMessagePrefix = 5;

// The prefix of one uncompressed message of `size` bytes.
std::string messagePrefix(size_t size);
// prefix + message, as one string (for small messages and tests).
std::string frameMessage(std::string_view message);

// Splits a stream's DATA bytes into messages, whatever the DATA frame boundaries are (a message
// over several frames, several messages in one frame). Keeps only the bytes of the message being
// received. A message over `maxSize` (after inflating) or a compressed one the call cannot decode
// is an error status; the reader stays failed.
class MessageReader {
 public:
  // `encoding`: the request's grpc-encoding ("" / "identity": a compressed flag is an error).
  MessageReader(size_t maxSize, std::string encoding) : maxSize_(maxSize), encoding_(std::move(encoding)) {}
  // Appends bytes; complete messages go to `out`. nullopt = fine; otherwise the error to end with.
  std::optional<Status> feed(const char* data, size_t size, std::vector<std::string>& out);
  bool midMessage() const { return have_ > 0; }

 private:
  std::optional<Status> complete(std::vector<std::string>& out);
  size_t maxSize_;
  std::string encoding_;
  char prefix_[kMessagePrefix];
  size_t have_ = 0;  // bytes of the current message seen, prefix included
  std::string body_;
  bool failed_ = false;
};

// "gzip" and "deflate" (zlib container, as gRPC's deflate) inflated to at most `maxSize` bytes.
std::optional<std::string> inflateMessage(std::string_view data, std::string_view encoding, size_t maxSize);
// gzip container (tests and clients that want to send compressed requests).
std::string gzipMessage(std::string_view data);

// The longest grpc-timeout taken as it is: 100 years (a longer one is capped to it).
inline constexpr std::chrono::nanoseconds kMaxTimeout = std::chrono::hours(24 * 365 * 100);
// "<n><unit>" with n at most 8 digits and unit one of H M S m u n; nullopt when malformed; values
// beyond kMaxTimeout are kMaxTimeout.
std::optional<std::chrono::nanoseconds> parseTimeout(std::string_view text);
// The shortest exact-or-rounded-up form with at most 8 digits ("250m", "3S").
std::string formatTimeout(std::chrono::nanoseconds timeout);

// grpc-message: bytes outside 0x20..0x7E and '%' as %XX (PROTOCOL-HTTP2.md).
std::string percentEncode(std::string_view text);
std::string percentDecode(std::string_view text);

}  // namespace rmq::grpc
