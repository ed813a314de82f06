#include "console/console.h"

#include <exception>

#include "common/log.h"
#include "console/console_assets.h"
#include "console/console_handlers.h"
#include "console/console_json.h"

namespace rmq::console {
namespace {

struct RouteSpec {
  const char* method;
  const char* path;
  Handler handler;
  bool write;  // refused with 403 when read-only
};

const RouteSpec kRoutes[] = {
    {"GET", "/api/console", &getConsoleInfo, false},
    {"GET", "/api/cluster", &getCluster, false},
    {"GET", "/api/broker/runtime", &getBrokerRuntime, false},
    {"GET", "/api/broker/config", &getBrokerConfig, false},
    {"GET", "/api/topics", &getTopics, false},
    {"GET", "/api/topic", &getTopic, false},
    {"POST", "/api/topic", &postTopic, true},
    {"DELETE", "/api/topic", &deleteTopic, true},
    {"GET", "/api/groups", &getGroups, false},
    {"GET", "/api/group", &getGroup, false},
    {"POST", "/api/group/reset-offset", &postResetOffset, true},
    {"GET", "/api/producers", &getProducers, false},
    {"GET", "/api/messages/by-key", &getMessagesByKey, false},
    {"GET", "/api/messages/by-id", &getMessageById, false},
    {"GET", "/api/messages/by-offset", &getMessageByOffset, false},
    {"POST", "/api/messages", &postMessage, true},
};

asio::awaitable<http::HttpResponse> dispatch(std::shared_ptr<Console::State> state, Handler handler, bool write,
                                             const http::HttpRequest& req) {
  if (write && state->options.readOnly)
    co_return http::HttpResponse::json(errorJson("the console is read-only (consoleReadOnly = true)", 403), 403);
  try {
    auto task = handler(*state, req);
    http::HttpResponse resp = co_await runOn(state->admin->instance().io(), std::move(task));
    resp.headers.emplace_back("Cache-Control", "no-store");
    co_return resp;
  } catch (const std::exception& e) {
    log::warn("console: {} {}: {}", req.method, req.path, e.what());
    co_return http::HttpResponse::json(errorJson(e.what(), 1), 500);
  }
}

asio::awaitable<http::HttpResponse> serveAsset(const Asset* asset) {
  http::HttpResponse resp;
  resp.contentType = std::string(asset->contentType);
  resp.body = std::string(asset->body);
  co_return resp;
}

asio::awaitable<http::HttpResponse> serveIndex(const Asset* index, const http::HttpRequest& req) {
  if (req.path != "/") co_return http::HttpResponse::error(404, "no such path: " + req.path);
  if (req.method != "GET" && req.method != "HEAD") co_return http::HttpResponse::error(405, "use GET");
  http::HttpResponse resp;
  resp.contentType = std::string(index->contentType);
  resp.body = std::string(index->body);
  co_return resp;
}

}  // namespace

Console::Console(ConsoleOptions options) : state_(std::make_shared<State>()) {
  state_->options = std::move(options);
}

Console::~Console() { shutdown(); }

Result<void> Console::start() {
  client::ClientConfig cfg;
  cfg.namesrvAddr = state_->options.namesrvAddr;
  cfg.tls = state_->options.tls;
  state_->admin = std::make_unique<client::AdminClient>(cfg);
  return state_->admin->start();  // the producer starts with the first test send (console_messages.cpp)
}

void Console::shutdown() {
  if (state_->producer) state_->producer->shutdown();
  if (state_->admin) state_->admin->shutdown();
}

void Console::registerRoutes(http::HttpRouter& router) {
  for (const RouteSpec& r : kRoutes) {
    std::shared_ptr<State> state = state_;
    Handler handler = r.handler;
    bool write = r.write;
    router.add(r.method, r.path, [state, handler, write](const http::HttpRequest& req) {
      return dispatch(state, handler, write, req);
    });
  }
  for (const Asset& a : embeddedAssets()) {
    const Asset* asset = &a;
    router.add("GET", std::string(a.path), [asset](const http::HttpRequest&) { return serveAsset(asset); });
    // "/" is a prefix route (it ends in '/'): every path no other route takes lands here.
    if (a.path == "/index.html")
      router.add("", "/", [asset](const http::HttpRequest& req) { return serveIndex(asset, req); });
  }
}

}  // namespace rmq::console
