// TLS on a remoting port (tls_handshake.h, TcpConnection over a TlsSession): the first byte
// decides by mode; permissive serves TLS and plaintext clients on one port; enforcing refuses
// plaintext; disabled never looks; handshakes are bounded in time; client certificates and server
// verification as Java's TlsHelper; bad files name their key. Real loopback sockets, real OpenSSL.
#include <doctest/doctest.h>

#include <random>
#include <thread>

#include "common/response_code.h"
#include "net/remoting_client.h"
#include "unit/net/net_test_util.h"
#include "unit/net/tls_test_certs.h"

using namespace rmq;
using namespace rmq::net;
using namespace std::chrono_literals;
using rmq::net::test::RawSocket;
using rmq::net::test::ServerFixture;
using rmq::test::TlsTestCerts;

namespace {

constexpr int kEcho = 210;

void registerEcho(Dispatcher& d) {
  d.registerProcessor(kEcho, [](ConnectionPtr, RemotingCommand req) -> asio::awaitable<std::optional<RemotingCommand>> {
    auto resp = RemotingCommand::response(ResponseCode::SUCCESS, std::string("echo"));
    resp.body = req.body;
    co_return resp;
  });
}

RemotingCommand echo(std::string body) {
  auto cmd = RemotingCommand::request(kEcho);
  cmd.body = std::move(body);
  return cmd;
}

std::string randomBytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

ServerTls serverTls(TlsMode mode, const TlsServerSettings& settings = {}) {
  auto ctx = makeServerTlsContext(settings);
  REQUIRE_MESSAGE(ctx, (ctx ? "" : ctx.error().message));
  return ServerTls{mode, *ctx};
}

ClientOptions tlsClient(const TlsClientSettings& settings = {}) {
  ClientOptions o;
  auto ctx = makeClientTlsContext(settings);
  REQUIRE_MESSAGE(ctx, (ctx ? "" : ctx.error().message));
  o.tls = *ctx;
  return o;
}

ConnectionOptions noIdle() {
  ConnectionOptions o;
  o.idleTimeout = 0s;
  return o;
}

// The echo round trip of `body` through `client`; "" + the error text when it failed.
std::string roundTrip(RemotingClient& client, const std::string& addr, std::string body, std::string* error = nullptr) {
  auto r = client.invokeSync(addr, echo(std::move(body)), 5000ms);
  if (!r) {
    if (error) *error = r.error().message;
    return "";
  }
  return r->body;
}

}  // namespace

TEST_CASE("tls: the first byte decides, by tls.server.mode (Java HandshakeHandler)") {
  CHECK(judgeFirstByte(0x16, TlsMode::Permissive) == FirstByteVerdict::Tls);
  CHECK(judgeFirstByte(0x00, TlsMode::Permissive) == FirstByteVerdict::Plaintext);
  CHECK(judgeFirstByte(0x16, TlsMode::Enforcing) == FirstByteVerdict::Tls);
  CHECK(judgeFirstByte(0x00, TlsMode::Enforcing) == FirstByteVerdict::Refuse);
  CHECK(judgeFirstByte(0x17, TlsMode::Enforcing) == FirstByteVerdict::Refuse);
  CHECK(judgeFirstByte(0x16, TlsMode::Disabled) == FirstByteVerdict::Plaintext);
  CHECK(parseTlsMode("enforcing") == TlsMode::Enforcing);
  CHECK(parseTlsMode("permissive") == TlsMode::Permissive);
  CHECK(parseTlsMode("disabled") == TlsMode::Disabled);
  CHECK_FALSE(parseTlsMode("strict"));
  CHECK(parseClientAuth("REQUIRE") == ClientAuth::Require);
  CHECK(parseClientAuth("optional") == ClientAuth::Optional);
  CHECK(parseClientAuth("whatever") == ClientAuth::None);  // as TlsHelper.parseClientAuthMode
}

TEST_CASE("tls: a permissive port serves TLS and plaintext clients at once, small and large frames") {
  ServerFixture f(noIdle(), serverTls(TlsMode::Permissive));
  registerEcho(*f.dispatcher);
  REQUIRE(f.start());
  IoPool clientPool(2);
  clientPool.start();
  RemotingClient tls(clientPool, tlsClient());
  RemotingClient plain(clientPool);

  CHECK(roundTrip(tls, f.addr(), "over tls") == "over tls");
  CHECK(roundTrip(plain, f.addr(), "in the clear") == "in the clear");
  auto big = randomBytes(3 * 1024 * 1024 + 7, 1);  // many records; read straight into the frame's buffer
  CHECK(roundTrip(tls, f.addr(), big) == big);

  // Requests of every size side by side from several threads: writes are packed into records.
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        auto body = randomBytes(static_cast<size_t>((i * 7919 + t * 131) % 40000), static_cast<unsigned>(t * 100 + i));
        if (roundTrip(t % 2 ? plain : tls, f.addr(), body) == body) ++good;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(good.load() == 200);
  CHECK(f.server->connectionCount() == 2);
  tls.shutdown();
  plain.shutdown();
  clientPool.stop();
}

TEST_CASE("tls: an enforcing port refuses plaintext and serves TLS") {
  ServerFixture f(noIdle(), serverTls(TlsMode::Enforcing));
  registerEcho(*f.dispatcher);
  REQUIRE(f.start());
  RawSocket raw(f.server->port());
  raw.send(echo("plain"));
  CHECK(raw.closedByPeer());

  IoPool clientPool(1);
  clientPool.start();
  RemotingClient plain(clientPool);
  std::string error;
  CHECK(roundTrip(plain, f.addr(), "plain", &error).empty());
  CHECK(error.find("closed") != std::string::npos);
  RemotingClient tls(clientPool, tlsClient());
  CHECK(roundTrip(tls, f.addr(), "secret") == "secret");
  tls.shutdown();
  plain.shutdown();
  clientPool.stop();
}

TEST_CASE("tls: a disabled port never looks at the first byte: a ClientHello is a bad frame") {
  ServerFixture f(noIdle());  // ServerOptions default: disabled
  registerEcho(*f.dispatcher);
  REQUIRE(f.start());
  IoPool clientPool(1);
  clientPool.start();
  RemotingClient tls(clientPool, tlsClient());
  std::string error;
  CHECK(roundTrip(tls, f.addr(), "x", &error).empty());
  CHECK(error.find("TLS") != std::string::npos);
  RemotingClient plain(clientPool);
  CHECK(roundTrip(plain, f.addr(), "still fine") == "still fine");
  tls.shutdown();
  plain.shutdown();
  clientPool.stop();
}

TEST_CASE("tls: a handshake that never finishes, or garbage after the record type, closes only that connection") {
  ConnectionOptions o = noIdle();
  o.partialFrameTimeout = 1s;  // bounds the handshake
  ServerFixture f(o, serverTls(TlsMode::Permissive));
  registerEcho(*f.dispatcher);
  REQUIRE(f.start());
  IoPool clientPool(1);
  clientPool.start();
  RemotingClient tls(clientPool, tlsClient());
  REQUIRE(roundTrip(tls, f.addr(), "before") == "before");

  RawSocket stalled(f.server->port());
  stalled.write(std::string("\x16\x03\x01", 3));  // a record header, then nothing
  RawSocket garbage(f.server->port());
  garbage.write(std::string("\x16") + randomBytes(300, 7));
  CHECK(garbage.closedByPeer());
  auto t0 = std::chrono::steady_clock::now();
  CHECK(stalled.closedByPeer());  // RawSocket gives up after 5 s: this is the server closing
  auto waited = std::chrono::steady_clock::now() - t0;
  CHECK(waited < 4s);
  CHECK(roundTrip(tls, f.addr(), "after") == "after");  // the established connection is untouched
  tls.shutdown();
  clientPool.stop();
}

TEST_CASE("tls: client certificates (need.client.auth) and server verification (authServer)") {
  TlsTestCerts certs;
  REQUIRE(certs.ok());
  TlsServerSettings s;
  s.testMode = false;
  s.certPath = certs.path("server.crt");
  s.keyPath = certs.path("server.key");
  s.clientAuth = ClientAuth::Require;
  s.authClient = true;
  s.trustCertPath = certs.path("ca.crt");
  ServerFixture f(noIdle(), serverTls(TlsMode::Enforcing, s));
  registerEcho(*f.dispatcher);
  REQUIRE(f.start());
  IoPool clientPool(1);
  clientPool.start();

  TlsClientSettings anonymous;
  anonymous.testMode = false;
  RemotingClient noCert(clientPool, tlsClient(anonymous));
  std::string error;
  CHECK(roundTrip(noCert, f.addr(), "x", &error).empty());

  TlsClientSettings withCert = anonymous;
  withCert.certPath = certs.path("client.crt");
  withCert.keyPath = certs.path("client.key");
  withCert.authServer = true;
  withCert.trustCertPath = certs.path("ca.crt");
  RemotingClient mutual(clientPool, tlsClient(withCert));
  CHECK(roundTrip(mutual, f.addr(), "mutual") == "mutual");

  TlsClientSettings wrongTrust = withCert;
  wrongTrust.trustCertPath = certs.path("other-ca.crt");
  RemotingClient distrustful(clientPool, tlsClient(wrongTrust));
  error.clear();
  CHECK(roundTrip(distrustful, f.addr(), "x", &error).empty());
  CHECK(error.find("certificate verify failed") != std::string::npos);

  noCert.shutdown();
  mutual.shutdown();
  distrustful.shutdown();
  clientPool.stop();
}

TEST_CASE("tls: unusable certificate files and passwords are errors naming the key") {
  TlsTestCerts certs;
  REQUIRE(certs.ok());
  TlsServerSettings s;
  s.testMode = false;
  s.certPath = "/nonexistent/server.crt";
  s.keyPath = certs.path("server.key");
  auto missing = makeServerTlsContext(s);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("tls.server.certPath: cannot read /nonexistent/server.crt") == 0);

  s.certPath = certs.path("server.crt");
  s.keyPath = certs.path("server-enc.key");
  s.keyPassword = "wrong";
  auto wrong = makeServerTlsContext(s);
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().message.find("tls.server.keyPassword") == 0);
  s.keyPassword = "secret";
  CHECK(makeServerTlsContext(s).ok());

  s.keyPath = certs.path("client.key");  // not the certificate's key
  s.keyPassword.clear();
  auto mismatch = makeServerTlsContext(s);
  REQUIRE_FALSE(mismatch);
  CHECK(mismatch.error().message.find("tls.server.keyPath") == 0);

  TlsClientSettings c;
  c.testMode = false;
  c.authServer = true;
  c.trustCertPath = "/nonexistent/ca.crt";
  auto trust = makeClientTlsContext(c);
  REQUIRE_FALSE(trust);
  CHECK(trust.error().message.find("tls.client.trustCertPath") == 0);
}
