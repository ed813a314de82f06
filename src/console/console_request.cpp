// Request helpers shared by the /api/ handlers: fields, integers, error responses.
#include <charconv>
#include <chrono>

#include "common/response_code.h"
#include "console/console_handlers.h"
#include "console/console_json.h"

namespace rmq::console {

std::optional<std::string> field(const http::HttpRequest& req, std::string_view name) {
  if (auto v = req.param(name)) return v;
  auto type = req.header("Content-Type");
  if (!type || type->find("application/x-www-form-urlencoded") == std::string_view::npos) return std::nullopt;
  http::HttpRequest form;
  form.query = req.body;
  return form.param(name);
}

std::optional<std::string> nonEmpty(const http::HttpRequest& req, std::string_view name) {
  auto v = field(req, name);
  if (!v || v->empty()) return std::nullopt;
  return v;
}

std::optional<int64_t> intField(const http::HttpRequest& req, std::string_view name, int64_t dflt) {
  auto v = field(req, name);
  if (!v || v->empty()) return dflt;
  int64_t out = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || end != v->data() + v->size()) return std::nullopt;
  return out;
}

int httpStatusOf(int code) {
  if (code < 0) return 502;  // timeout, connect failed, connection closed: a node did not answer
  switch (code) {
    case ResponseCode::TOPIC_NOT_EXIST:
    case ResponseCode::QUERY_NOT_FOUND:
    case ResponseCode::CONSUMER_NOT_ONLINE:
    case ResponseCode::SUBSCRIPTION_GROUP_NOT_EXIST:
    case ResponseCode::NO_MESSAGE:
      return 404;
    case ResponseCode::MESSAGE_ILLEGAL:
    case ResponseCode::NO_PERMISSION:
      return 400;
    default:
      return 500;
  }
}

http::HttpResponse failure(const Error& e) { return http::HttpResponse::json(errorJson(e.message, e.code), httpStatusOf(e.code)); }

http::HttpResponse badRequest(std::string_view message) { return http::HttpResponse::json(errorJson(message, 400), 400); }

std::chrono::milliseconds brokerCallTimeout(const Console::State& s) { return s.admin->instance().config().rpcTimeout; }

}  // namespace rmq::console
