#include "grpc/grpc_wire.h"

#include <zlib.h>

#include <cstring>

#include "common/bytes.h"

namespace rmq::grpc {

std::string messagePrefix(size_t size) {
  std::string p(kMessagePrefix, '\0');
  storeBE32(p.data() + 1, static_cast<uint32_t>(size));
  return p;
}

std::string frameMessage(std::string_view message) {
  std::string out = messagePrefix(message.size());
  out.append(message);
  return out;
}

std::optional<Status> MessageReader::feed(const char* data, size_t size, std::vector<std::string>& out) {
  if (failed_) return std::nullopt;  // the error was reported once; the rest is ignored
  while (size > 0) {
    if (have_ < kMessagePrefix) {
      size_t take = std::min(kMessagePrefix - have_, size);
      std::memcpy(prefix_ + have_, data, take);
      have_ += take;
      data += take;
      size -= take;
      if (have_ < kMessagePrefix) break;
      uint32_t length = loadBE32(prefix_ + 1);
      if (length > maxSize_) {
        failed_ = true;
        return Status{StatusCode::RESOURCE_EXHAUSTED,
                      "Received message larger than max (" + std::to_string(length) + " vs. " +
                          std::to_string(maxSize_) + ")"};
      }
      body_.clear();
      body_.reserve(length);
    }
    size_t want = loadBE32(prefix_ + 1) - body_.size();
    size_t take = std::min(want, size);
    body_.append(data, take);
    data += take;
    size -= take;
    if (body_.size() == loadBE32(prefix_ + 1))
      if (auto bad = complete(out)) {
        failed_ = true;
        return bad;
      }
  }
  return std::nullopt;
}

std::optional<Status> MessageReader::complete(std::vector<std::string>& out) {
  have_ = 0;
  if (prefix_[0] == 0) {
    out.push_back(std::move(body_));
    body_ = {};
    return std::nullopt;
  }
  if (encoding_.empty() || encoding_ == "identity")
    return Status{StatusCode::INTERNAL, "Compressed message without a grpc-encoding"};
  if (encoding_ != "gzip" && encoding_ != "deflate")
    return Status{StatusCode::UNIMPLEMENTED, "Unsupported grpc-encoding: " + encoding_};
  auto plain = inflateMessage(body_, encoding_, maxSize_);
  body_ = {};
  if (!plain) return Status{StatusCode::INTERNAL, "Cannot decompress a " + encoding_ + " message (or it inflates over the limit)"};
  out.push_back(std::move(*plain));
  return std::nullopt;
}

std::optional<std::string> inflateMessage(std::string_view data, std::string_view encoding, size_t maxSize) {
  z_stream z{};
  // gzip: its own header (windowBits + 16); deflate: the zlib container, as gRPC's "deflate".
  if (inflateInit2(&z, encoding == "gzip" ? 15 + 16 : 15) != Z_OK) return std::nullopt;
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    size_t done = out.size();
    if (done > maxSize) break;
    out.resize(done + std::max<size_t>(data.size() * 2, 4096));
    z.next_out = reinterpret_cast<Bytef*>(out.data() + done);
    z.avail_out = static_cast<uInt>(out.size() - done);
    rc = inflate(&z, Z_NO_FLUSH);
    out.resize(out.size() - z.avail_out);
    if (rc == Z_BUF_ERROR && z.avail_in > 0) rc = Z_OK;  // the output was full: go on
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END || out.size() > maxSize) return std::nullopt;
  return out;
}

std::string gzipMessage(std::string_view data) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::optional<std::chrono::nanoseconds> parseTimeout(std::string_view text) {
  using namespace std::chrono;
  if (text.size() < 2 || text.size() > 9) return std::nullopt;
  int64_t n = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  int64_t unitNs = 0;
  switch (text.back()) {
    case 'H': unitNs = 3600000000000LL; break;
    case 'M': unitNs = 60000000000LL; break;
    case 'S': unitNs = 1000000000LL; break;
    case 'm': unitNs = 1000000LL; break;
    case 'u': unitNs = 1000LL; break;
    case 'n': unitNs = 1; break;
    default: return std::nullopt;
  }
  // 8 digits of hours (up to ~11,400 years) do not fit in int64 nanoseconds, nor would a deadline
  // that far from now: such a timeout is capped at kMaxTimeout (no deadline in practice).
  if (n > kMaxTimeout.count() / unitNs) return kMaxTimeout;
  return nanoseconds(n * unitNs);
}

std::string formatTimeout(std::chrono::nanoseconds timeout) {
  constexpr int64_t kMax = 99999999;
  struct Unit { char name; int64_t ns; };
  static constexpr Unit kUnits[] = {{'n', 1}, {'u', 1000}, {'m', 1000000}, {'S', 1000000000LL},
                                    {'M', 60000000000LL}, {'H', 3600000000000LL}};
  int64_t ns = std::max<int64_t>(timeout.count(), 1);
  for (auto u : kUnits) {
    int64_t n = (ns + u.ns - 1) / u.ns;  // rounded up: never shorter than asked
    if (n <= kMax) return std::to_string(n) + u.name;
  }
  return std::to_string(kMax) + "H";
}

std::string percentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c <= 0x7E && c != '%') {
      out += static_cast<char>(c);
      continue;
    }
    out += '%';
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::string percentDecode(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() + 0 && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace rmq::grpc
