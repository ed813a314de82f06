#include "acl/remote_address.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <optional>

#include "acl/acl_error.h"
#include "acl/text_util.h"
#include "common/response_code.h"

namespace rmq::acl {
namespace {

std::optional<int> parseInt(std::string_view s, int base = 10) {
  s = trim(s);
  int v = 0;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

bool inByte(int v) { return v >= 0 && v <= 255; }
bool inWord(int v) { return v >= 0 && v <= 0xffff; }

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

// AclUtils.isScope(netaddress, index): the first `index` parts are in range (a 4-part IPv4 or an
// IPv6 address expanded to 8 groups).
bool isScope(std::string_view address, int index) {
  if (address.find(':') != std::string_view::npos) {
    std::string expanded = expandIPv6(address, 8);
    auto parts = splitNonEmpty(expanded, ':');
    for (int i = 0; i < index && i < static_cast<int>(parts.size()); ++i) {
      auto v = parseInt(parts[i], 16);
      if (!v || !inWord(*v)) return false;
    }
    return true;
  }
  auto parts = splitNonEmpty(address, '.');
  if (parts.size() != 4) return false;
  for (int i = 0; i < index; ++i) {
    auto v = parseInt(parts[i]);
    if (!v || !inByte(*v)) return false;
  }
  return true;
}

}  // namespace

bool isValidIPv4(std::string_view s) {
  auto parts = splitNonEmpty(s, '.');
  if (parts.size() != 4 || std::count(s.begin(), s.end(), '.') != 3) return false;
  for (auto p : parts) {
    if (p.size() > 3 || (p.size() > 1 && p[0] == '0')) return false;
    if (!std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
    if (!inByte(*parseInt(p))) return false;
  }
  return true;
}

bool isValidIPv6(std::string_view s) {
  std::string z(s);
  in6_addr a{};
  return inet_pton(AF_INET6, z.c_str(), &a) == 1;
}

std::string expandIPv6(std::string_view address, int parts) {
  std::string s = upper(address);
  int colons = static_cast<int>(std::count(s.begin(), s.end(), ':'));
  int pad = parts - colons;
  if (pad > 0) {
    std::string padStr(static_cast<size_t>(pad) + 1, ':');
    for (size_t pos = 0; (pos = s.find("::", pos)) != std::string::npos; pos += padStr.size()) s.replace(pos, 2, padStr);
  }
  std::string out;
  size_t i = 0;
  while (true) {  // splitPreserveAllTokens: empty groups kept (and padded to "0000")
    size_t j = s.find(':', i);
    std::string_view g = std::string_view(s).substr(i, j == std::string::npos ? std::string::npos : j - i);
    if (g.size() < 4) out.append(4 - g.size(), '0');
    out += g;
    if (j == std::string::npos) break;
    out += ':';
    i = j + 1;
  }
  return out;
}

Result<RemoteAddressPattern> RemoteAddressPattern::parse(std::string_view text) {
  RemoteAddressPattern p;
  std::string_view t = text;
  if (trim(t).empty()) return p;
  if (t == "*" || t == "*.*.*.*" || t == "*:*:*:*:*:*:*:*") {
    p.kind_ = Kind::Any;
    return p;
  }
  auto addToSet = [&](std::string_view a) -> Result<void> {
    if (isValidIPv4(a)) p.set_.insert(std::string(a));
    else if (isValidIPv6(a)) p.set_.insert(expandIPv6(a, 8));
    else return aclError(fmt::format("Netaddress examine Exception netaddress is {}", a));
    return {};
  };
  bool colon = t.find(':') != std::string_view::npos;
  if (t.ends_with('}')) {
    auto parts = splitNonEmpty(t, colon ? ':' : '.');
    if (!colon && parts.size() < 4)
      return aclError("MultipleRemoteAddressStrategy has got a/some wrong format IP(s) ");
    std::string_view last = parts.back();
    if (!last.starts_with('{')) return aclError("MultipleRemoteAddressStrategy netaddress examine scope Exception netaddress");
    std::string prefix(t.substr(0, t.find('{')));
    p.kind_ = Kind::Set;
    for (auto item : splitNonEmpty(last.substr(1, last.size() - 2), ','))
      if (auto r = addToSet(prefix + std::string(item)); !r) return r.error();
    return p;
  }
  if (t.find(',') != std::string_view::npos) {
    p.kind_ = Kind::Set;
    for (auto item : splitNonEmpty(t, ','))
      if (auto r = addToSet(item); !r) return r.error();
    return p;
  }
  bool star = t.find('*') != std::string_view::npos, minus = t.find('-') != std::string_view::npos;
  if (!star && !minus) {
    if (!isValidIPv4(t) && !isValidIPv6(t)) return aclError(fmt::format("Netaddress examine Exception netaddress is {}", t));
    p.kind_ = Kind::One;
    p.one_ = expandIPv6(t, 8);
    return p;
  }
  // RangeRemoteAddressStrategy: the first ranged part (index 1..3 for IPv4) decides.
  p.kind_ = Kind::Range;
  p.v6_ = colon;
  auto parts = splitNonEmpty(t, colon ? ':' : '.');
  auto analysis = [&](size_t index) -> Result<bool> {
    if (index >= parts.size()) return aclError(fmt::format("Netaddress examine scope Exception netaddress is {}", t));
    auto value = trim(parts[index]);
    p.index_ = static_cast<int>(index);
    if (value == "*") {
      p.start_ = 0;
      p.end_ = colon ? 0xffff : 255;
    } else if (value.find('-') != std::string_view::npos) {
      if (value.front() == '-')
        return aclError(fmt::format("RangeRemoteAddressStrategy netaddress examine scope Exception value {} ", value));
      auto range = splitNonEmpty(value, '-');
      auto s = range.size() == 2 ? parseInt(range[0], colon ? 16 : 10) : std::nullopt;
      auto e = range.size() == 2 ? parseInt(range[1], colon ? 16 : 10) : std::nullopt;
      if (!s || !e) return aclError(fmt::format("Netaddress examine scope Exception netaddress is {}", t));
      p.start_ = *s;
      p.end_ = *e;
      bool ok = colon ? inWord(p.start_) && inWord(p.end_) : inByte(p.start_) && inByte(p.end_);
      if (!ok || p.start_ > p.end_)
        return aclError(fmt::format("RangeRemoteAddressStrategy netaddress examine scope Exception start is {} , "
                                    "end is {}", p.start_, p.end_));
    }
    return p.end_ > 0;
  };
  if (!colon) {
    for (size_t i = 1; i <= 3; ++i) {
      auto hit = analysis(i);
      if (!hit) return hit.error();
      if (!*hit) continue;
      if (!isScope(t, p.index_ - 1)) return aclError(fmt::format("Netaddress examine scope Exception netaddress is {}", t));
      for (int j = 0; j < p.index_; ++j) p.head_ += std::string(trim(parts[j])) + ".";
      return p;
    }
    return aclError(fmt::format("Netaddress examine scope Exception netaddress is {}", t));
  }
  // IPv6 (AclUtils.IPv6AddressCheck, v6ipProcess): '*' only last, a range only in the last group
  // (or the one before a final '*').
  size_t asterisk = t.find('*'), dash = t.find('-');
  if (asterisk != std::string_view::npos && asterisk != t.size() - 1)
    return aclError(fmt::format("Netaddress examine scope Exception netaddress is {}", t));
  if (dash != std::string_view::npos) {
    size_t lastColon = t.rfind(':');
    size_t bound = asterisk == std::string_view::npos ? lastColon : t.rfind(':', lastColon - 1);
    if (bound != std::string_view::npos && dash <= bound)
      return aclError(fmt::format("Netaddress examine scope Exception netaddress is {}", t));
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    auto hit = analysis(i);
    if (!hit) return hit.error();
    if (!*hit) continue;
    if (!isScope(t, p.index_ - 1)) return aclError(fmt::format("Netaddress examine scope Exception netaddress is {}", t));
    std::string_view sub;
    int groups;
    if (star && minus) {
      size_t last = t.rfind(':');
      sub = t.substr(0, t.substr(0, last).rfind(':'));
      groups = 6;
    } else {
      sub = t.substr(0, t.rfind(':'));
      groups = 7;
    }
    p.head_ = expandIPv6(sub, groups);
    p.index_ = static_cast<int>(splitNonEmpty(p.head_, ':').size());
    return p;
  }
  return aclError(fmt::format("Netaddress examine scope Exception netaddress is {}", t));
}

bool RemoteAddressPattern::match(std::string_view ip) const {
  switch (kind_) {
    case Kind::Blank: return false;
    case Kind::Any: return true;
    case Kind::Set: return set_.count(isValidIPv6(ip) ? expandIPv6(ip, 8) : std::string(ip)) != 0;
    case Kind::One: return expandIPv6(ip, 8) == one_;
    case Kind::Range: break;
  }
  std::optional<int> value;
  if (isValidIPv4(ip) && !v6_) {
    if (!ip.starts_with(head_)) return false;
    std::string_view rest = ip.substr(head_.size());
    if (index_ == 3) value = parseInt(rest);
    else if (index_ == 2) value = parseInt(rest.substr(0, rest.find('.')));
    else value = parseInt(rest.substr(0, rest.find('.')));
  } else if (isValidIPv6(ip) && v6_) {
    std::string full = expandIPv6(ip, 8);
    if (!full.starts_with(head_) || full.size() < static_cast<size_t>(5 * index_ + 4)) return false;
    value = parseInt(std::string_view(full).substr(5 * index_, 4), 16);
  }
  return value && *value >= start_ && *value <= end_;
}

}  // namespace rmq::acl
