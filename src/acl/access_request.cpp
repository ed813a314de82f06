#include "acl/access_request.h"

#include <algorithm>

#include "acl/permission.h"
#include "acl/signature.h"
#include "common/java_string_map.h"
#include "common/json.h"
#include "common/request_code.h"

namespace rmq::acl {
namespace {

std::optional<std::string> field(const net::RemotingCommand& cmd, std::string_view key) {
  if (auto* v = cmd.extFields.find(key)) return *v;
  return std::nullopt;
}

// decodeCommandCustomHeader's @CFNotNull check, in the header's declared field order.
std::optional<std::string> missingField(const net::RemotingCommand& cmd, std::initializer_list<std::string_view> keys) {
  for (auto k : keys)
    if (!cmd.extFields.contains(k)) return "the custom field <" + std::string(k) + "> is null";
  return std::nullopt;
}

// HEART_BEAT: every consumer group (SUB on its retry topic) and every subscribed topic (SUB).
std::optional<std::string> heartbeatResources(const net::RemotingCommand& cmd, AccessRequest& req) {
  rapidjson::Document doc;
  if (auto r = json::parse(cmd.body, doc); !r) return r.error().message;
  if (!doc.IsObject()) return std::string("heartbeat body is not a JSON object");
  auto set = doc.FindMember("consumerDataSet");
  if (set == doc.MemberEnd() || !set->value.IsArray()) return std::nullopt;
  for (const auto& data : set->value.GetArray()) {
    if (!data.IsObject()) continue;
    if (auto group = json::getString(data, "groupName")) req.add(retryTopic(*group), Perm::SUB);
    auto subs = data.FindMember("subscriptionDataSet");
    if (subs == data.MemberEnd() || !subs->value.IsArray()) continue;
    for (const auto& sub : subs->value.GetArray())
      if (sub.IsObject())
        if (auto topic = json::getString(sub, "topic")) req.add(std::string(*topic), Perm::SUB);
  }
  return std::nullopt;
}

}  // namespace

void AccessRequest::add(std::string resource, uint8_t perm) {
  for (auto& r : resources)
    if (r.first == resource) {
      r.second = perm;
      return;
    }
  resources.emplace_back(std::move(resource), perm);
}

void sortLikeJavaHashMap(std::vector<std::pair<std::string, uint8_t>>& entries) {
  JavaStringMap order;  // keys only: the entries are put in their order, as Java's resourcePermMap
  for (auto& e : entries) order.put(e.first, {});
  std::vector<std::pair<std::string, uint8_t>> sorted;
  sorted.reserve(entries.size());
  order.forEach([&](std::string_view key, std::string_view) {
    auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
    sorted.push_back(std::move(*it));
  });
  entries = std::move(sorted);
}

ParsedAccess parseAccess(const net::RemotingCommand& cmd, const std::string& remoteAddr) {
  ParsedAccess out;
  AccessRequest& req = out.request;
  auto colon = remoteAddr.rfind(':');
  req.ip = colon == std::string::npos ? remoteAddr : remoteAddr.substr(0, colon);
  req.code = cmd.code;
  req.accessKey = field(cmd, kAccessKey);
  req.signature = field(cmd, kSignature);
  auto addGroup = [&](const std::optional<std::string>& group) {
    if (group) req.add(retryTopic(*group), Perm::SUB);
  };
  auto addTopic = [&](const std::optional<std::string>& topic, uint8_t perm) {
    if (topic) req.add(*topic, perm);
  };
  switch (cmd.code) {
    case RequestCode::SEND_MESSAGE: {
      auto topic = field(cmd, "topic");
      if (topic && isRetryTopic(*topic)) addGroup(field(cmd, "group"));
      else addTopic(topic, Perm::PUB);
      break;
    }
    case RequestCode::SEND_MESSAGE_V2: {
      auto topic = field(cmd, "b");
      if (topic && isRetryTopic(*topic)) addGroup(field(cmd, "a"));
      else addTopic(topic, Perm::PUB);
      break;
    }
    case RequestCode::CONSUMER_SEND_MSG_BACK:
      addGroup(field(cmd, "group"));
      break;
    case RequestCode::PULL_MESSAGE:
      addTopic(field(cmd, "topic"), Perm::SUB);
      addGroup(field(cmd, "consumerGroup"));
      break;
    case RequestCode::QUERY_MESSAGE:
      addTopic(field(cmd, "topic"), Perm::SUB);
      break;
    case RequestCode::HEART_BEAT:
      out.error = heartbeatResources(cmd, req);
      break;
    case RequestCode::UNREGISTER_CLIENT:
      out.error = missingField(cmd, {"clientID"});
      addGroup(field(cmd, "consumerGroup"));
      break;
    case RequestCode::GET_CONSUMER_LIST_BY_GROUP:
      out.error = missingField(cmd, {"consumerGroup"});
      addGroup(field(cmd, "consumerGroup"));
      break;
    case RequestCode::UPDATE_CONSUMER_OFFSET:
      out.error = missingField(cmd, {"consumerGroup", "topic", "queueId", "commitOffset"});
      addGroup(field(cmd, "consumerGroup"));
      addTopic(field(cmd, "topic"), Perm::SUB);
      break;
    default:
      break;
  }
  if (out.error) return out;
  sortLikeJavaHashMap(req.resources);
  req.content = signedParts(cmd, true);
  return out;
}

}  // namespace rmq::acl
