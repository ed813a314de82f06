#pragma once
// The built-in console: JSON endpoints under /api/ and the single-page UI at / (assets embedded in
// the binary). It talks to the name servers like any client (an AdminClient, and a Producer for
// test sends), so one node's HTTP port shows the whole cluster.
// Threads: handlers are coroutines called on the HTTP server's io threads; each request hops to
// the AdminClient's own io thread (the client's sockets live there) and back, so no network
// thread of the node ever waits on a cluster call.
// Lifecycle: Console(options) -> start() -> registerRoutes(router) -> ... -> shutdown().
#include <memory>
#include <string>

#include "http/http_router.h"
#include "common/result.h"
#include "net/tls_context.h"

namespace rmq::console {

struct ConsoleOptions {
  std::string namesrvAddr;  // "host:port;host:port" the console's clients use
  bool readOnly = false;    // consoleReadOnly: create/delete topic, reset offset and send answer 403
  net::TlsContextPtr tls;   // the clients connect with TLS (a node whose ports enforce it); null: plaintext
};

class Console {
 public:
  explicit Console(ConsoleOptions options);
  ~Console();
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  // Starts the admin client (the producer starts with the first test send). Needs no cluster up yet.
  Result<void> start();
  void shutdown();
  // Adds GET / (and the assets) and every /api/ route. The Console must outlive the router's use.
  void registerRoutes(http::HttpRouter& router);

  struct State;  // clients and per-console samples (console_handlers.h)

 private:
  std::shared_ptr<State> state_;
};

}  // namespace rmq::console
