#pragma once
// HttpRequest / HttpResponse: the parsed request a handler sees and the response it returns.
// The server (http_server.*) owns parsing and the connection; handlers never see sockets.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rmq::http {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // target before '?', percent-decoded
  std::string query;   // target after '?', raw
  HeaderList headers;
  std::string body;
  std::string remoteAddress;  // "ip:port"

  // Header value by case-insensitive name.
  std::optional<std::string_view> header(std::string_view name) const;
  // Query parameter by exact name, percent-decoded ('+' = space).
  std::optional<std::string> param(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string contentType = "text/plain; charset=utf-8";
  HeaderList headers;  // extra headers (Content-Type and Content-Length are added by the server)
  std::string body;

  static HttpResponse text(std::string body, int status = 200);
  static HttpResponse json(std::string body, int status = 200);
  // {"error": message} with the status (400, 404, 403, 500 ...).
  static HttpResponse error(int status, std::string_view message);
};

// Reason phrase of a status code ("OK", "Not Found", ...).
std::string_view reasonPhrase(int status);
std::string percentDecode(std::string_view s, bool plusIsSpace);

}  // namespace rmq::http
