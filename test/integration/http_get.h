#pragma once
// A blocking HTTP/1.1 client for tests of the node's HTTP endpoint: one request per connection
// ("Connection: close"), a 10 s receive timeout, the response split into status, headers, body.
// Also reads a sample out of a Prometheus text scrape.
#include <cstdint>
#include <optional>
#include <string>

namespace rmq::test {

struct HttpReply {
  int status = 0;  // 0 = no answer (connect refused, closed, timed out)
  std::string headers;
  std::string body;
};

// `contentType` (when not empty) is sent as the Content-Type header.
HttpReply httpRequest(uint16_t port, const std::string& method, const std::string& target, const std::string& body = "",
                      const std::string& contentType = "");
inline HttpReply httpGet(uint16_t port, const std::string& target) { return httpRequest(port, "GET", target); }
// POST with an application/x-www-form-urlencoded body (the console's forms).
inline HttpReply httpPostForm(uint16_t port, const std::string& target, const std::string& form) {
  return httpRequest(port, "POST", target, form, "application/x-www-form-urlencoded");
}
// Percent-encodes a query or form value.
std::string urlEncode(const std::string& s);

// The value of the sample whose line starts with `series` (name{labels} exactly as written, or a
// bare name) in a text exposition; nullopt when absent.
std::optional<double> metricValue(const std::string& scrape, const std::string& series);
inline double metricValueOr0(const std::string& scrape, const std::string& series) {
  return metricValue(scrape, series).value_or(0);
}
// The labels of the dev node's broker on its broker-level series.
inline std::string devBrokerLabels() { return "cluster=\"DefaultCluster\",broker=\"broker-a\""; }
// Long polls the dev node's broker holds parked now (rmqnode_pull_parked from /metrics on
// `httpPort`); nullopt without a scrape. Tests wait on it before acting on a parked pull.
std::optional<double> parkedPulls(uint16_t httpPort);

}  // namespace rmq::test
