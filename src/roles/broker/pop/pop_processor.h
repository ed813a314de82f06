#pragma once
// Remoting processors of RocketMQ 5.x's POP codes over PopService, with Java 5.x's header fields
// (PopMessageRequestHeader, AckMessageRequestHeader, ChangeInvisibleTimeRequestHeader) and answer
// shape (PopMessageResponseHeader: popTime, invisibleTime, reviveQid, restNum, startOffsetInfo,
// msgOffsetInfo, orderCountInfo; the messages as a pull body). Each message also carries its
// receipt handle as the POP_CK property (a Java 5.x client uses a POP_CK it finds as is).
//   POP_MESSAGE (200050): SUCCESS with messages; PULL_NOT_FOUND (pollTime 0) or POLLING_TIMEOUT
//     (210) without; POLLING_FULL (209) when too many pops are parked.
//   ACK_MESSAGE (200051): SUCCESS; NO_MESSAGE (208) for an invalid receipt handle (remark says why).
//   CHANGE_MESSAGE_INVISIBLETIME (200053): SUCCESS with popTime, invisibleTime, reviveQid (and
//     extraInfo = the new handle); NO_MESSAGE (208) for an invalid handle.
//   BATCH_ACK_MESSAGE (200151, body BatchAckMessageRequestBody): SUCCESS (offsets not in flight
//     skipped, as 5.x); NO_MESSAGE for a body without acks.
//   PEEK_MESSAGE (200052, PeekMessageRequestHeader): SUCCESS with the records the group's next pops
//     would get, restNum; PULL_NOT_FOUND without; INVALID_PARAMETER (29) for a bad queue id.
// Threads: the connection's network thread.
namespace rmq::broker {
struct BrokerContext;
}

namespace rmq::broker::pop {

class PopService;

void registerPopProcessors(BrokerContext& ctx, PopService& service);

}  // namespace rmq::broker::pop
