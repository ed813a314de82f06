#include "roles/broker/messaging/grpc_acl.h"

#include "acl/access_request.h"
#include "common/message_id.h"
#include "coord/base64.h"

namespace rmq::broker::messaging {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == ',')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == ',')) s.remove_suffix(1);
  return s;
}

// "a=b" items separated by ", " after the scheme.
std::string_view itemOf(std::string_view rest, std::string_view key) {
  size_t pos = 0;
  while (pos < rest.size()) {
    size_t end = rest.find(',', pos);
    if (end == std::string_view::npos) end = rest.size();
    auto item = trim(rest.substr(pos, end - pos));
    if (item.size() > key.size() && item.substr(0, key.size()) == key && item[key.size()] == '=')
      return item.substr(key.size() + 1);
    pos = end + 1;
  }
  return {};
}

}  // namespace

std::optional<GrpcCredential> parseAuthorization(std::string_view value) {
  constexpr std::string_view kScheme = "MQv2-HMAC-SHA1 ";
  if (value.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  auto rest = value.substr(kScheme.size());
  GrpcCredential c{std::string(itemOf(rest, "Credential")), std::string(itemOf(rest, "Signature"))};
  // Credential may carry "<accessKey>/<scope>" in other SDKs: the key is before the first '/'.
  c.accessKey = c.accessKey.substr(0, c.accessKey.find('/'));
  if (c.accessKey.empty() || c.signatureHex.empty()) return std::nullopt;
  return c;
}

std::optional<v2::Status> GrpcAcl::check(const grpc::ServerCall& call, int requestCode,
                                         const AclResources& resources) const {
  if (!manager_) return std::nullopt;
  acl::AccessRequest req;
  const std::string& peer = call.peerAddress();
  req.ip = peer.substr(0, peer.rfind(':'));
  if (req.ip.size() > 2 && req.ip.front() == '[') req.ip = req.ip.substr(1, req.ip.size() - 2);
  req.code = requestCode;
  auto cred = parseAuthorization(call.metadata("authorization"));
  if (cred) {
    req.accessKey = cred->accessKey;
    // The signed content is the x-mq-date-time value; the client sends the HMAC in hex, the rules
    // compare Base64 (remoting's form) of the same HMAC bytes.
    std::string raw;
    req.signature = fromHex(cred->signatureHex, raw) ? coord::base64Encode(raw) : cred->signatureHex;
    req.content.fields = std::string(call.metadata("x-mq-date-time"));
  }
  for (const auto& [name, perm] : resources) req.add(name, perm);
  auto denied = manager_->check(req);
  if (!denied) return std::nullopt;
  // A missing, unknown or badly signed credential is UNAUTHORIZED; a permission FORBIDDEN.
  const bool who = !cred || denied->message.starts_with("No accessKey") || denied->message.starts_with("No acl config") ||
                   denied->message.starts_with("Check signature");
  return makeStatus(who ? v2::Code::UNAUTHORIZED : v2::Code::FORBIDDEN, denied->message);
}

}  // namespace rmq::broker::messaging
