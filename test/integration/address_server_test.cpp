// The name-server address server (Java's TopAddressing): a small HTTP server in the test answers
// GET /rocketmq/<subgroup> with "host:port"; a broker without namesrvAddr and with
// fetchNamesrvAddrByAddressServer registers with the name server it names, and rmqadmin without -n
// and NAMESRV_ADDR (rocketmq.namesrv.domain in its environment, as Java's client) finds it too.
#include <doctest/doctest.h>

#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read_until.hpp>
#include <asio/write.hpp>

#include <atomic>
#include <mutex>
#include <thread>

#include "namesrv_client.h"
#include "node_config.h"
#include "client/client_instance.h"
#include "net/top_addressing.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

// Answers every GET with `body` (200) on 127.0.0.1, one request per connection; records the paths.
class AddressServer {
 public:
  explicit AddressServer(std::string body, int status = 200) : body_(std::move(body)), status_(status) {
    acceptor_.open(asio::ip::tcp::v4());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind({asio::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
    port = acceptor_.local_endpoint().port();
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~AddressServer() {
    io_.stop();
    thread_.join();
  }
  std::vector<std::string> paths() {
    std::lock_guard lock(mu_);
    return paths_;
  }
  void setBody(std::string body) {
    std::lock_guard lock(mu_);
    body_ = std::move(body);
  }
  uint16_t port = 0;

 private:
  void accept() {
    acceptor_.async_accept([this](asio::error_code ec, asio::ip::tcp::socket sock) {
      if (ec) return;
      std::string head;
      asio::error_code rec;
      asio::read_until(sock, asio::dynamic_buffer(head), "\r\n\r\n", rec);  // small requests on loopback: blocking is fine here
      std::string body;
      {
        std::lock_guard lock(mu_);
        paths_.push_back(head.substr(0, head.find("\r\n")));
        body = body_;
      }
      std::string reply = "HTTP/1.1 " + std::to_string(status_) + " X\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
      asio::write(sock, asio::buffer(reply), rec);
      accept();
    });
  }
  std::string body_;
  int status_;
  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_{io_};
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> paths_;
};

}  // namespace

TEST_CASE("address server: the URL as MixAll.getWSAddr; fetch trims to the first line; errors are values") {
  CHECK(net::addressServerUrl("jmenv.tbsite.net", "nsaddr") == "http://jmenv.tbsite.net:8080/rocketmq/nsaddr");
  CHECK(net::addressServerUrl("127.0.0.1:8081", "nsaddr-a") == "http://127.0.0.1:8081/rocketmq/nsaddr-a");
  AddressServer ok("  127.0.0.1:9876;127.0.0.2:9876\r\nignored\n");
  auto url = net::addressServerUrl("127.0.0.1:" + std::to_string(ok.port), "g1");
  auto got = net::fetchNamesrvAddr(url, 3s);
  REQUIRE_MESSAGE(got, (got ? "" : got.error().message));
  CHECK(*got == "127.0.0.1:9876;127.0.0.2:9876");
  CHECK(ok.paths() == std::vector<std::string>{"GET /rocketmq/g1 HTTP/1.1"});
  AddressServer missing("not here", 404);
  auto notFound = net::fetchNamesrvAddr(net::addressServerUrl("127.0.0.1:" + std::to_string(missing.port), "g1"), 3s);
  REQUIRE_FALSE(notFound);
  CHECK(notFound.error().message.find("statusCode=404") != std::string::npos);
  auto refused = net::fetchNamesrvAddr("http://127.0.0.1:" + std::to_string(freePort()) + "/rocketmq/x", 3s);
  CHECK_FALSE(refused);
}

TEST_CASE("address server: a broker without namesrvAddr registers where it points; rmqadmin without -n finds it") {
  Namesrv ns;
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  AddressServer http(ns.addr + "\n");
  std::string domain = "127.0.0.1:" + std::to_string(http.port);

  NodeProcess broker;
  BrokerToml b{.port = freeBrokerPort(), .name = "broker-as"};
  b.extraBroker = "fetchNamesrvAddrByAddressServer = true\nrmqAddressServerDomain = \"" + domain +
                  "\"\nrmqAddressServerSubGroup = \"nsaddr-test\"\n";
  broker.writeFile("b.toml", logDirToml(broker) + brokerToml(broker, b));
  broker.setArgs({"--role=master", "-c", broker.path("b.toml")});
  broker.waitForPorts({b.port});
  REQUIRE_MESSAGE(broker.start(), broker.stderrText());
  // The broker listens before it asks the address server: wait for its request.
  REQUIRE(eventually([&] { return !http.paths().empty(); }, 10s));
  CHECK(http.paths().front() == "GET /rocketmq/nsaddr-test HTTP/1.1");

  NodeProcess admin(RMQADMIN_BIN);
  admin.setEnv("rocketmq.namesrv.domain", domain);
  admin.setEnv("rocketmq.namesrv.domain.subgroup", "nsaddr-test");
  RunResult list;
  CHECK(eventually([&] {
    list = admin.run({"clusterList"});
    return list.exitCode == 0 && list.out.find("broker-as") != std::string::npos;
  }, 10s));
  INFO(list.out << list.err);
  CHECK(http.paths().size() >= 2);  // the broker's fetch and rmqadmin's
  CHECK(broker.stop() == 0);
}

TEST_CASE("address server: a client asks it again and follows a changed name-server list") {
  AddressServer http("127.0.0.1:19876\n");
  std::string domain = "127.0.0.1:" + std::to_string(http.port);
  // The client reads the domain from its environment, as Java's reads rocketmq.namesrv.domain.
  ::setenv("ROCKETMQ_NAMESRV_DOMAIN", domain.c_str(), 1);
  ::unsetenv("NAMESRV_ADDR");
  client::ClientConfig cfg;
  cfg.namesrvAddrRefreshInterval = 200ms;
  auto instance = client::ClientInstance::create(cfg, "addr-refresh@test");
  ::unsetenv("ROCKETMQ_NAMESRV_DOMAIN");
  REQUIRE(instance->start());
  CHECK(instance->nameServers() == std::vector<std::string>{"127.0.0.1:19876"});
  http.setBody("127.0.0.1:19877;127.0.0.1:19878\n");
  CHECK(eventually([&] { return instance->nameServers().size() == 2; }, 10s));
  CHECK(instance->nameServers() == std::vector<std::string>{"127.0.0.1:19877", "127.0.0.1:19878"});
  http.setBody("\n");  // an empty answer keeps the list it has
  auto asked = http.paths().size();
  CHECK(eventually([&] { return http.paths().size() >= asked + 2; }, 10s));
  CHECK(instance->nameServers().size() == 2);
  instance->shutdown();
}
