#include "roles/broker/messaging/v2_status.h"

#include "common/response_code.h"

namespace rmq::broker::messaging {

v2::Status makeStatus(v2::Code code, std::string message) {
  v2::Status s;
  s.set_code(code);
  s.set_message(std::move(message));
  return s;
}

v2::Code codeOfResponse(int responseCode) {
  switch (responseCode) {
    case ResponseCode::SUCCESS: return v2::Code::OK;
    case ResponseCode::FLUSH_DISK_TIMEOUT: return v2::Code::MASTER_PERSISTENCE_TIMEOUT;
    case ResponseCode::FLUSH_SLAVE_TIMEOUT: return v2::Code::SLAVE_PERSISTENCE_TIMEOUT;
    case ResponseCode::SLAVE_NOT_AVAILABLE: return v2::Code::HA_NOT_AVAILABLE;
    // The client backs off on TOO_MANY_REQUESTS instead of switching brokers at once.
    case ResponseCode::SYSTEM_BUSY:
    case ResponseCode::FLOW_CONTROL: return v2::Code::TOO_MANY_REQUESTS;
    case ResponseCode::TOPIC_NOT_EXIST: return v2::Code::TOPIC_NOT_FOUND;
    case ResponseCode::SUBSCRIPTION_GROUP_NOT_EXIST: return v2::Code::CONSUMER_GROUP_NOT_FOUND;
    case ResponseCode::NO_PERMISSION: return v2::Code::FORBIDDEN;
    case ResponseCode::MESSAGE_ILLEGAL: return v2::Code::BAD_REQUEST;
    case ResponseCode::VERSION_NOT_SUPPORTED: return v2::Code::VERSION_UNSUPPORTED;
    case ResponseCode::TRANSACTION_STATE_GROUP_WRONG: return v2::Code::INVALID_TRANSACTION_ID;
    default: return v2::Code::INTERNAL_SERVER_ERROR;
  }
}

}  // namespace rmq::broker::messaging
