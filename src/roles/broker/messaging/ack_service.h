#pragma once
// What a 5.x consumer does with a received message, on PopService:
//   AckMessage (entries in a batch; each entry its own status, top level OK when all are, else the
//     first failure's code — the Node client checks only the top level),
//   ChangeInvisibleDuration (returns the new receipt handle; the old one is dead; a push
//     consumer's nack asks for milliseconds, so any positive time up to 12 h is taken, 0 = 1 ms),
//   ForwardMessageToDeadLetterQueue (to %DLQ%<group> now).
// Handles a client got with auto_renew are mapped to their latest renewal first (ReceiptRenewer).
// A bad, expired or used handle -> INVALID_RECEIPT_HANDLE (push consumers then give up quietly).
#include <asio/awaitable.hpp>

#include "apache/rocketmq/v2/service.pb.h"
#include "roles/broker/messaging/messaging_deps.h"
#include "roles/broker/messaging/receipt_renewer.h"
#include "roles/broker/messaging/v2_status.h"

namespace rmq::broker::messaging {

class AckService {
 public:
  AckService(MessagingDeps& deps, ReceiptRenewer& renewer) : deps_(deps), renewer_(renewer) {}
  asio::awaitable<void> ack(const v2::AckMessageRequest& req, v2::AckMessageResponse& resp);
  asio::awaitable<void> changeInvisible(const v2::ChangeInvisibleDurationRequest& req,
                                        v2::ChangeInvisibleDurationResponse& resp);
  asio::awaitable<void> toDeadLetter(const v2::ForwardMessageToDeadLetterQueueRequest& req,
                                     v2::ForwardMessageToDeadLetterQueueResponse& resp);

 private:
  // The status refusing a request before the broker is asked, if any.
  std::optional<v2::Status> precheck(const v2::Resource& group, const v2::Resource& topic) const;

  MessagingDeps& deps_;
  ReceiptRenewer& renewer_;
};

}  // namespace rmq::broker::messaging
