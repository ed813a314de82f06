#pragma once
// Remote-address patterns of plain_acl.yml (Java RemoteAddressStrategyFactory): the forms of
// `whiteRemoteAddress` and `globalWhiteRemoteAddresses`:
//   ""                         matches nothing (blank)
//   "*", "*.*.*.*", "*:*:*:*:*:*:*:*"   matches every address
//   "192.168.0.{1,2}"          a set (also IPv6 "1050::0005:{1,2}")
//   "192.168.0.1,192.168.0.2"  a set
//   "192.168.1.1-100", "192.168.*.*", "192.*.*.*"   one octet ranged (IPv6 "1050::0005:1-ff", "...:*")
//   "192.168.0.1" / an IPv6 address   exactly that address
// parse() refuses a malformed pattern with Java's AclException text.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rmq::acl {

class RemoteAddressPattern {
 public:
  static Result<RemoteAddressPattern> parse(std::string_view pattern);
  // `ip` is the peer's address without the port ("127.0.0.1").
  bool match(std::string_view ip) const;

 private:
  enum class Kind { Blank, Any, Set, One, Range };
  Kind kind_ = Kind::Blank;
  std::set<std::string> set_;  // Set
  std::string one_;            // One: the address as Java's expandIP(.., 8) upper-cases it
  std::string head_;           // Range: the fixed leading part ("192.168." / expanded IPv6 prefix)
  int start_ = 0, end_ = 0, index_ = 0;
  bool v6_ = false;
};

// Java AclUtils.expandIP(address, 8): upper-case, "::" expanded, every group padded to 4 digits.
std::string expandIPv6(std::string_view address, int parts);
bool isValidIPv4(std::string_view s);  // commons-validator InetAddressValidator
bool isValidIPv6(std::string_view s);

}  // namespace rmq::acl
