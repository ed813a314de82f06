#include "acl/permission.h"

#include <fmt/format.h>

#include "acl/text_util.h"
#include "common/request_code.h"

namespace rmq::acl {

uint8_t parsePerm(std::string_view text) {
  text = trim(text);
  if (text == "PUB") return Perm::PUB;
  if (text == "SUB") return Perm::SUB;
  if (text == "PUB|SUB" || text == "SUB|PUB") return Perm::PUB | Perm::SUB;
  return Perm::DENY;
}

bool checkPermission(uint8_t needed, uint8_t owned) {
  if (owned & Perm::DENY) return false;
  if (needed & Perm::ANY) return (owned & (Perm::PUB | Perm::SUB)) != 0;
  return (needed & owned) != 0;
}

bool needAdminPerm(int code) {
  return code == RequestCode::UPDATE_AND_CREATE_TOPIC || code == RequestCode::UPDATE_BROKER_CONFIG ||
         code == RequestCode::DELETE_TOPIC_IN_BROKER || code == RequestCode::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP ||
         code == RequestCode::DELETE_SUBSCRIPTIONGROUP;
}

std::string checkResourcePerm(std::string_view entry) {
  auto items = splitNonEmpty(entry, '=');
  if (items.size() != 2)
    return fmt::format("Parse Resource format error for {}.\nThe expected resource format is 'Res=Perm'. "
                       "For example: topicA=SUB", entry);
  auto perm = trim(items[1]);
  if (perm != "DENY" && parsePerm(perm) == Perm::DENY)
    return fmt::format("Parse resource permission error for {}.\nThe expected permissions are 'SUB' or 'PUB' "
                       "or 'SUB|PUB' or 'PUB|SUB'.", entry);
  return {};
}

}  // namespace rmq::acl
