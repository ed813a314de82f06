// Protocol edges with a hand-driven HTTP/2 client (raw_h2.h): garbage instead of or after the
// preface, a HEADERS flood, messages split byte by byte, a compressed flag without an encoding,
// the server's own deadline, idle timeout, keepalive PINGs to a silent peer, stop() with open
// calls. A bad connection is closed alone: another connection keeps being served.
#include <openssl/ssl.h>

#include "unit/grpc/grpc_test_util.h"
#include "unit/grpc/raw_h2.h"

using namespace rmq;
using namespace rmq::grpc;
using namespace rmq::grpc::test;

namespace {

void checkStillServes(GrpcFixture& f, const std::shared_ptr<GrpcChannel>& ch) {
  auto r = f.unary(ch, "/test.Echo/Unary", "alive");
  CHECK(r.status.code == StatusCode::OK);
  CHECK(r.response == "alive");
}

}  // namespace

TEST_CASE("grpc garbage instead of the preface: GOAWAY(PROTOCOL_ERROR) and close, others unaffected") {
  GrpcFixture f;
  f.start();
  auto good = f.connect();
  RawH2 raw(f.port());
  raw.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  auto goaway = raw.until(kGoAway);
  REQUIRE(goaway);
  CHECK(goaway->errorCode() == NGHTTP2_PROTOCOL_ERROR);
  CHECK(raw.closedByServer());
  checkStillServes(f, good);
}

TEST_CASE("grpc garbage after the preface: GOAWAY(PROTOCOL_ERROR) and close, others unaffected") {
  GrpcFixture f;
  f.start();
  auto good = f.connect();
  RawH2 raw(f.port());
  raw.preface();
  raw.headers(1, RawH2::request("/test.Echo/Unary"), false);
  raw.frame(kData, 0, 2, "not a stream of ours");  // DATA on an idle stream: a connection error
  raw.send(std::string(64, '\xff'));
  auto goaway = raw.until(kGoAway);
  REQUIRE(goaway);
  CHECK(goaway->errorCode() == NGHTTP2_PROTOCOL_ERROR);
  CHECK(raw.closedByServer());
  checkStillServes(f, good);
}

TEST_CASE("grpc HEADERS flood (rapid open + reset): the connection is told to go away") {
  GrpcFixture f;
  f.start();
  auto good = f.connect();
  RawH2 raw(f.port());
  raw.preface();
  std::string rst(4, '\0');
  rst[3] = NGHTTP2_CANCEL;
  for (int32_t id = 1; id < 2 * 20000; id += 2) {
    raw.headers(id, RawH2::request("/test.Echo/Park"), false);
    raw.frame(kRstStream, 0, id, rst);
  }
  auto goaway = raw.until(kGoAway);
  REQUIRE(goaway);
  CHECK(goaway->errorCode() != NGHTTP2_NO_ERROR);
  CHECK(raw.closedByServer());
  checkStillServes(f, good);
}

TEST_CASE("grpc message split byte by byte across DATA frames, and several messages in one frame") {
  GrpcFixture f;
  f.start();
  RawH2 raw(f.port());
  raw.preface();
  raw.headers(1, RawH2::request("/test.Echo/Count"), false);
  std::string first = grpcMessage("split-me");
  for (char c : first) raw.frame(kData, 0, 1, std::string(1, c));
  raw.frame(kData, kEndStream, 1, grpcMessage("two") + grpcMessage("three!"));
  auto headers = raw.until(kHeaders, 1);
  REQUIRE(headers);
  CHECK(headers->field(":status") == "200");
  auto data = raw.until(kData, 1);
  REQUIRE(data);
  CHECK(data->payload == grpcMessage("3/17"));
  auto trailers = raw.until(kHeaders, 1);
  REQUIRE(trailers);
  CHECK(trailers->field("grpc-status") == "0");
  CHECK((trailers->flags & kEndStream) != 0);
}

TEST_CASE("grpc compressed flag: without grpc-encoding INTERNAL, with deflate inflated") {
  GrpcFixture f;
  f.start();
  RawH2 raw(f.port());
  raw.preface();
  raw.headers(1, RawH2::request("/test.Echo/Unary"), false);
  raw.frame(kData, kEndStream, 1, grpcMessage("\x78\x9c", 1));
  auto answer = raw.until(kHeaders, 1);
  REQUIRE(answer);
  CHECK(answer->field("grpc-status") == std::to_string(int(StatusCode::INTERNAL)));  // Trailers-Only
  CHECK(answer->field("grpc-message").find("grpc-encoding") != std::string::npos);

  // The zlib container ("deflate") of "deflated!"
  const unsigned char zlib[] = {0x78, 0x9c, 0x4b, 0x49, 0x4d, 0xcb, 0x49, 0x2c, 0x49, 0x4d, 0x51,
                                0x04, 0x00, 0x11, 0xd4, 0x03, 0x5b};
  raw.headers(3, RawH2::request("/test.Echo/Unary", {{"grpc-encoding", "deflate"}}), false);
  raw.frame(kData, kEndStream, 3, grpcMessage(std::string(reinterpret_cast<const char*>(zlib), sizeof zlib), 1));
  auto data = raw.until(kData, 3);
  REQUIRE(data);
  CHECK(data->payload == grpcMessage("deflated!"));
}

TEST_CASE("grpc server-side deadline from grpc-timeout: DEADLINE_EXCEEDED trailers, then RST_STREAM") {
  GrpcFixture f;
  f.start();
  RawH2 raw(f.port());
  raw.preface();
  raw.headers(1, RawH2::request("/test.Echo/Park", {{"grpc-timeout", "200m"}}), false);
  auto started = std::chrono::steady_clock::now();
  REQUIRE(raw.until(kHeaders, 1));  // response headers (the handler wrote "parked")
  auto trailers = raw.until(kHeaders, 1);
  REQUIRE(trailers);
  CHECK(std::chrono::steady_clock::now() - started >= 150ms);
  CHECK(trailers->field("grpc-status") == std::to_string(int(StatusCode::DEADLINE_EXCEEDED)));
  auto rst = raw.until(kRstStream, 1);  // we never half-closed: the server resets the stream
  REQUIRE(rst);
  CHECK(eventually([&] { return f.seen->cancels.load() == 1 && f.seen->readEnds.load() == 1; }));
}

TEST_CASE("grpc non-gRPC requests: HTTP 415 for another content-type, 405 for GET") {
  GrpcFixture f;
  f.start();
  RawH2 raw(f.port());
  raw.preface();
  auto json = RawH2::request("/test.Echo/Unary");
  json[4].second = "application/json";
  raw.headers(1, json, true);
  auto a = raw.until(kHeaders, 1);
  REQUIRE(a);
  CHECK(a->field(":status") == "415");
  auto get = RawH2::request("/test.Echo/Unary");
  get[0].second = "GET";
  raw.headers(3, get, true);
  auto b = raw.until(kHeaders, 3);
  REQUIRE(b);
  CHECK(b->field(":status") == "405");
}

TEST_CASE("grpc idle timeout: a connection with no stream is sent GOAWAY and closed") {
  auto o = loopbackOptions();
  o.connection.idleTimeout = std::chrono::seconds(1);
  GrpcFixture f(o);
  f.start();
  auto ch = f.connect();
  checkStillServes(f, ch);  // a finished call: then idle
  RawH2 raw(f.port());
  raw.preface();
  auto started = std::chrono::steady_clock::now();
  auto goaway = raw.until(kGoAway);
  REQUIRE(goaway);
  CHECK(goaway->errorCode() == NGHTTP2_NO_ERROR);
  CHECK(std::chrono::steady_clock::now() - started >= 900ms);
  CHECK(raw.closedByServer());
  CHECK(eventually([&] { return !ch->isOpen() && f.server->connectionCount() == 0; }));
}

TEST_CASE("grpc keepalive: open streams, a silent peer that never acks PING is closed; PINGs are answered") {
  auto o = loopbackOptions();
  o.keepaliveTime = 300ms;
  o.keepaliveTimeout = 300ms;
  GrpcFixture f(o);
  f.start();
  RawH2 raw(f.port());
  raw.preface();
  raw.frame(kPing, 0, 0, "12345678");
  auto pong = raw.until(kPing);
  REQUIRE(pong);
  CHECK((pong->flags & kAck) != 0);
  CHECK(pong->payload == "12345678");
  raw.headers(1, RawH2::request("/test.Echo/Park"), false);
  auto ping = raw.until(kPing);  // the server's own, after 300 ms of silence
  REQUIRE(ping);
  CHECK((ping->flags & kAck) == 0);
  CHECK(raw.closedByServer());  // no ack: closed
  CHECK(eventually([&] { return f.seen->cancels.load() == 1; }));
}

TEST_CASE("grpc stop(): GOAWAY, open calls finish within the drain, then everything closes") {
  GrpcFixture f;
  f.start();
  auto ch = f.connect();
  auto pending = std::async(std::launch::async, [&] { return f.unary(ch, "/test.Echo/Slow", "300"); });
  REQUIRE(eventually([&] { return f.server->connectionCount() == 1; }));
  std::this_thread::sleep_for(50ms);  // let the call reach its handler (not a timing assertion)
  auto started = std::chrono::steady_clock::now();
  f.server->stop(std::chrono::milliseconds(3000));
  auto took = std::chrono::steady_clock::now() - started;
  auto r = pending.get();
  CHECK(r.status.code == StatusCode::OK);
  CHECK(r.response == "slept");
  CHECK(took < 2500ms);  // closed when the call ended, not at the drain limit
  CHECK(f.server->connectionCount() == 0);
  CHECK(eventually([&] { return !ch->isOpen(); }));
}
