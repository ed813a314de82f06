#include "roles/broker/metadata/topic_table_reader.h"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cstdlib>
#include <string>

namespace rmq::broker {
namespace {

// Depth 1: the wrapper's keys; 2: dataVersion's fields or a topic's name; 3: a topic's fields;
// 4: a topic's attributes (5.x).
class TableHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TableHandler> {
 public:
  std::pair<DataVersion, std::vector<TopicConfig>> out;

  bool StartObject() {
    ++depth_;
    if (depth_ == 3 && section_ == Section::Table) {
      out.second.emplace_back();
      current_ = &out.second.back();
      current_->topicName = key_;  // replaced by a "topicName" field when present
    }
    if (depth_ == 4 && current_ && key_ == "attributes") inAttributes_ = true;
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    if (depth_ == 4) inAttributes_ = false;
    if (depth_ == 3) current_ = nullptr;
    if (depth_ == 2) section_ = Section::None;
    --depth_;
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    key_.assign(s, n);
    if (depth_ == 1) section_ = key_ == "dataVersion" ? Section::Version
                              : key_ == "topicConfigTable" ? Section::Table : Section::None;
    return true;
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (inAttributes_ && depth_ == 4) {
      current_->attributes[key_].assign(s, n);
      return true;
    }
    if (!atField()) return true;
    std::string_view v(s, n);
    if (key_ == "topicName") current_->topicName.assign(v);
    else if (key_ == "topicFilterType") parseTopicFilterType(v, current_->topicFilterType);
    else return number(std::strtoll(std::string(v).c_str(), nullptr, 10));  // fastjson: numbers as strings
    return true;
  }
  bool Bool(bool b) {
    if (atField() && key_ == "order") current_->order = b;
    return true;
  }
  bool Int(int v) { return number(v); }
  bool Uint(unsigned v) { return number(v); }
  bool Int64(int64_t v) { return number(v); }
  bool Uint64(uint64_t v) { return number(static_cast<int64_t>(v)); }
  bool Double(double v) { return number(static_cast<int64_t>(v)); }
  bool Null() { return true; }
  bool StartArray() { ++depth_; return true; }
  bool EndArray(rapidjson::SizeType) { --depth_; return true; }

 private:
  enum class Section { None, Version, Table };
  bool atField() const { return depth_ == 3 && current_ != nullptr; }
  bool number(int64_t v) {
    if (depth_ == 2 && section_ == Section::Version) {
      if (key_ == "counter") out.first.counter = v;
      else if (key_ == "timestamp") out.first.timestamp = v;
    } else if (atField()) {
      auto i32 = static_cast<int32_t>(v);
      if (key_ == "readQueueNums") current_->readQueueNums = i32;
      else if (key_ == "writeQueueNums") current_->writeQueueNums = i32;
      else if (key_ == "perm") current_->perm = i32;
      else if (key_ == "topicSysFlag") current_->topicSysFlag = i32;
    }
    return true;
  }

  int depth_ = 0;
  Section section_ = Section::None;
  std::string key_;
  TopicConfig* current_ = nullptr;
  bool inAttributes_ = false;  // inside a topic's 5.x "attributes" object
};

}  // namespace

std::optional<std::pair<DataVersion, std::vector<TopicConfig>>> readTopicTableFast(std::string_view text) {
  TableHandler handler;
  handler.out.second.reserve(text.size() / 160);
  rapidjson::Reader reader;
  rapidjson::MemoryStream in(text.data(), text.size());
  auto ok = reader.Parse<rapidjson::kParseTrailingCommasFlag>(in, handler);
  if (ok.IsError()) return std::nullopt;
  return std::move(handler.out);
}

}  // namespace rmq::broker
