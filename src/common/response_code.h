#pragma once
// RocketMQ response codes (PROTOCOL.md §2.1). Every failure a client can see maps to one of these.
namespace rmq::ResponseCode {
inline constexpr int SUCCESS = 0;
inline constexpr int SYSTEM_ERROR = 1;
inline constexpr int SYSTEM_BUSY = 2;
inline constexpr int REQUEST_CODE_NOT_SUPPORTED = 3;
inline constexpr int TRANSACTION_FAILED = 4;
inline constexpr int FLUSH_DISK_TIMEOUT = 10;
inline constexpr int SLAVE_NOT_AVAILABLE = 11;
inline constexpr int FLUSH_SLAVE_TIMEOUT = 12;
inline constexpr int MESSAGE_ILLEGAL = 13;
inline constexpr int SERVICE_NOT_AVAILABLE = 14;
inline constexpr int VERSION_NOT_SUPPORTED = 15;
inline constexpr int NO_PERMISSION = 16;
inline constexpr int TOPIC_NOT_EXIST = 17;
inline constexpr int TOPIC_EXIST_ALREADY = 18;
inline constexpr int PULL_NOT_FOUND = 19;
inline constexpr int PULL_RETRY_IMMEDIATELY = 20;
inline constexpr int PULL_OFFSET_MOVED = 21;
inline constexpr int QUERY_NOT_FOUND = 22;
inline constexpr int SUBSCRIPTION_PARSE_FAILED = 23;
inline constexpr int SUBSCRIPTION_NOT_EXIST = 24;
inline constexpr int SUBSCRIPTION_NOT_LATEST = 25;
inline constexpr int SUBSCRIPTION_GROUP_NOT_EXIST = 26;
inline constexpr int FILTER_DATA_NOT_EXIST = 27;
inline constexpr int FILTER_DATA_NOT_LATEST = 28;
inline constexpr int TRANSACTION_SHOULD_COMMIT = 200;
inline constexpr int TRANSACTION_SHOULD_ROLLBACK = 201;
inline constexpr int TRANSACTION_STATE_UNKNOW = 202;
inline constexpr int TRANSACTION_STATE_GROUP_WRONG = 203;
inline constexpr int NO_BUYER_ID = 204;
inline constexpr int NOT_IN_CURRENT_UNIT = 205;
inline constexpr int CONSUMER_NOT_ONLINE = 206;
inline constexpr int CONSUME_MSG_TIMEOUT = 207;
inline constexpr int NO_MESSAGE = 208;
inline constexpr int UPDATE_AND_CREATE_ACL_CONFIG_FAILED = 209;
inline constexpr int DELETE_ACL_CONFIG_FAILED = 210;
inline constexpr int UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED = 211;
inline constexpr int FLOW_CONTROL = 215;
// Client-side only (never on the wire): transport failures reported as values.
inline constexpr int CLIENT_TIMEOUT = -1;
inline constexpr int CLIENT_CONNECT_FAILED = -2;
inline constexpr int CLIENT_CONNECTION_CLOSED = -3;
// Too many asynchronous / oneway requests in flight (Java RemotingTooMuchRequestException:
// "invokeAsyncImpl invoke too fast", "invokeAsync call the addr[..] timeout").
inline constexpr int CLIENT_TOO_MUCH_REQUEST = -4;
}  // namespace rmq::ResponseCode
