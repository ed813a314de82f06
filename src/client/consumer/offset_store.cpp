#include "client/consumer/offset_store.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "client/broker_api.h"
#include "common/json.h"
#include "common/log.h"

namespace rmq::client {

int64_t OffsetStore::readMemory(const MessageQueue& mq) const {
  std::lock_guard lk(mu_);
  auto it = table_.find(mq);
  return it == table_.end() ? -1 : it->second;
}

void OffsetStore::update(const MessageQueue& mq, int64_t offset, bool increaseOnly) {
  std::lock_guard lk(mu_);
  auto [it, inserted] = table_.emplace(mq, offset);
  if (!inserted && (!increaseOnly || offset > it->second)) it->second = offset;
}

void OffsetStore::remove(const MessageQueue& mq) {
  std::lock_guard lk(mu_);
  table_.erase(mq);
}

std::map<MessageQueue, int64_t> OffsetStore::snapshot() const {
  std::lock_guard lk(mu_);
  return table_;
}

asio::awaitable<int64_t> RemoteOffsetStore::readStore(const MessageQueue& mq) {
  auto r = co_await queryConsumerOffset(inst_, group_, mq);
  if (!r) {
    log::warn("query consumer offset of {} failed: {}", mq.toString(), r.error().message);
    co_return -2;
  }
  if (*r >= 0) update(mq, *r, false);
  co_return *r;
}

asio::awaitable<void> RemoteOffsetStore::persist(const MessageQueue& mq) {
  int64_t offset = readMemory(mq);
  if (offset < 0) co_return;
  auto r = co_await updateConsumerOffset(inst_, group_, mq, offset, false);
  if (!r) log::warn("persist offset {} of {} failed: {}", offset, mq.toString(), r.error().message);
}

asio::awaitable<void> RemoteOffsetStore::persistAll(const std::set<MessageQueue>& mqs) {
  for (const auto& [mq, offset] : snapshot()) {
    if (!mqs.count(mq) || offset < 0) continue;
    auto r = co_await updateConsumerOffset(inst_, group_, mq, offset, true);
    if (!r) log::warn("persist offset {} of {} failed: {}", offset, mq.toString(), r.error().message);
  }
}

LocalFileOffsetStore::LocalFileOffsetStore(std::string dir, const std::string& clientId, const std::string& group) {
  path_ = (std::filesystem::path(dir) / clientId / group / "offsets.json").string();
}

void LocalFileOffsetStore::load() {
  std::ifstream in(path_);
  if (!in) return;
  std::stringstream ss;
  ss << in.rdbuf();
  rapidjson::Document doc;
  if (auto r = json::parse(ss.str(), doc); !r || !doc.IsObject() || !doc.HasMember("offsetTable") ||
                                           !doc["offsetTable"].IsObject()) {
    log::warn("offset file {} unreadable; starting without local offsets", path_);
    return;
  }
  std::lock_guard lk(mu_);
  for (auto& m : doc["offsetTable"].GetObject()) {
    auto key = json::parseMessageQueueKey(json::keyView(m.name));
    if (!key || !m.value.IsInt64()) continue;
    MessageQueue mq{key->topic, key->brokerName, key->queueId};
    table_[mq] = m.value.GetInt64();
    fileTable_[mq] = m.value.GetInt64();
  }
}

asio::awaitable<int64_t> LocalFileOffsetStore::readStore(const MessageQueue& mq) {
  std::lock_guard lk(mu_);
  auto it = fileTable_.find(mq);
  if (it == fileTable_.end()) co_return -1;
  table_[mq] = it->second;
  co_return it->second;
}

void LocalFileOffsetStore::writeFile() {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("offsetTable");
  w.StartObject();
  for (const auto& [mq, offset] : fileTable_) {
    json::writeMessageQueueKey(w, {mq.topic, mq.brokerName, mq.queueId});
    w.Int64(offset);
  }
  w.EndObject();
  w.EndObject();
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ec);
  std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out.write(buf.GetString(), static_cast<std::streamsize>(buf.GetSize()));
    if (!out) { log::warn("cannot write offset file {}", tmp); return; }
  }
  std::filesystem::rename(tmp, path_, ec);
  if (ec) log::warn("cannot replace offset file {}: {}", path_, ec.message());
}

asio::awaitable<void> LocalFileOffsetStore::persistAll(const std::set<MessageQueue>& mqs) {
  std::lock_guard lk(mu_);
  for (const auto& [mq, offset] : table_)
    if (mqs.count(mq) && offset >= 0) fileTable_[mq] = offset;
  writeFile();
  co_return;
}

asio::awaitable<void> LocalFileOffsetStore::persist(const MessageQueue& mq) {
  std::set<MessageQueue> one;
  one.insert(mq);
  co_await persistAll(one);
}

}  // namespace rmq::client
