// TLS on the remoting ports of real rmqnode processes (issue 24, Java's tls.server.mode and
// TlsSystemConfig keys): a permissive dev node serves TLS and plaintext clients at once (and a
// third-party client, `openssl s_client`, completes the handshake); an enforcing node refuses
// plaintext with a log line and its broker registers with its name server over TLS; mutual TLS
// with tls.server.need.client.auth=require (keys from a Java-style tls.properties) refuses a
// client without a certificate; a disabled node reads a ClientHello as a bad frame; a bad
// certificate path stops start-up naming the key.
#include <doctest/doctest.h>

#include <cstdio>

#include "broker_requests.h"
#include "client/client_tls.h"
#include "client/producer/producer.h"
#include "client_fixture.h"
#include "common/request_code.h"
#include "dev_node.h"
#include "node_process.h"
#include "test_client.h"
#include "unit/net/tls_test_certs.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

net::TlsContextPtr anyServerTls() {  // Java's client in test mode: trusts any certificate
  auto ctx = net::makeClientTlsContext({});
  REQUIRE(ctx);
  return *ctx;
}

net::ClientOptions withTls(net::TlsContextPtr tls) {
  net::ClientOptions o;
  o.tls = std::move(tls);
  return o;
}

bool brokerListed(TestClient& c, const DevNode& node) {
  auto info = c.call(node.namesrvAddr, RequestCode::GET_BROKER_CLUSTER_INFO);
  return info.ok() && info->code == 0 && bodyOf(*info).find(node.brokerAddr) != std::string::npos;
}

// `openssl s_client` against 127.0.0.1:port: its whole output (certificate, protocol, verdict).
std::string opensslClient(uint16_t port, const std::string& extra = "") {
  std::string cmd = "openssl s_client -connect 127.0.0.1:" + std::to_string(port) + " " + extra +
                    " </dev/null 2>&1";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

}  // namespace

TEST_CASE("tls: a permissive dev node (the default) serves TLS and plaintext clients on one port") {
  DevNode node;  // no [tls] table: tls.server.mode=permissive, test mode: a self-signed certificate
  REQUIRE(node.start());
  std::string topic = uniqueName("TlsMixed");
  REQUIRE(node.createTopic(topic, 2));

  auto tlsOptions = producerOptions(node);
  tlsOptions.client.tls = anyServerTls();  // name server and broker both over TLS
  auto tlsProducer = startProducer(tlsOptions);
  auto plainProducer = startProducer(producerOptions(node));
  auto overTls = sendBodies(*tlsProducer, topic, "tls-", 20);
  auto inClear = sendBodies(*plainProducer, topic, "plain-", 20);
  CHECK(overTls.size() == 20);
  CHECK(inClear.size() == 20);

  auto pull = startPullConsumer(pullOptions(node));
  auto got = pullAll(*pull, topic);
  int tlsBodies = 0, plainBodies = 0;
  for (auto& m : got) {
    if (m.body.rfind("tls-", 0) == 0) ++tlsBodies;
    if (m.body.rfind("plain-", 0) == 0) ++plainBodies;
  }
  CHECK(tlsBodies == 20);
  CHECK(plainBodies == 20);
  pull->shutdown();
  tlsProducer->shutdown();
  plainProducer->shutdown();

  // A third-party client: OpenSSL's own completes the handshake and sees the test certificate.
  auto out = opensslClient(node.brokerPort);
  CHECK(out.find("CN = localhost") != std::string::npos);
  CHECK(out.find("Cipher is") != std::string::npos);
  CHECK(out.find("Cipher is (NONE)") == std::string::npos);
}

TEST_CASE("tls: an enforcing node refuses plaintext with a log line, serves TLS, and registers its broker over TLS") {
  DevNodeSpec spec;
  spec.tls = "\"server.mode\" = \"enforcing\"\n\"enable\" = true\n";  // enable: the broker's registration client
  spec.checkTls = anyServerTls();
  DevNode node(spec);
  REQUIRE(node.start());  // start() saw the broker in the name server's cluster info, asked over TLS

  TestClient plain;
  CHECK(codeOf(plain.call(node.namesrvAddr, RequestCode::GET_BROKER_CLUSTER_INFO)) == -1000);
  CHECK(codeOf(plain.call(node.brokerAddr, createTopicRequest(uniqueName("T"), 1))) == -1000);
  CHECK(eventually([&] { return node.brokerLog().find("plaintext connection refused") != std::string::npos; }, 5s));

  TestClient tls(withTls(anyServerTls()));
  CHECK(brokerListed(tls, node));
  std::string topic = uniqueName("TlsOnly");
  CHECK(codeOf(tls.call(node.brokerAddr, createTopicRequest(topic, 1))) == 0);
  CHECK(codeOf(tls.call(node.brokerAddr, sendRequest({.topic = topic, .body = "sealed"}))) == 0);

  // The client library over TLS (ClientConfig::tls): route from the name server, send to the broker.
  auto options = producerOptions(node);
  options.client.tls = anyServerTls();
  auto producer = startProducer(options);
  CHECK(sendBodies(*producer, topic, "library-", 3).size() == 3);
  producer->shutdown();
}

TEST_CASE("tls: need.client.auth=require (keys read from tls.config.file) refuses a client without a certificate") {
  TlsTestCerts certs;
  REQUIRE(certs.ok());
  DevNodeSpec spec;
  spec.tls = "\"server.mode\" = \"enforcing\"\n\"enable\" = true\n\"config.file\" = \"__FILE__\"\n";
  DevNode node(spec);
  // Java reads these from the file (TlsHelper.extractTlsConfigFromFile); the broker's own client
  // needs a certificate too, for its registration with the name server.
  std::string properties = "tls.test.mode.enable=false\n"
                           "tls.server.need.client.auth=require\n"
                           "tls.server.certPath=" + certs.path("server.crt") + "\n" +
                           "tls.server.keyPath=" + certs.path("server-enc.key") + "\n" +
                           "tls.server.keyPassword=secret\n"
                           "tls.server.authClient=true\n"
                           "tls.server.trustCertPath=" + certs.path("ca.crt") + "\n" +
                           "tls.client.certPath=" + certs.path("client.crt") + "\n" +
                           "tls.client.keyPath=" + certs.path("client.key") + "\n" +
                           "tls.client.authServer=true\n"
                           "tls.client.trustCertPath=" + certs.path("ca.crt") + "\n";
  std::string file = node.proc.writeFile("tls.properties", properties);
  node.replaceConfigLine("__FILE__", file);
  net::TlsClientSettings mine;
  mine.testMode = false;
  mine.certPath = certs.path("client.crt");
  mine.keyPath = certs.path("client.key");
  mine.authServer = true;
  mine.trustCertPath = certs.path("ca.crt");
  auto withCert = net::makeClientTlsContext(mine);
  REQUIRE(withCert);
  node.checkTls = *withCert;
  REQUIRE(node.start());  // the broker registered: its client certificate was accepted

  TestClient anonymous(withTls(anyServerTls()));
  CHECK(codeOf(anonymous.call(node.namesrvAddr, RequestCode::GET_BROKER_CLUSTER_INFO)) == -1000);
  TestClient mutual(withTls(*withCert));
  CHECK(brokerListed(mutual, node));
  // OpenSSL's client verifies our chain against the CA; without a certificate it is refused.
  auto out = opensslClient(node.brokerPort, "-CAfile " + certs.path("ca.crt"));
  CHECK(out.find("Verify return code: 0 (ok)") != std::string::npos);
}

TEST_CASE("tls: a disabled node never looks: a ClientHello is a bad frame, as before") {
  DevNodeSpec spec;
  spec.tls = "\"server.mode\" = \"disabled\"\n";
  DevNode node(spec);
  REQUIRE(node.start());
  TestClient tls(withTls(anyServerTls()));
  CHECK(codeOf(tls.call(node.namesrvAddr, RequestCode::GET_BROKER_CLUSTER_INFO)) == -1000);
  CHECK(eventually([&] { return node.brokerLog().find("bad frame length 369") != std::string::npos; }, 5s));
  TestClient plain;
  CHECK(brokerListed(plain, node));
}

TEST_CASE("tls: an unusable certificate path or key password stops start-up, naming the key (exit 2)") {
  NodeProcess node;
  node.writeFile("bad.toml", "logDir = \"" + node.path("logs") + "\"\n[tls]\n\"test.mode.enable\" = false\n"
                             "\"server.certPath\" = \"/nonexistent/server.crt\"\n\"server.keyPath\" = \"/nonexistent/k\"\n");
  auto r = node.run({"--role=namesrv", "-c", node.path("bad.toml")});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("tls.server.certPath: cannot read /nonexistent/server.crt") != std::string::npos);

  TlsTestCerts certs;
  REQUIRE(certs.ok());
  node.writeFile("tls.properties", "tls.test.mode.enable=false\ntls.server.certPath=" + certs.path("server.crt") +
                                       "\ntls.server.keyPath=" + certs.path("server-enc.key") +
                                       "\ntls.server.keyPassword=wrong\n");
  node.writeFile("pw.properties", "tls.config.file=" + node.path("tls.properties") + "\n");
  auto pw = node.run({"--role=namesrv", "-c", node.path("pw.properties")});
  CHECK(pw.exitCode == 2);
  CHECK(pw.err.find("tls.server.keyPassword") != std::string::npos);
}
