#pragma once
// The error of a malformed ACL rule (resource permission, remote address pattern): SYSTEM_ERROR,
// Java's AclException.
#include <string>

#include "common/response_code.h"
#include "common/result.h"

namespace rmq::acl {

inline Error aclError(std::string message) { return makeError(ResponseCode::SYSTEM_ERROR, std::move(message)); }

}  // namespace rmq::acl
