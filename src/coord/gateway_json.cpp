#include "coord/gateway_json.h"

#include <optional>

#include "common/json.h"
#include "coord/base64.h"

namespace rmq::coord {

std::string prefixRangeEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

namespace gateway {
namespace {

Error rejected(std::string message) { return Error{kEtcdRejected, "etcd: " + std::move(message)}; }

void writeBytes(json::Writer& w, const char* name, std::string_view bytes) {
  w.Key(name);
  auto b64 = base64Encode(bytes);
  w.String(b64.data(), static_cast<rapidjson::SizeType>(b64.size()));
}

void writeInt64(json::Writer& w, const char* name, int64_t v) {
  w.Key(name);
  auto text = std::to_string(v);
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

// key (and range_end for a prefix); an empty key with prefix means every key ("\0", "\0"), as clientv3.
void writeKeyRange(json::Writer& w, std::string_view key, bool prefix) {
  if (prefix && key.empty()) {
    writeBytes(w, "key", std::string_view("\0", 1));
    writeBytes(w, "range_end", std::string_view("\0", 1));
    return;
  }
  writeBytes(w, "key", key);
  if (prefix) writeBytes(w, "range_end", prefixRangeEnd(key));
}

std::string text(json::Buffer& buf) { return std::string(buf.GetString(), buf.GetSize()); }

void writeOp(json::Writer& w, const TxnOp& op) {
  w.StartObject();
  switch (op.kind) {
    case TxnOp::Kind::Put:
      w.Key("request_put");
      w.StartObject();
      writeBytes(w, "key", op.key);
      writeBytes(w, "value", op.value);
      if (op.lease != 0) writeInt64(w, "lease", op.lease);
      break;
    case TxnOp::Kind::Delete:
      w.Key("request_delete_range");
      w.StartObject();
      writeKeyRange(w, op.key, op.prefix);
      break;
    case TxnOp::Kind::Range:
      w.Key("request_range");
      w.StartObject();
      writeKeyRange(w, op.key, op.prefix);
      break;
  }
  w.EndObject();
  w.EndObject();
}

void writeCompare(json::Writer& w, const Compare& c) {
  static constexpr const char* kTargets[] = {"VERSION", "CREATE", "MOD", "VALUE", "LEASE"};
  static constexpr const char* kFields[] = {"version", "create_revision", "mod_revision", "value", "lease"};
  static constexpr const char* kOps[] = {"EQUAL", "GREATER", "LESS", "NOT_EQUAL"};
  const auto target = static_cast<size_t>(c.target);
  w.StartObject();
  writeBytes(w, "key", c.key);
  w.Key("target");
  w.String(kTargets[target]);
  w.Key("result");
  w.String(kOps[static_cast<size_t>(c.op)]);
  if (c.target == Compare::Target::Value) writeBytes(w, kFields[target], c.value);
  else writeInt64(w, kFields[target], c.number);
  w.EndObject();
}

void writeOps(json::Writer& w, const char* name, const std::vector<TxnOp>& ops) {
  w.Key(name);
  w.StartArray();
  for (const auto& op : ops) writeOp(w, op);
  w.EndArray();
}

// A member under its snake_case name (etcd 3.4) or its camelCase one (jsonpb without OrigName).
const rapidjson::Value* member(const rapidjson::Value& obj, const char* snake, const char* camel = nullptr) {
  if (!obj.IsObject()) return nullptr;
  if (auto it = obj.FindMember(snake); it != obj.MemberEnd()) return &it->value;
  if (camel) {
    if (auto it = obj.FindMember(camel); it != obj.MemberEnd()) return &it->value;
  }
  return nullptr;
}

// An int64 field: a JSON string (proto3) or number; absent = 0; nullopt when it is something else.
std::optional<int64_t> int64Field(const rapidjson::Value& obj, const char* snake, const char* camel = nullptr) {
  const auto* v = member(obj, snake, camel);
  if (!v) return 0;
  if (v->IsInt64()) return v->GetInt64();
  if (!v->IsString()) return std::nullopt;
  std::string_view s(v->GetString(), v->GetStringLength());
  if (s.empty()) return std::nullopt;
  int64_t n = 0;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9' || n > (INT64_MAX - 9) / 10) return std::nullopt;
    n = n * 10 + (s[i] - '0');
  }
  return s[0] == '-' ? -n : n;
}

// A bytes field: base64 text; absent = empty.
std::optional<std::string> bytesField(const rapidjson::Value& obj, const char* name) {
  const auto* v = member(obj, name);
  if (!v) return std::string();
  if (!v->IsString()) return std::nullopt;
  return base64Decode(std::string_view(v->GetString(), v->GetStringLength()));
}

Result<void> parseObject(std::string_view body, rapidjson::Document& doc) {
  if (auto r = json::parse(body, doc); !r) return rejected("undecodable answer: " + r.error().message);
  if (!doc.IsObject()) return rejected("answer is not a JSON object");
  return {};
}

std::optional<int64_t> headerRevision(const rapidjson::Value& obj) {
  const auto* header = member(obj, "header");
  return header ? int64Field(*header, "revision") : std::optional<int64_t>(0);
}

Result<std::vector<KeyValue>> kvsOf(const rapidjson::Value& rangeResponse) {
  std::vector<KeyValue> out;
  const auto* kvs = member(rangeResponse, "kvs");
  if (!kvs) return out;
  if (!kvs->IsArray()) return rejected("range answer: kvs is not an array");
  for (const auto& item : kvs->GetArray()) {
    auto key = bytesField(item, "key");
    auto value = bytesField(item, "value");
    auto create = int64Field(item, "create_revision", "createRevision");
    auto mod = int64Field(item, "mod_revision", "modRevision");
    auto version = int64Field(item, "version");
    auto lease = int64Field(item, "lease");
    if (!key || !value || !create || !mod || !version || !lease) return rejected("range answer: malformed kv");
    out.push_back(KeyValue{std::move(*key), std::move(*value), *create, *mod, *version, *lease});
  }
  return out;
}

}  // namespace

std::string rangeRequest(std::string_view key, bool prefix) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  writeKeyRange(w, key, prefix);
  w.EndObject();
  return text(buf);
}

std::string watchRequest(std::string_view key, bool prefix, int64_t startRevision) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("create_request");
  w.StartObject();
  writeKeyRange(w, key, prefix);
  w.Key("start_revision");
  w.String(std::to_string(startRevision).c_str());
  w.EndObject();
  w.EndObject();
  return text(buf);
}

std::string putRequest(std::string_view key, std::string_view value, int64_t lease) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  writeBytes(w, "key", key);
  writeBytes(w, "value", value);
  if (lease != 0) writeInt64(w, "lease", lease);
  w.EndObject();
  return text(buf);
}

std::string deleteRequest(std::string_view key, bool prefix) { return rangeRequest(key, prefix); }

std::string txnRequest(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                       const std::vector<TxnOp>& failure) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("compare");
  w.StartArray();
  for (const auto& c : compares) writeCompare(w, c);
  w.EndArray();
  writeOps(w, "success", success);
  writeOps(w, "failure", failure);
  w.EndObject();
  return text(buf);
}

namespace {
// {"<key>":"<value>"}: the lease requests carry one int64 (a JSON string in the gateway's proto3 JSON).
std::string oneInt64Request(const char* key, int64_t value) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  writeInt64(w, key, value);
  w.EndObject();
  return text(buf);
}
}  // namespace

std::string leaseGrantRequest(int64_t ttlSeconds) { return oneInt64Request("TTL", ttlSeconds); }
std::string leaseIdRequest(int64_t id) { return oneInt64Request("ID", id); }

Result<std::vector<KeyValue>> decodeRange(std::string_view body) {
  rapidjson::Document doc;
  if (auto r = parseObject(body, doc); !r) return r.error();
  return kvsOf(doc);
}

Result<int64_t> decodeRevision(std::string_view body) {
  rapidjson::Document doc;
  if (auto r = parseObject(body, doc); !r) return r.error();
  auto rev = headerRevision(doc);
  if (!rev) return rejected("answer: malformed header.revision");
  return *rev;
}

Result<int64_t> decodeDeleted(std::string_view body) {
  rapidjson::Document doc;
  if (auto r = parseObject(body, doc); !r) return r.error();
  auto deleted = int64Field(doc, "deleted");
  if (!deleted) return rejected("deleterange answer: malformed deleted");
  return *deleted;
}

Result<TxnResult> decodeTxn(std::string_view body) {
  rapidjson::Document doc;
  if (auto r = parseObject(body, doc); !r) return r.error();
  TxnResult out;
  const auto* succeeded = member(doc, "succeeded");
  out.succeeded = succeeded && succeeded->IsBool() && succeeded->GetBool();
  auto rev = headerRevision(doc);
  if (!rev) return rejected("txn answer: malformed header.revision");
  out.revision = *rev;
  const auto* responses = member(doc, "responses");
  if (!responses) return out;
  if (!responses->IsArray()) return rejected("txn answer: responses is not an array");
  for (const auto& op : responses->GetArray()) {
    const auto* range = member(op, "response_range", "responseRange");
    if (!range) continue;
    auto kvs = kvsOf(*range);
    if (!kvs) return kvs.error();
    out.ranges.push_back(std::move(kvs).value());
  }
  return out;
}

Result<LeaseGrant> decodeLeaseGrant(std::string_view body) {
  rapidjson::Document doc;
  if (auto r = parseObject(body, doc); !r) return r.error();
  if (const auto* err = member(doc, "error"); err && err->IsString() && err->GetStringLength() > 0)
    return rejected(std::string("lease grant: ") + err->GetString());
  auto id = int64Field(doc, "ID");
  auto ttl = int64Field(doc, "TTL");
  if (!id || !ttl || *id == 0) return rejected("lease grant answer: no lease ID");
  return LeaseGrant{*id, *ttl};
}

Result<int64_t> decodeKeepAlive(std::string_view body, int64_t id) {
  rapidjson::Document doc;
  if (auto r = parseObject(body, doc); !r) return r.error();
  if (const auto* err = member(doc, "error")) return decodeError(200, json::toString(*err));
  const auto* result = member(doc, "result");
  if (!result) return rejected("keepalive answer: no result");
  auto ttl = int64Field(*result, "TTL");
  if (!ttl) return rejected("keepalive answer: malformed TTL");
  if (*ttl <= 0) return Error{kLeaseNotFound, "etcd: lease " + std::to_string(id) + " not found (expired or revoked)"};
  return *ttl;
}

Result<WatchMessage> decodeWatchMessage(std::string_view message) {
  rapidjson::Document doc;
  if (auto r = parseObject(message, doc); !r) return r.error();
  if (const auto* err = member(doc, "error")) return decodeError(200, json::toString(*err));
  const auto* result = member(doc, "result");
  if (!result) return rejected("watch message: no result");
  WatchMessage m;
  if (const auto* c = member(*result, "created"); c && c->IsBool()) m.created = c->GetBool();
  if (const auto* c = member(*result, "canceled"); c && c->IsBool()) m.canceled = c->GetBool();
  auto compact = int64Field(*result, "compact_revision", "compactRevision");
  if (!compact) return rejected("watch message: malformed compact_revision");
  m.compactRevision = *compact;
  if (const auto* events = member(*result, "events"); events && events->IsArray()) m.events = events->Size();
  return m;
}

Result<int64_t> decodeTimeToLive(std::string_view body, int64_t id) {
  rapidjson::Document doc;
  if (auto r = parseObject(body, doc); !r) return r.error();
  auto ttl = int64Field(doc, "TTL");
  if (!ttl) return rejected("timetolive answer: malformed TTL");
  if (*ttl < 0) return Error{kLeaseNotFound, "etcd: lease " + std::to_string(id) + " not found (expired or revoked)"};
  return *ttl;
}

Error decodeError(int httpStatus, std::string_view body) {
  std::string message;
  int64_t grpcCode = 0;
  rapidjson::Document doc;
  if (json::parse(body, doc).ok() && doc.IsObject()) {
    // Unary: {"error":"..","message":"..","code":5}; a stream's: {"grpc_code":5,"message":".."}.
    if (auto m = json::getString(doc, "message")) message = *m;
    else if (auto e = json::getString(doc, "error")) message = *e;
    grpcCode = json::getInt64(doc, "code").value_or(json::getInt64(doc, "grpc_code").value_or(0));
  } else {
    message = std::string(body.substr(0, 200));
  }
  constexpr int64_t kGrpcNotFound = 5;
  if (grpcCode == kGrpcNotFound && message.find("lease not found") != std::string::npos)
    return Error{kLeaseNotFound, "etcd: " + message};
  return rejected("HTTP " + std::to_string(httpStatus) + " (gRPC code " + std::to_string(grpcCode) + "): " + message);
}

}  // namespace gateway
}  // namespace rmq::coord
