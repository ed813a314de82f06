#pragma once
// Small pure helpers of the send path (no I/O): the stored properties string and the born host.
#include <optional>
#include <string>
#include <string_view>

#include "common/message.h"
#include "common/message_codec.h"
#include "store/store_types.h"

namespace rmq::broker {

// The properties string Java 4.9.8's asyncSendMessage stores for one message: the producer's string
// parsed into a HashMap, CLUSTER=<cluster> put, WAIT removed, written in the map's iteration order
// (common/java_string_map.h). Java keeps WAIT in the message's map only: `wait` gets its value
// (nullopt when absent, a view into `orig`), for a string rebuilt later (delay, half message).
// A send redirected to the DLQ keeps the producer's DELAY too (Java's setDelayTimeLevel(0) goes to
// a map that setProperties then replaces), so the store parks it like any delayed message.
// Returns whether the producer waits for the store (WAIT absent or "true" in any case:
// Boolean.parseBoolean).
bool buildStoredProperties(std::string_view orig, std::string_view cluster, std::string& out,
                           std::optional<std::string_view>& wait);
// SEND_BATCH_MESSAGE (asyncSendBatchMessage): the header's properties + CLUSTER=<cluster>, WAIT
// kept, in HashMap order; the store appends it to every item's own string. Returns whether the
// producer waits for the store.
bool buildBatchProperties(std::string_view orig, std::string_view cluster, std::string& out);
// Boolean.parseBoolean of a WAIT value; an absent WAIT means wait (Message.isWaitStoreMsgOK).
bool waitStoreMsgOk(std::optional<std::string_view> wait);
// The peer address of a connection as stored in born host: IPv4 for IPv4 (and v4-mapped) peers.
HostAddress peerHostAddress(const std::string& remoteAddress);
// A stored record put again under another topic/queue with new properties (delay delivery,
// send-back to %RETRY%/%DLQ%): body, flag, sysFlag, born time/host and reconsumeTimes carried over.
// The result views `rec`'s bytes and `properties`: keep both alive until it is appended.
store::MessageToStore reputMessage(const RecordView& rec, std::string_view topic, int32_t queueId,
                                   std::string_view properties);
// The properties of a message given back after failed consumption (CONSUMER_SEND_MSG_BACK, and a
// POP message that used up its deliveries), Java's puts in order on the stored map: RETRY_TOPIC =
// the original topic (kept when there), WAIT=false, DELAY=`delayLevel`, ORIGIN_MESSAGE_ID = the
// offset msgId (kept when there).
std::string sendBackProperties(const RecordView& rec, std::string_view delayLevel);
// A due record of SCHEDULE_TOPIC_XXXX as Java 4.9's ScheduleMessageService.messageTimeup puts it
// back: to REAL_TOPIC / REAL_QID with the stored properties string unchanged (DELAY, REAL_TOPIC and
// REAL_QID stay: Java builds the string before it clears DELAY), flagged so the store does not
// park it again. Empty when REAL_TOPIC / REAL_QID are missing or the queue id is not a number.
// The result views `rec`'s bytes.
std::optional<store::MessageToStore> delayTimeup(const RecordView& rec);
// The same re-put for any parked record (delay levels and timer messages: one path), stored with
// `properties` (the timer's: REAL_TOPIC / REAL_QID removed, TIMER_ENQUEUE_MS / TIMER_DEQUEUE_MS
// added). The result views `rec`'s bytes and `properties`.
std::optional<store::MessageToStore> timeupMessage(const RecordView& rec, std::string_view properties);

}  // namespace rmq::broker
