#pragma once
// The /api/ handlers. Each runs on the AdminClient's io thread (Console hops there), so they may
// await admin calls directly and share the State's samples without locks.
#include <asio/awaitable.hpp>
#include <asio/co_spawn.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "client/admin/admin_client.h"
#include "client/producer/producer.h"
#include "common/wall_clock.h"
#include "console/console.h"
#include "http/http_message.h"

namespace rmq::console {

struct Console::State {
  ConsoleOptions options;
  std::unique_ptr<client::AdminClient> admin;
  // Started by the first test send, so a node whose console never sends registers no producer
  // group with the brokers. Admin io thread only (Console::shutdown stops it after the server).
  std::unique_ptr<client::Producer> producer;
  // Last (maxOffsetSum, ms) per topic, for its TPS between two requests. Admin io thread only.
  std::map<std::string, std::pair<int64_t, int64_t>> topicSamples;
};

using Handler = asio::awaitable<http::HttpResponse> (*)(Console::State&, const http::HttpRequest&);

// Runs `task` on `io` and resumes the caller on its own executor with the result.
template <class T>
asio::awaitable<std::optional<T>> wrapOptional(asio::awaitable<T> task) {
  T value = co_await std::move(task);
  co_return std::optional<T>(std::move(value));
}
template <class T>
asio::awaitable<T> runOn(asio::io_context& io, asio::awaitable<T> task) {
  auto wrapped = wrapOptional(std::move(task));  // co_spawn's T must be default-constructible
  std::optional<T> result = co_await asio::co_spawn(io, std::move(wrapped), asio::use_awaitable);
  co_return std::move(*result);
}

// The deadline of one call to a broker when a handler asks several at once (net::whenAll): the
// admin client's rpcTimeout, so one broker that does not answer costs a page that long, once.
std::chrono::milliseconds brokerCallTimeout(const Console::State& s);

// ---- request helpers (console_request.cpp) ----
// A parameter from the query string, else from an application/x-www-form-urlencoded body.
std::optional<std::string> field(const http::HttpRequest& req, std::string_view name);
// A present, non-empty field; nullopt when missing.
std::optional<std::string> nonEmpty(const http::HttpRequest& req, std::string_view name);
// An integer field; `dflt` when absent; nullopt when present but not an integer.
std::optional<int64_t> intField(const http::HttpRequest& req, std::string_view name, int64_t dflt);
// HTTP status for a RocketMQ response code (404 not found, 502 transport, 400 bad request, 500 else).
int httpStatusOf(int rocketmqCode);
http::HttpResponse failure(const Error& e);
http::HttpResponse badRequest(std::string_view message);

// ---- cluster, brokers, topics (console_topics.cpp) ----
asio::awaitable<http::HttpResponse> getConsoleInfo(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> getCluster(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> getBrokerRuntime(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> getBrokerConfig(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> getTopics(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> getTopic(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> postTopic(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> deleteTopic(Console::State&, const http::HttpRequest&);

// ---- consumer groups, producer connections (console_groups.cpp) ----
asio::awaitable<http::HttpResponse> getGroups(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> getGroup(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> postResetOffset(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> getProducers(Console::State&, const http::HttpRequest&);

// ---- messages (console_messages.cpp) ----
asio::awaitable<http::HttpResponse> getMessagesByKey(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> getMessageById(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> getMessageByOffset(Console::State&, const http::HttpRequest&);
asio::awaitable<http::HttpResponse> postMessage(Console::State&, const http::HttpRequest&);

}  // namespace rmq::console
