#include "net/remoting_command.h"

#include <atomic>
#include <charconv>

namespace rmq::net {
namespace {
constexpr const char* kLanguageNames[] = {"JAVA", "CPP",  "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY",
                                          "OTHER", "HTTP", "GO",    "PHP",    "OMS",    "RUST"};
constexpr size_t kLanguageCount = sizeof(kLanguageNames) / sizeof(kLanguageNames[0]);

// Process-wide request id, like Java's RemotingCommand.requestId (starts at 0).
std::atomic<int32_t> g_nextOpaque{0};
}  // namespace

const char* languageName(LanguageCode code) {
  auto i = static_cast<size_t>(code);
  return i < kLanguageCount ? kLanguageNames[i] : "OTHER";
}

std::optional<LanguageCode> languageFromName(std::string_view name) {
  for (size_t i = 0; i < kLanguageCount; ++i)
    if (name == kLanguageNames[i]) return static_cast<LanguageCode>(i);
  return std::nullopt;
}

int32_t nextOpaque() { return g_nextOpaque.fetch_add(1, std::memory_order_relaxed); }

const std::string* ExtFields::find(std::string_view key) const {
  for (auto& kv : items_)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

std::string_view ExtFields::get(std::string_view key, std::string_view dflt) const {
  const std::string* v = find(key);
  return v ? std::string_view(*v) : dflt;
}

std::optional<int64_t> ExtFields::getInt(std::string_view key) const {
  const std::string* v = find(key);
  if (!v || v->empty()) return std::nullopt;
  const char* b = v->data();
  const char* e = b + v->size();
  if (*b == '+') ++b;  // Long.parseLong accepts a leading '+'
  int64_t out = 0;
  auto [p, ec] = std::from_chars(b, e, out);
  if (ec != std::errc() || p != e) return std::nullopt;
  return out;
}

std::optional<bool> ExtFields::getBool(std::string_view key) const {
  const std::string* v = find(key);
  if (!v) return std::nullopt;
  if (v->size() != 4) return false;
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
  return lower((*v)[0]) == 't' && lower((*v)[1]) == 'r' && lower((*v)[2]) == 'u' && lower((*v)[3]) == 'e';
}

void ExtFields::set(std::string key, std::string value) {
  for (auto& kv : items_) {
    if (kv.first == key) {
      kv.second = std::move(value);
      return;
    }
  }
  items_.emplace_back(std::move(key), std::move(value));
}

void ExtFields::erase(std::string_view key) {
  for (auto it = items_.begin(); it != items_.end(); ++it) {
    if (it->first == key) {
      items_.erase(it);
      return;
    }
  }
}

size_t RemotingCommand::bodySize() const {
  size_t n = body.size();
  for (auto& s : bodySegments) n += s.size;
  return n;
}

RemotingCommand RemotingCommand::request(int32_t code) {
  RemotingCommand cmd;
  cmd.code = code;
  cmd.opaque = nextOpaque();
  return cmd;
}

RemotingCommand RemotingCommand::response(int32_t code, std::optional<std::string> remark) {
  RemotingCommand cmd;
  cmd.code = code;
  cmd.flag = kFlagResponse;
  cmd.remark = std::move(remark);
  return cmd;
}

}  // namespace rmq::net
