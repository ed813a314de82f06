// TLS and plaintext on one gRPC port: the first byte decides (0x16 = a ClientHello, 'P' = the
// h2c preface); ALPN h2 is selected; enforcing mode refuses plaintext. Real OpenSSL on loopback.
#include <openssl/ssl.h>

#include "unit/grpc/grpc_test_util.h"

using namespace rmq;
using namespace rmq::grpc;
using namespace rmq::grpc::test;

namespace {

GrpcServerOptions tlsOptions(net::TlsMode mode) {
  auto o = loopbackOptions();
  auto ctx = makeGrpcServerTlsContext({});  // test mode: a self-signed certificate
  REQUIRE(ctx.ok());
  o.tls = net::ServerTls{mode, *ctx};
  return o;
}

ChannelOptions tlsClient() {
  auto ctx = makeGrpcClientTlsContext();
  REQUIRE(ctx.ok());
  ChannelOptions o;
  o.tls = *ctx;
  return o;
}

}  // namespace

TEST_CASE("grpc TLS (ALPN h2) and plaintext clients on the same permissive port") {
  GrpcFixture f(tlsOptions(net::TlsMode::Permissive));
  f.start();
  auto tls = f.connect(tlsClient());
  auto plain = f.connect();
  std::string big(300000, 's');  // many TLS records each way
  auto a = f.unary(tls, "/test.Echo/Unary", big);
  auto b = f.unary(plain, "/test.Echo/Unary", "plain");
  CHECK(a.status.code == StatusCode::OK);
  CHECK(a.response == big);
  CHECK(b.status.code == StatusCode::OK);
  CHECK(b.response == "plain");
  CHECK(f.server->connectionCount() == 2);
}

TEST_CASE("grpc enforcing TLS port: TLS served, plaintext refused (UNAVAILABLE)") {
  GrpcFixture f(tlsOptions(net::TlsMode::Enforcing));
  f.start();
  auto tls = f.connect(tlsClient());
  CHECK(f.unary(tls, "/test.Echo/Unary", "secure").response == "secure");
  auto plain = f.connect();  // TCP connects; the server closes at the first byte
  auto r = f.unary(plain, "/test.Echo/Unary", "plain");
  CHECK(r.status.code == StatusCode::UNAVAILABLE);
  CHECK(eventually([&] { return !plain->isOpen(); }));
  CHECK(f.unary(tls, "/test.Echo/Unary", "again").response == "again");
}

TEST_CASE("grpc TLS: a client offering ALPN without h2 fails the handshake") {
  GrpcFixture f(tlsOptions(net::TlsMode::Permissive));
  f.start();
  auto ctx = net::makeClientTlsContext({});
  REQUIRE(ctx.ok());
  static const unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  SSL_CTX_set_alpn_protos(static_cast<SSL_CTX*>((*ctx)->nativeHandle()), http11, sizeof http11);
  ChannelOptions o;
  o.tls = *ctx;
  uint16_t port = f.port();
  auto ch = f.run<Result<std::shared_ptr<GrpcChannel>>>([port, o]() { return GrpcChannel::connect("127.0.0.1", port, o); });
  REQUIRE_FALSE(ch.ok());
  CHECK(ch.error().message.find("TLS") != std::string::npos);
}
