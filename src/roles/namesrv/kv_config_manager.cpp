#include "roles/namesrv/kv_config_manager.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/file_write.h"
#include "common/json.h"
#include "common/log.h"
#include "roles/namesrv/route_data.h"

namespace rmq::namesrv {
Result<void> KvConfigManager::load() {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return {};  // first start: nothing stored yet
  std::stringstream ss;
  ss << in.rdbuf();
  rapidjson::Document doc;
  if (auto r = json::parse(ss.str(), doc); !r) {
    return makeError(1, fmt::format("cannot parse KV config file {}: {}", path_, r.error().message));
  }
  std::unique_lock lk(mu_);
  auto it = doc.IsObject() ? doc.FindMember("configTable") : doc.MemberEnd();
  if (!doc.IsObject() || it == doc.MemberEnd() || !it->value.IsObject()) {
    return makeError(1, fmt::format("KV config file {}: expected {{\"configTable\":{{...}}}}", path_));
  }
  for (auto& ns : it->value.GetObject()) {
    if (!ns.value.IsObject()) continue;
    auto& target = table_[std::string(json::keyView(ns.name))];
    for (auto& kv : ns.value.GetObject()) {
      if (kv.value.IsString()) target[std::string(json::keyView(kv.name))] = kv.value.GetString();
    }
  }
  return {};
}

std::string KvConfigManager::snapshotJsonLocked() const {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("configTable");
  w.StartObject();
  for (auto& [ns, kvs] : table_) {
    w.Key(ns.c_str(), static_cast<rapidjson::SizeType>(ns.size()));
    w.StartObject();
    for (auto& [k, v] : kvs) {
      w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
      w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

Result<void> KvConfigManager::persist(std::string json, uint64_t seq) {
  std::lock_guard lk(fileMu_);
  if (seq <= writtenSeq_) return {};  // a newer snapshot is already on disk
  auto r = replaceFileAtomically(path_, json);
  if (!r) {
    log::error("KV config persist failed: {}", r.error().message);
    return r;
  }
  writtenSeq_ = seq;
  return {};
}

Result<void> KvConfigManager::put(const std::string& ns, const std::string& key, const std::string& value) {
  std::string json;
  uint64_t seq;
  {
    std::unique_lock lk(mu_);
    table_[ns][key] = value;
    seq = ++changeSeq_;
    json = snapshotJsonLocked();
  }
  log::info("KV config put {} {}={}", ns, key, value);
  return persist(std::move(json), seq);
}

Result<void> KvConfigManager::remove(const std::string& ns, const std::string& key) {
  std::string json;
  uint64_t seq;
  {
    std::unique_lock lk(mu_);
    auto it = table_.find(ns);
    if (it == table_.end() || it->second.erase(key) == 0) return {};
    // Like Java, an emptied namespace stays (GET_KVLIST_BY_NAMESPACE then answers {"table":{}}).
    seq = ++changeSeq_;
    json = snapshotJsonLocked();
  }
  log::info("KV config delete {} {}", ns, key);
  return persist(std::move(json), seq);
}

std::optional<std::string> KvConfigManager::get(const std::string& ns, const std::string& key) const {
  std::shared_lock lk(mu_);
  auto it = table_.find(ns);
  if (it == table_.end()) return std::nullopt;
  auto v = it->second.find(key);
  if (v == it->second.end()) return std::nullopt;
  return v->second;
}

std::optional<std::string> KvConfigManager::kvListJson(const std::string& ns) const {
  std::shared_lock lk(mu_);
  auto it = table_.find(ns);
  if (it == table_.end()) return std::nullopt;
  return encodeKvTable(it->second);
}

}  // namespace rmq::namesrv
