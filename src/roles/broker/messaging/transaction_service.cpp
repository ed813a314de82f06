#include "roles/broker/messaging/transaction_service.h"

#include "common/log.h"
#include "common/message.h"
#include "common/response_code.h"
#include "roles/broker/messaging/v2_status.h"

namespace rmq::broker::messaging {

void TransactionService::endTransaction(const v2::EndTransactionRequest& req, v2::EndTransactionResponse& resp) {
  int32_t decision = 0;
  switch (req.resolution()) {
    case v2::TransactionResolution::COMMIT: decision = sysflag::TRANSACTION_COMMIT_TYPE; break;
    case v2::TransactionResolution::ROLLBACK: decision = sysflag::TRANSACTION_ROLLBACK_TYPE; break;
    default:
      *resp.mutable_status() = makeStatus(v2::Code::BAD_REQUEST, "resolution must be COMMIT or ROLLBACK");
      return;
  }
  auto ref = txs_.find(req.transaction_id());
  if (!ref) {
    *resp.mutable_status() = makeStatus(v2::Code::INVALID_TRANSACTION_ID,
                                        "unknown transaction id " + req.transaction_id() + " on broker " +
                                            deps_.brokerName + " (not sent here, or too old)");
    return;
  }
  if (!ref->producerGroup.empty() && ref->producerGroup != req.topic().name()) {
    *resp.mutable_status() = makeStatus(v2::Code::INVALID_TRANSACTION_ID,
                                        "transaction " + req.transaction_id() + " is not of topic " + req.topic().name());
    return;
  }
  EndTransactionHeader h;
  h.producerGroup = req.topic().name();
  h.tranStateTableOffset = ref->tranStateTableOffset;
  h.commitLogOffset = ref->commitLogOffset;
  h.commitOrRollback = decision;
  h.fromTransactionCheck = req.source() == v2::TransactionSource::SOURCE_SERVER_CHECK;
  h.msgId = req.message_id();
  h.transactionId = req.transaction_id();
  auto res = deps_.endTransaction(h);
  if (res.code != ResponseCode::SUCCESS) {
    log::warn("EndTransaction {} (topic {}): {}", req.transaction_id(), req.topic().name(), res.remark);
    *resp.mutable_status() = makeStatus(codeOfResponse(res.code), res.remark);
    return;
  }
  *resp.mutable_status() = okStatus();
}

}  // namespace rmq::broker::messaging
