#include "roles/broker/processors/end_transaction_processor.h"

#include "roles/broker/processors/fast_failure.h"

#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/processors/request_header.h"
#include "roles/broker/transaction/transactional_message_service.h"
#include "store/store_config.h"

namespace rmq::broker {

namespace {

using net::RemotingCommand;

asio::awaitable<std::optional<RemotingCommand>> handleEndTransaction(BrokerContext& ctx, net::ConnectionPtr conn,
                                                                     RemotingCommand req) {
  auto late = expiredInQueue(ctx.config, WaitQueue::Transaction, req, std::chrono::steady_clock::now());
  if (late) co_return std::move(late);
  if (ctx.role.isSlave()) {
    co_return RemotingCommand::response(ResponseCode::SLAVE_NOT_AVAILABLE,
                                        "Can't process EndTransactionRequest on a slave broker");
  }
  HeaderReader r(req.extFields);
  EndTransactionHeader h;
  h.producerGroup = r.str("producerGroup");
  h.tranStateTableOffset = r.i64("tranStateTableOffset");
  h.commitLogOffset = r.i64("commitLogOffset");
  h.commitOrRollback = r.i32("commitOrRollback");
  h.fromTransactionCheck = r.boolean("fromTransactionCheck");
  h.msgId = r.str("msgId");
  h.transactionId = r.optStr("transactionId").value_or("");
  if (!r.ok()) co_return RemotingCommand::response(r.error().code, r.error().message);
  if (h.commitOrRollback == 0) {
    log::warn("END_TRANSACTION {} from {}: producer reports UNKNOWN{}{}", h.msgId, conn->remoteAddress(),
              req.remark ? ", remark: " : "", req.remark.value_or(""));
    co_return std::nullopt;
  }
  if (!ctx.transactions) co_return RemotingCommand::response(ResponseCode::SYSTEM_ERROR, "transactions not ready");
  auto res = ctx.transactions->endTransaction(h);
  if (res.code != ResponseCode::SUCCESS)
    log::warn("END_TRANSACTION {} (group {}, offset {}): {}", h.msgId, h.producerGroup, h.commitLogOffset, res.remark);
  co_return RemotingCommand::response(res.code, res.remark.empty() ? std::nullopt
                                                                   : std::optional<std::string>(res.remark));
}

// AdminBrokerProcessor.resumeCheckHalfMessage (header msgId: an offset message id of this broker).
asio::awaitable<std::optional<RemotingCommand>> handleResumeCheck(BrokerContext& ctx, RemotingCommand req) {
  HeaderReader r(req.extFields);
  std::string msgId = r.optStr("msgId").value_or("");
  if (!ctx.transactions) co_return RemotingCommand::response(ResponseCode::SYSTEM_ERROR, "transactions not ready");
  auto res = ctx.transactions->resumeCheck(msgId);
  co_return RemotingCommand::response(res.code, res.remark.empty() ? std::nullopt
                                                                   : std::optional<std::string>(res.remark));
}

}  // namespace

void registerEndTransactionProcessor(BrokerContext& ctx) {
  ctx.registerProcessor(RequestCode::RESUME_CHECK_HALF_MESSAGE,
                        [&ctx](net::ConnectionPtr, RemotingCommand r) { return handleResumeCheck(ctx, std::move(r)); });
  ctx.registerProcessor(RequestCode::END_TRANSACTION, [&ctx](net::ConnectionPtr c, RemotingCommand r) {
    return handleEndTransaction(ctx, std::move(c), std::move(r));
  });
}

}  // namespace rmq::broker
