#pragma once
// EndTransaction: the v2 request names the transaction (id = the half message's UNIQ_KEY) and the
// resolution; the half record's offsets come from the TransactionTable (filled at the half send
// and at each check-back push). COMMIT/ROLLBACK go to the broker's END_TRANSACTION logic
// (TransactionalMessageService::endTransaction) with producer group = topic; source
// SOURCE_SERVER_CHECK is the answer to a RecoverOrphanedTransactionCommand.
#include "apache/rocketmq/v2/service.pb.h"
#include "roles/broker/messaging/messaging_deps.h"
#include "roles/broker/messaging/v2_status.h"
#include "roles/broker/messaging/transaction_table.h"

namespace rmq::broker::messaging {

class TransactionService {
 public:
  TransactionService(MessagingDeps& deps, TransactionTable& txs) : deps_(deps), txs_(txs) {}
  void endTransaction(const v2::EndTransactionRequest& req, v2::EndTransactionResponse& resp);

 private:
  MessagingDeps& deps_;
  TransactionTable& txs_;
};

}  // namespace rmq::broker::messaging
