#include "roles/broker/failover/group_record.h"

#include <algorithm>

#include "common/json.h"
#include "common/json_fields.h"
#include "common/response_code.h"

namespace rmq::broker {

namespace {
constexpr size_t kHistoryMax = 64;

std::string finish(rmq::json::Buffer& buf) { return std::string(buf.GetString(), buf.GetSize()); }

Result<rapidjson::Document> parseObject(std::string_view text, const char* what) {
  rapidjson::Document doc;
  if (auto r = rmq::json::parse(text, doc); !r) return makeError(ResponseCode::SYSTEM_ERROR, std::string(what) + ": " + r.error().message);
  if (!doc.IsObject()) return makeError(ResponseCode::SYSTEM_ERROR, std::string(what) + ": not a JSON object");
  return doc;
}
}  // namespace

GroupKeys::GroupKeys(const std::string& prefix, const std::string& cluster, const std::string& brokerName)
    : base(prefix + "/" + cluster + "/" + brokerName + "/") {}

bool GroupState::inSyncHas(int64_t id) const { return std::count(inSync.begin(), inSync.end(), id) > 0; }

int64_t GroupState::endOfEpoch(int64_t e) const {
  for (auto& [ep, start] : history)
    if (ep > e) return start;
  return INT64_MAX;
}

GroupState GroupState::nextEpoch(int64_t id, std::string addr, std::string haAddr, int64_t start) const {
  GroupState n;
  n.epoch = epoch + 1;
  n.masterId = id;
  n.masterAddr = std::move(addr);
  n.masterHaAddr = std::move(haAddr);
  n.mode = mode;
  n.handoverTo = -1;
  n.history = history;
  n.history.emplace_back(n.epoch, start);
  if (n.history.size() > kHistoryMax) n.history.erase(n.history.begin(), n.history.end() - kHistoryMax);
  return n;
}

std::string toJson(const GroupState& s) {
  rmq::json::Buffer buf;
  rmq::json::Writer w(buf);
  w.StartObject();
  w.Key("epoch"); w.Int64(s.epoch);
  w.Key("masterId"); w.Int64(s.masterId);
  w.Key("masterAddr"); w.String(s.masterAddr.c_str());
  w.Key("masterHaAddr"); w.String(s.masterHaAddr.c_str());
  w.Key("mode"); w.String(s.mode.c_str());
  w.Key("handoverTo"); w.Int64(s.handoverTo);
  w.Key("inSync"); w.StartArray();
  for (int64_t id : s.inSync) w.Int64(id);
  w.EndArray();
  w.Key("history"); w.StartArray();
  for (auto& [e, start] : s.history) {
    w.StartArray(); w.Int64(e); w.Int64(start); w.EndArray();
  }
  w.EndArray();
  w.EndObject();
  return finish(buf);
}

std::string toJson(const LeaderRecord& l) {
  rmq::json::Buffer buf;
  rmq::json::Writer w(buf);
  w.StartObject();
  w.Key("brokerId"); w.Int64(l.brokerId);
  w.Key("epoch"); w.Int64(l.epoch);
  w.EndObject();
  return finish(buf);
}

std::string toJson(const MemberRecord& m) {
  rmq::json::Buffer buf;
  rmq::json::Writer w(buf);
  w.StartObject();
  w.Key("brokerId"); w.Int64(m.brokerId);
  w.Key("addr"); w.String(m.addr.c_str());
  w.Key("haAddr"); w.String(m.haAddr.c_str());
  w.Key("maxOffset"); w.Int64(m.maxOffset);
  w.Key("epoch"); w.Int64(m.epoch);
  w.Key("priority"); w.Int(m.priority);
  w.Key("master"); w.Bool(m.master);
  w.EndObject();
  return finish(buf);
}

Result<GroupState> parseGroupState(std::string_view text) {
  auto doc = parseObject(text, "failover group state");
  if (!doc) return doc.error();
  GroupState s;
  s.epoch = rmq::json::intOr(*doc, "epoch");
  s.masterId = rmq::json::intOr(*doc, "masterId", -1);
  s.masterAddr = rmq::json::stringOr(*doc, "masterAddr");
  s.masterHaAddr = rmq::json::stringOr(*doc, "masterHaAddr");
  s.mode = rmq::json::stringOr(*doc, "mode", "SYNC_MASTER");
  s.handoverTo = rmq::json::intOr(*doc, "handoverTo", -1);
  if (s.mode != "SYNC_MASTER" && s.mode != "ASYNC_MASTER") s.mode = "SYNC_MASTER";
  if (auto it = doc->FindMember("inSync"); it != doc->MemberEnd() && it->value.IsArray())
    for (auto& v : it->value.GetArray())
      if (v.IsInt64()) s.inSync.push_back(v.GetInt64());
  if (auto it = doc->FindMember("history"); it != doc->MemberEnd() && it->value.IsArray())
    for (auto& v : it->value.GetArray())
      if (v.IsArray() && v.Size() == 2 && v[0].IsInt64() && v[1].IsInt64())
        s.history.emplace_back(v[0].GetInt64(), v[1].GetInt64());
  if (s.epoch <= 0 || s.masterId < 0)
    return makeError(ResponseCode::SYSTEM_ERROR, "failover group state: no epoch or master in '" + std::string(text) + "'");
  return s;
}

Result<LeaderRecord> parseLeader(std::string_view text) {
  auto doc = parseObject(text, "failover leader record");
  if (!doc) return doc.error();
  return LeaderRecord{rmq::json::intOr(*doc, "brokerId", -1), rmq::json::intOr(*doc, "epoch")};
}

Result<MemberRecord> parseMember(std::string_view text) {
  auto doc = parseObject(text, "failover member record");
  if (!doc) return doc.error();
  MemberRecord m;
  m.brokerId = rmq::json::intOr(*doc, "brokerId", -1);
  m.addr = rmq::json::stringOr(*doc, "addr");
  m.haAddr = rmq::json::stringOr(*doc, "haAddr");
  m.maxOffset = rmq::json::intOr(*doc, "maxOffset");
  m.epoch = rmq::json::intOr(*doc, "epoch");
  m.priority = static_cast<int32_t>(rmq::json::intOr(*doc, "priority"));
  m.master = rmq::json::boolOr(*doc, "master");
  return m;
}

int rankAmong(const GroupState& state, const std::vector<MemberRecord>& members, const MemberRecord& self) {
  auto better = [](const MemberRecord& a, const MemberRecord& b) {
    if (a.maxOffset != b.maxOffset) return a.maxOffset > b.maxOffset;
    if (a.priority != b.priority) return a.priority < b.priority;
    return a.brokerId < b.brokerId;
  };
  int rank = 0;
  for (auto& m : members)
    if (m.brokerId != self.brokerId && state.inSyncHas(m.brokerId) && better(m, self)) ++rank;
  return rank;
}

}  // namespace rmq::broker
