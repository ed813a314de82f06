#pragma once
// The records of RocketMQ's transactional messages (PROTOCOL.md §10.3), built as Java 4.9's
// TransactionalMessageBridge / EndTransactionProcessor build them. Pure: no I/O; results view the
// arguments (and the caller's buffers): keep them alive until the append.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/message.h"
#include "common/message_codec.h"
#include "store/store_types.h"

namespace rmq::broker::tx {

inline constexpr std::string_view SYS_GROUP = "CID_RMQ_SYS_TRANS";  // offsets of the half/op queues
inline constexpr std::string_view REMOVE_TAG = "d";
// Java: new Message(opTopic, "d", body) holds {TAGS, WAIT=true}; messageProperties2String walks
// that HashMap, whose buckets put WAIT (13) before TAGS (14). WAIT=false and the UNIQ_KEY are set
// after the string is built, so they are not in it.
inline constexpr std::string_view OP_PROPERTIES = "WAIT\x01true\x02TAGS\x01" "d";

// True when the stored properties say TRAN_MSG=true (a half message).
bool isHalfMessage(std::string_view storedProperties);

// parseHalfMessageInner: `m` moved to RMQ_SYS_TRANS_HALF_TOPIC queue 0 with REAL_TOPIC/REAL_QID
// added to its properties (written into `propsBuf`) and the transaction bits of sysFlag cleared.
void toHalfMessage(store::MessageToStore& m, std::string& propsBuf);

// EndTransactionProcessor.endMessageTransaction for a commit: the half record back to
// REAL_TOPIC/REAL_QID, its properties string unchanged (Java builds it before clearing
// REAL_TOPIC/REAL_QID, so they and TRAN_MSG stay), transaction type COMMIT,
// preparedTransactionOffset = the half record's commit log offset. Empty when REAL_* are unusable.
std::optional<store::MessageToStore> commitMessage(const RecordView& half);

// The op record of a decision (commit or rollback): RMQ_SYS_TRANS_OP_HALF_TOPIC, queue of the
// half queue (0), tags "d", body = the half message's queue offset in decimal (into `bodyBuf`),
// born host/time = the broker/now.
store::MessageToStore opMessage(int64_t halfQueueOffset, const HostAddress& storeHost, int64_t nowMs,
                                std::string& bodyBuf);

// renewHalfMessageInner: the half record appended again (a check was sent for it) with
// TRANSACTION_CHECK_TIMES = `checkTimes` (into `propsBuf`).
store::MessageToStore renewHalfMessage(const RecordView& half, int32_t checkTimes, std::string& propsBuf);

// AdminBrokerProcessor.resumeCheckHalfMessage: the record (a half message, or one discarded to
// TRANS_CHECK_MAX_TIME_TOPIC) appended again to RMQ_SYS_TRANS_HALF_TOPIC queue 0 with
// TRANSACTION_CHECK_TIMES = 0, so the check service asks its producer again.
store::MessageToStore resumedHalfMessage(const RecordView& rec, std::string& propsBuf);

// resolveDiscardMsg: the half record to TRANS_CHECK_MAX_TIME_TOPIC queue 0, properties unchanged.
store::MessageToStore discardMessage(const RecordView& half);

// renewImmunityHalfMessageInner: a half message still inside its CHECK_IMMUNITY_TIME_IN_SECONDS put
// back unchecked: the renewed copy with TRAN_PREPARED_QUEUE_OFFSET = the record's own one when
// present, else `halfQueueOffset` (the original's half queue offset, whose op record ends it).
store::MessageToStore renewImmunityHalfMessage(const RecordView& half, int32_t checkTimes, int64_t halfQueueOffset,
                                               std::string& propsBuf);

// TRANSACTION_CHECK_TIMES of a half record (0 when absent or not a number).
int32_t checkTimesOf(const RecordView& half);
// Java getImmunityTime: empty without CHECK_IMMUNITY_TIME_IN_SECONDS; else its value * 1000, or
// `transactionTimeOutMs` when the value is -1 or not a number.
std::optional<int64_t> checkImmunityMs(const RecordView& half, int64_t transactionTimeOutMs);
// TRAN_PREPARED_QUEUE_OFFSET of an immunity copy: empty when absent, -1 when not a number (Java getLong).
std::optional<int64_t> preparedQueueOffsetOf(const RecordView& half);

// The CHECK_TRANSACTION_STATE body: the record in stored format with topic and queue id replaced
// by REAL_TOPIC/REAL_QID (MessageDecoder.encode of the re-targeted MessageExt).
std::string checkStateBody(const RecordView& half);

}  // namespace rmq::broker::tx
