// HTTP/1.1 request parser (http/request_parser.h: libhttp-parser behind our limits) as the HTTP
// connection drives it: bytes fed as they arrive, each complete request taken before the next is
// parsed (pipelining), the first error ends the connection.
//
// Input: one control byte, then the bytes of the connection. The control byte picks the size of
// the pieces the bytes arrive in (1..64, or all at once) and small or default limits. Invariants:
// - the parser always makes progress (consumes bytes, completes a request or fails): a parser that
//   consumes nothing would leave the connection buffering the client's bytes forever;
// - the requests (method, path, query, headers, body, keep-alive) and the error status do not
//   depend on how the bytes were split;
// - no request exceeds the limits; an error is one of 400, 413, 431 with a message.
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "http/request_parser.h"

using namespace rmq;

namespace {

struct Outcome {
  std::vector<http::HttpRequest> requests;
  std::vector<bool> keepAlive;
  int errorStatus = 0;
};

bool sameRequest(const http::HttpRequest& a, const http::HttpRequest& b) {
  return a.method == b.method && a.path == b.path && a.query == b.query && a.headers == b.headers &&
         a.body == b.body;
}

size_t headerBytes(const http::HttpRequest& r) {
  size_t n = r.path.size() + r.query.size();
  for (auto& [k, v] : r.headers) n += k.size() + v.size();
  return n;
}

// Feeds `bytes` in pieces of `piece` bytes (0 = all at once) the way http_connection.cpp does.
Outcome parse(std::string_view bytes, size_t piece, const http::ParseLimits& limits) {
  Outcome out;
  http::RequestParser parser(limits);
  std::string pending;
  size_t offset = 0;
  size_t received = 0;
  while (true) {
    while (offset < pending.size()) {
      size_t n = parser.feed(std::string_view(pending).substr(offset));
      offset += n;
      if (parser.errorStatus() != 0) {
        RMQ_FUZZ_CHECK(!parser.ready());
        out.errorStatus = parser.errorStatus();
        return out;
      }
      if (!parser.ready()) {
        // Not complete: it must have taken every byte offered (else they pile up unparsed).
        RMQ_FUZZ_CHECK(offset == pending.size());
        break;
      }
      out.keepAlive.push_back(parser.keepAlive());
      out.requests.push_back(parser.take());
      RMQ_FUZZ_CHECK(!parser.ready());
    }
    if (offset == pending.size()) {
      pending.clear();
      offset = 0;
    }
    if (received == bytes.size()) return out;
    size_t n = piece == 0 ? bytes.size() - received : std::min(piece, bytes.size() - received);
    pending.append(bytes.substr(received, n));
    received += n;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  uint8_t control = data[0];
  std::string_view bytes = fuzz::input(data + 1, size - 1);
  http::ParseLimits limits;
  if (control & 0x80) limits = http::ParseLimits{.maxHeaderBytes = 64, .maxBodyBytes = 16};
  size_t piece = control & 0x3f;  // 0 = all at once, else 1..63 bytes per read
  if (control & 0x40) piece = 1;

  Outcome whole = parse(bytes, 0, limits);
  Outcome split = parse(bytes, piece, limits);

  RMQ_FUZZ_CHECK(whole.errorStatus == split.errorStatus);
  RMQ_FUZZ_CHECK(whole.requests.size() == split.requests.size());
  for (size_t i = 0; i < whole.requests.size(); ++i) {
    RMQ_FUZZ_CHECK(sameRequest(whole.requests[i], split.requests[i]));
    RMQ_FUZZ_CHECK(whole.keepAlive[i] == split.keepAlive[i]);
  }
  RMQ_FUZZ_CHECK(whole.errorStatus == 0 || whole.errorStatus == 400 || whole.errorStatus == 413 ||
                 whole.errorStatus == 431);
  for (auto& r : whole.requests) {
    RMQ_FUZZ_CHECK(!r.method.empty());
    RMQ_FUZZ_CHECK(!r.path.empty() && r.path.front() == '/');
    RMQ_FUZZ_CHECK(r.body.size() <= limits.maxBodyBytes);
    RMQ_FUZZ_CHECK(headerBytes(r) <= limits.maxHeaderBytes);
    // What handlers do with a request: header and query lookups.
    (void)r.header("content-type");
    (void)r.header("connection");
    (void)r.param("topic");
    (void)r.param("group");
  }
  return 0;
}
