#include "client/producer/transaction_producer.h"

#include <asio/post.hpp>
#include <exception>

#include "common/log.h"
#include "common/message_codec.h"
#include "common/message_id.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::client {

const char* localTransactionStateName(LocalTransactionState s) {
  switch (s) {
    case LocalTransactionState::COMMIT_MESSAGE: return "COMMIT_MESSAGE";
    case LocalTransactionState::ROLLBACK_MESSAGE: return "ROLLBACK_MESSAGE";
    default: return "UNKNOW";
  }
}

net::RemotingCommand makeEndTransactionRequest(const std::string& group, int64_t tranStateTableOffset,
                                               int64_t commitLogOffset, LocalTransactionState state,
                                               bool fromTransactionCheck, const std::string& msgId,
                                               const std::string& transactionId) {
  int decision = 0;
  if (state == LocalTransactionState::COMMIT_MESSAGE) decision = sysflag::TRANSACTION_COMMIT_TYPE;
  if (state == LocalTransactionState::ROLLBACK_MESSAGE) decision = sysflag::TRANSACTION_ROLLBACK_TYPE;
  auto cmd = net::RemotingCommand::request(RequestCode::END_TRANSACTION);
  cmd.extFields.set("producerGroup", group);
  cmd.extFields.set("tranStateTableOffset", tranStateTableOffset);
  cmd.extFields.set("commitLogOffset", commitLogOffset);
  cmd.extFields.set("commitOrRollback", static_cast<int64_t>(decision));
  cmd.extFields.set("fromTransactionCheck", fromTransactionCheck ? "true" : "false");
  cmd.extFields.set("msgId", msgId);
  if (!transactionId.empty()) cmd.extFields.set("transactionId", transactionId);
  return cmd;
}

TransactionProducer::TransactionProducer(ProducerOptions options, TransactionListener listener)
    : producer_(std::move(options)), listener_(std::move(listener)) {}

TransactionProducer::~TransactionProducer() { shutdown(); }

Result<void> TransactionProducer::start() {
  if (!listener_.executeLocalTransaction || !listener_.checkLocalTransaction)
    return makeError(ResponseCode::SYSTEM_ERROR, "TransactionListener is null");
  // Registered before the first connection exists (dispatcher lookups are not synchronized).
  producer_.instance().remoting().dispatcher().registerProcessor(
      RequestCode::CHECK_TRANSACTION_STATE,
      [this](net::ConnectionPtr conn, net::RemotingCommand req) -> asio::awaitable<std::optional<net::RemotingCommand>> {
        onCheck(std::move(conn), std::move(req));
        co_return std::nullopt;
      });
  return producer_.start();
}

void TransactionProducer::shutdown() {
  producer_.shutdown();
  checks_.join();
}

void TransactionProducer::onCheck(net::ConnectionPtr conn, net::RemotingCommand req) {
  asio::post(checks_, [this, conn = std::move(conn), req = std::move(req)] {
    auto msg = decodeMessage(req.body);
    if (!msg) {
      log::warn("CHECK_TRANSACTION_STATE with an undecodable message: {}", msg.error().message);
      return;
    }
    LocalTransactionState state = LocalTransactionState::UNKNOW;
    try {
      state = listener_.checkLocalTransaction(*msg);
    } catch (const std::exception& e) {
      log::warn("checkLocalTransaction threw: {}", e.what());
    }
    const std::string* uniq = msg->property(prop::UNIQ_KEY);
    std::string msgId = uniq ? *uniq : std::string(req.extFields.get("msgId"));
    auto end = makeEndTransactionRequest(producer_.options().group,
                                         req.extFields.getInt("tranStateTableOffset").value_or(0),
                                         req.extFields.getInt("commitLogOffset").value_or(0), state, true, msgId,
                                         std::string(req.extFields.get("transactionId")));
    if (conn && conn->isOpen()) conn->sendOneway(std::move(end));
  });
}

Result<TransactionSendResult> TransactionProducer::sendMessageInTransaction(Message msg, void* arg) {
  msg.removeProperty(prop::DELAY);
  msg.putProperty(prop::TRAN_MSG, "true");
  msg.putProperty(prop::PGROUP, producer_.options().group);
  auto sent = producer_.send(msg);
  if (!sent) return sent.error();
  TransactionSendResult out;
  static_cast<SendResult&>(out) = *sent;
  LocalTransactionState state = LocalTransactionState::ROLLBACK_MESSAGE;
  std::string remark;
  if (sent->status == SendStatus::SEND_OK) {
    msg.putProperty(prop::UNIQ_KEY, sent->msgId);
    try {
      state = listener_.executeLocalTransaction(msg, arg);
    } catch (const std::exception& e) {
      state = LocalTransactionState::UNKNOW;
      remark = std::string("executeLocalTransactionBranch exception ") + e.what();
    }
  }
  out.localTransactionState = state;
  // END_TRANSACTION to the master that stored the half message (oneway; a lost frame is
  // recovered by the broker's check).
  auto id = parseOffsetMsgId(sent->offsetMsgId);
  auto addr = producer_.instance().masterAddr(sent->queue.brokerName);
  if (!id || !addr) {
    log::warn("END_TRANSACTION for {} not sent: no broker address / bad offset msgId {}", sent->msgId,
              sent->offsetMsgId);
    return out;
  }
  auto end = makeEndTransactionRequest(producer_.options().group, sent->queueOffset, id->commitLogOffset, state,
                                       false, sent->msgId, sent->msgId);
  if (!remark.empty()) end.remark = remark;
  if (auto r = producer_.instance().remoting().invokeOnewaySync(*addr, std::move(end)); !r)
    log::warn("END_TRANSACTION for {} not sent: {}", sent->msgId, r.error().message);
  return out;
}

}  // namespace rmq::client
