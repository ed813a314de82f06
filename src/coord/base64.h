#pragma once
// Base64 (RFC 4648, standard alphabet, '=' padding): etcd's gateway carries every key and value as
// base64 (proto3 JSON of `bytes`). The one other base64 in the tree (src/acl/signature.cpp) is an
// OpenSSL one-liner for HMACs; coord does not depend on OpenSSL.
#include <optional>
#include <string>
#include <string_view>

namespace rmq::coord {

std::string base64Encode(std::string_view bytes);
// Strict: padded to a multiple of 4, alphabet only (no whitespace); nullopt otherwise.
std::optional<std::string> base64Decode(std::string_view text);

}  // namespace rmq::coord
