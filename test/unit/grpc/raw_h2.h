#pragma once
// A hand-driven HTTP/2 client for protocol-edge tests: a blocking loopback socket (5 s receive
// timeout) that writes frames byte for byte as the test wants (garbage, 1-byte DATA frames, no
// PING acks) and reads the server's frames, HPACK-decoding every HEADERS frame in order.
#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rmq::grpc::test {

constexpr uint8_t kData = 0, kHeaders = 1, kRstStream = 3, kSettings = 4, kPing = 6, kGoAway = 7, kWindowUpdate = 8;
constexpr uint8_t kEndStream = 1, kEndHeaders = 4, kAck = 1;
constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

using Fields = std::vector<std::pair<std::string, std::string>>;

struct Frame {
  uint8_t type = 0, flags = 0;
  int32_t stream = 0;
  std::string payload;
  Fields fields;  // HEADERS: decoded
  std::string field(std::string_view name) const;
  uint32_t errorCode() const;  // RST_STREAM / GOAWAY
};

class RawH2 {
 public:
  explicit RawH2(uint16_t port);
  ~RawH2();
  RawH2(const RawH2&) = delete;
  RawH2& operator=(const RawH2&) = delete;

  void send(std::string_view bytes);
  void preface();  // the client preface + an empty SETTINGS frame
  void frame(uint8_t type, uint8_t flags, int32_t stream, std::string_view payload);
  void headers(int32_t stream, const Fields& fields, bool endStream);
  // The fields of a gRPC request to `path` (plaintext), plus `extra`.
  static Fields request(std::string_view path, const Fields& extra = {});

  std::optional<Frame> read();  // nullopt: closed or nothing for 5 s
  // The next frame of `type` (on `stream` unless -1), skipping others; nullopt as read().
  std::optional<Frame> until(uint8_t type, int32_t stream = -1);
  // Reads until the server closes (true) or nothing comes for 5 s (false).
  bool closedByServer();

 private:
  bool readExact(char* into, size_t n);
  int fd_ = -1;
  nghttp2_hd_deflater* deflater_ = nullptr;
  nghttp2_hd_inflater* inflater_ = nullptr;
};

// One gRPC message: prefix + bytes (`flag` 1 = compressed).
std::string grpcMessage(std::string_view bytes, uint8_t flag = 0);

}  // namespace rmq::grpc::test
