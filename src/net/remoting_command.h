#pragma once
// RemotingCommand: the logical content of one remoting frame (PROTOCOL.md §1). The frame codec
// (frame_codec.h) turns it into bytes and back; processors only see this struct.
#include <cstdint>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rmq::net {

enum class SerializeType : uint8_t { Json = 0, RocketMQ = 1 };

enum class LanguageCode : uint8_t {
  JAVA = 0, CPP = 1, DOTNET = 2, PYTHON = 3, DELPHI = 4, ERLANG = 5, RUBY = 6, OTHER = 7,
  HTTP = 8, GO = 9, PHP = 10, OMS = 11, RUST = 12
};
const char* languageName(LanguageCode code);
std::optional<LanguageCode> languageFromName(std::string_view name);

inline constexpr int32_t kFlagResponse = 0x1;
inline constexpr int32_t kFlagOneway = 0x2;
inline constexpr int32_t kCurrentVersion = 407;  // MQVersion V4_9_7 ordinal

// Next value of the process-wide request id (what RemotingCommand::request() and
// Connection::invoke() put into `opaque`).
int32_t nextOpaque();

// extFields: small string->string map kept in insertion order (typically < 16 entries, so a
// vector beats a hash map). Values are always strings on the wire (§1.6).
class ExtFields {
 public:
  const std::string* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  std::string_view get(std::string_view key, std::string_view dflt = {}) const;
  // Typed getters: nullopt when absent or unparsable (Java logs and keeps the default).
  std::optional<int64_t> getInt(std::string_view key) const;
  std::optional<bool> getBool(std::string_view key) const;  // Boolean.parseBoolean semantics
  void set(std::string key, std::string value);
  void set(std::string key, int64_t value) { set(std::move(key), std::to_string(value)); }
  void setBool(std::string key, bool value) { set(std::move(key), std::string(value ? "true" : "false")); }
  // Adds without looking for an existing key (decoders, builders with distinct keys): if a key
  // is appended twice, find() sees the first.
  void append(std::string key, std::string value) { items_.emplace_back(std::move(key), std::move(value)); }
  void reserve(size_t n) { items_.reserve(n); }
  void erase(std::string_view key);
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  void clear() { items_.clear(); }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

// A read-only slice of bytes owned elsewhere (e.g. a mapped CommitLog file). Written after
// RemotingCommand::body with scatter/gather, so pull answers never copy message bodies.
struct BodySegment {
  const char* data = nullptr;
  size_t size = 0;
};

struct RemotingCommand {
  int32_t code = 0;
  LanguageCode language = LanguageCode::JAVA;
  int32_t version = kCurrentVersion;
  int32_t opaque = 0;
  int32_t flag = 0;
  std::optional<std::string> remark;
  ExtFields extFields;
  SerializeType serializeType = SerializeType::Json;

  std::string body;                          // owned body bytes (may be empty)
  std::vector<BodySegment> bodySegments;     // zero-copy tail, sent after `body`
  std::shared_ptr<const void> bodyOwner;     // keeps bodySegments' memory alive until written
  // Requests read by a TcpConnection: when the read that brought the frame's last bytes returned
  // (the connection's own clock read per read, none per frame). Processors measure the time a
  // request waited before it started from here (the broker's fast failure). Default: unknown.
  std::chrono::steady_clock::time_point receivedAt{};

  bool isResponse() const { return (flag & kFlagResponse) != 0; }
  bool isOneway() const { return (flag & kFlagOneway) != 0; }
  size_t bodySize() const;

  // A request with a fresh process-wide opaque (invoke() assigns its own anyway).
  static RemotingCommand request(int32_t code);
  // A response with the given code and optional remark; the server fills opaque/flag/serializeType.
  static RemotingCommand response(int32_t code, std::optional<std::string> remark = std::nullopt);
};

}  // namespace rmq::net
