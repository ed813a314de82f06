#pragma once
// Message trace records in Java's format (client/trace/TraceDataEncoder, 4.9.8): a trace message's
// body is a list of contexts, each ended by FIELD_SPLITOR (char 2), whose fields are separated by
// CONTENT_SPLITOR (char 1):
//   Pub            type, timeStamp, regionId, groupName, topic, msgId, tags, keys, storeHost,
//                  bodyLength, costTime, msgType, [offsetMsgId,] success[, clientHost]
//   SubBefore      type, timeStamp, regionId, groupName, requestId, msgId, retryTimes, keys
//   SubAfter       type, requestId, msgId, costTime, success, keys[, contextCode[, timeStamp, groupName]]
//   EndTransaction type, timeStamp, regionId, groupName, topic, msgId, tags, keys, storeHost, msgType,
//                  transactionId, transactionState, fromTransactionCheck
// The trace message itself goes to the trace topic (RMQ_SYS_TRACE_TOPIC) with keys = the traced
// msgIds and their keys, so it is found by a key query on the msgId (mqadmin queryMsgTraceById).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rmq::client::trace {

inline constexpr char kContentSplitor = '\x01';
inline constexpr char kFieldSplitor = '\x02';
inline constexpr std::string_view kDefaultTraceTopic = "RMQ_SYS_TRACE_TOPIC";

enum class TraceType { Pub, SubBefore, SubAfter, EndTransaction };
std::string_view traceTypeName(TraceType t);

// One TraceContext with its TraceBean (Java defaults where a field is absent).
struct TraceRecord {
  TraceType type = TraceType::Pub;
  int64_t timeStamp = 0;  // SubAfter without it: 0 (Java: the decoding time)
  std::string regionId, groupName, requestId;
  int32_t costTime = 0;
  bool success = true;
  int32_t contextCode = 0;
  std::string topic, msgId, tags, keys, storeHost, offsetMsgId, clientHost;
  int32_t bodyLength = 0, retryTimes = 0, msgType = 0;
  std::string transactionId, transactionState;
  bool fromTransactionCheck = false;
};

// The records of a trace message body, in order. A context of unknown type, or one too short or
// with a malformed number, is left out (Java's decoder throws on those).
std::vector<TraceRecord> decodeTraceData(std::string_view body);
// One record as Java's encoderFromContextBean writes it (ending with FIELD_SPLITOR; SubAfter with
// contextCode, timeStamp and groupName, i.e. AccessChannel LOCAL).
std::string encodeTraceRecord(const TraceRecord& r);

}  // namespace rmq::client::trace
