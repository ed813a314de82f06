#pragma once
// TransactionProducer (Java TransactionMQProducer): sendMessageInTransaction sends a half message
// (TRAN_MSG=true, PGROUP=<group>), runs the listener's executeLocalTransaction and reports the
// outcome with END_TRANSACTION (oneway) to the broker that stored the half message. Brokers that
// do not get an answer (UNKNOW, lost frame, crash) ask with CHECK_TRANSACTION_STATE; the listener's
// checkLocalTransaction answers, again with END_TRANSACTION (fromTransactionCheck=true), to the
// asking broker's connection. PROTOCOL.md §10.3.
// Threads: sendMessageInTransaction is blocking (not from the io thread) and runs
// executeLocalTransaction on the caller's thread; checkLocalTransaction runs on the producer's own
// check thread (never on the io thread), one check at a time.
#include <asio/thread_pool.hpp>
#include <functional>
#include <string>

#include "client/producer/producer.h"

namespace rmq::client {

enum class LocalTransactionState { COMMIT_MESSAGE, ROLLBACK_MESSAGE, UNKNOW };
const char* localTransactionStateName(LocalTransactionState s);

struct TransactionListener {
  // `arg` is sendMessageInTransaction's argument. Throwing counts as UNKNOW.
  std::function<LocalTransactionState(const Message& msg, void* arg)> executeLocalTransaction;
  // `msg` is the half message as the broker stored it (topic/queue = the real ones, UNIQ_KEY set).
  std::function<LocalTransactionState(const MessageExt& msg)> checkLocalTransaction;
};

struct TransactionSendResult : SendResult {
  LocalTransactionState localTransactionState = LocalTransactionState::UNKNOW;
};

// END_TRANSACTION (37) request: commitOrRollback 8 / 12 / 0 from the state.
net::RemotingCommand makeEndTransactionRequest(const std::string& group, int64_t tranStateTableOffset,
                                               int64_t commitLogOffset, LocalTransactionState state,
                                               bool fromTransactionCheck, const std::string& msgId,
                                               const std::string& transactionId);

class TransactionProducer {
 public:
  TransactionProducer(ProducerOptions options, TransactionListener listener);
  ~TransactionProducer();

  Result<void> start();
  void shutdown();
  Producer& producer() { return producer_; }

  // Java sendMessageInTransaction: DELAY is dropped (transactional messages are not delayed).
  Result<TransactionSendResult> sendMessageInTransaction(Message msg, void* arg = nullptr);

 private:
  void onCheck(net::ConnectionPtr conn, net::RemotingCommand req);

  Producer producer_;
  TransactionListener listener_;
  asio::thread_pool checks_{1};
};

}  // namespace rmq::client
