#pragma once
// ACL permissions (Java acl.common.Permission): bits, the yml strings, the check, and the request
// codes that need an admin account.
#include <cstdint>
#include <string>
#include <string_view>

namespace rmq::acl {

namespace Perm {
inline constexpr uint8_t DENY = 1;
inline constexpr uint8_t ANY = 1 << 1;
inline constexpr uint8_t PUB = 1 << 2;
inline constexpr uint8_t SUB = 1 << 3;
}  // namespace Perm

// "PUB", "SUB", "PUB|SUB", "SUB|PUB", "DENY" (trimmed); anything else, or absent, is DENY.
uint8_t parsePerm(std::string_view text);
// False when the user's perm carries DENY; ANY needs PUB or SUB; otherwise any needed bit held.
bool checkPermission(uint8_t needed, uint8_t owned);
// UPDATE_AND_CREATE_TOPIC, UPDATE_BROKER_CONFIG, DELETE_TOPIC_IN_BROKER,
// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, DELETE_SUBSCRIPTIONGROUP.
bool needAdminPerm(int requestCode);

// "Res=Perm" entries as Permission.checkResourcePerms checks them for the admin codes: empty
// string when fine, else Java's message.
std::string checkResourcePerm(std::string_view entry);

inline constexpr std::string_view kRetryGroupTopicPrefix = "%RETRY%";
inline bool isRetryTopic(std::string_view topic) { return topic.starts_with(kRetryGroupTopicPrefix); }
inline std::string retryTopic(std::string_view group) { return std::string(kRetryGroupTopicPrefix) + std::string(group); }

}  // namespace rmq::acl
