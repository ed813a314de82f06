#include "unit/grpc/raw_h2.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <stdexcept>

#include "common/bytes.h"

namespace rmq::grpc::test {

std::string Frame::field(std::string_view name) const {
  for (auto& [k, v] : fields)
    if (k == name) return v;
  return {};
}

uint32_t Frame::errorCode() const {
  if (type == kRstStream && payload.size() >= 4) return loadBE32(payload.data());
  if (type == kGoAway && payload.size() >= 8) return loadBE32(payload.data() + 4);
  return 0xFFFFFFFF;
}

RawH2::RawH2(uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) throw std::runtime_error("connect");
  timeval tv{5, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  nghttp2_hd_deflate_new(&deflater_, 4096);
  nghttp2_hd_inflate_new(&inflater_);
}

RawH2::~RawH2() {
  ::close(fd_);
  nghttp2_hd_deflate_del(deflater_);
  nghttp2_hd_inflate_del(inflater_);
}

void RawH2::send(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    auto n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return;  // the server closed: the test looks at what it read
    done += static_cast<size_t>(n);
  }
}

void RawH2::frame(uint8_t type, uint8_t flags, int32_t stream, std::string_view payload) {
  std::string f(9, '\0');
  uint32_t len = static_cast<uint32_t>(payload.size());
  f[0] = static_cast<char>(len >> 16);
  f[1] = static_cast<char>(len >> 8);
  f[2] = static_cast<char>(len);
  f[3] = static_cast<char>(type);
  f[4] = static_cast<char>(flags);
  storeBE32(f.data() + 5, static_cast<uint32_t>(stream));
  f.append(payload);
  send(f);
}

void RawH2::preface() {
  send(kPreface);
  frame(kSettings, 0, 0, "");
}

void RawH2::headers(int32_t stream, const Fields& fields, bool endStream) {
  std::vector<nghttp2_nv> nva;
  for (auto& [k, v] : fields)
    nva.push_back({reinterpret_cast<uint8_t*>(const_cast<char*>(k.data())),
                   reinterpret_cast<uint8_t*>(const_cast<char*>(v.data())), k.size(), v.size(), NGHTTP2_NV_FLAG_NONE});
  std::string block(nghttp2_hd_deflate_bound(deflater_, nva.data(), nva.size()), '\0');
  auto n = nghttp2_hd_deflate_hd(deflater_, reinterpret_cast<uint8_t*>(block.data()), block.size(), nva.data(), nva.size());
  block.resize(n > 0 ? static_cast<size_t>(n) : 0);
  frame(kHeaders, kEndHeaders | (endStream ? kEndStream : 0), stream, block);
}

Fields RawH2::request(std::string_view path, const Fields& extra) {
  Fields f = {{":method", "POST"}, {":scheme", "http"}, {":path", std::string(path)}, {":authority", "localhost"},
              {"content-type", "application/grpc"}, {"te", "trailers"}};
  f.insert(f.end(), extra.begin(), extra.end());
  return f;
}

bool RawH2::readExact(char* into, size_t n) {
  size_t done = 0;
  while (done < n) {
    auto got = ::recv(fd_, into + done, n - done, 0);
    if (got <= 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

std::optional<Frame> RawH2::read() {
  char hd[9];
  if (!readExact(hd, 9)) return std::nullopt;
  Frame f;
  size_t len = (size_t(uint8_t(hd[0])) << 16) | (size_t(uint8_t(hd[1])) << 8) | uint8_t(hd[2]);
  f.type = static_cast<uint8_t>(hd[3]);
  f.flags = static_cast<uint8_t>(hd[4]);
  f.stream = static_cast<int32_t>(loadBE32(hd + 5) & 0x7FFFFFFF);
  f.payload.resize(len);
  if (len > 0 && !readExact(f.payload.data(), len)) return std::nullopt;
  if (f.type == kHeaders) {  // every block, in order: the HPACK table depends on it
    auto* in = reinterpret_cast<uint8_t*>(f.payload.data());
    size_t left = f.payload.size();
    for (;;) {
      nghttp2_nv nv;
      int flags = 0;
      auto used = nghttp2_hd_inflate_hd2(inflater_, &nv, &flags, in, left, 1);
      if (used < 0) break;
      in += used;
      left -= static_cast<size_t>(used);
      if (flags & NGHTTP2_HD_INFLATE_EMIT)
        f.fields.emplace_back(std::string(reinterpret_cast<char*>(nv.name), nv.namelen),
                              std::string(reinterpret_cast<char*>(nv.value), nv.valuelen));
      if (flags & NGHTTP2_HD_INFLATE_FINAL) {
        nghttp2_hd_inflate_end_headers(inflater_);
        break;
      }
      if (used == 0 && left == 0) break;
    }
  }
  return f;
}

std::optional<Frame> RawH2::until(uint8_t type, int32_t stream) {
  for (;;) {
    auto f = read();
    if (!f) return std::nullopt;
    if (f->type == type && (stream < 0 || f->stream == stream)) return f;
  }
}

bool RawH2::closedByServer() {
  char buf[4096];
  for (;;) {
    auto n = ::recv(fd_, buf, sizeof buf, 0);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
  }
}

std::string grpcMessage(std::string_view bytes, uint8_t flag) {
  std::string m(5, '\0');
  m[0] = static_cast<char>(flag);
  storeBE32(m.data() + 1, static_cast<uint32_t>(bytes.size()));
  m.append(bytes);
  return m;
}

}  // namespace rmq::grpc::test
