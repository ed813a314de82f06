#pragma once
// END_TRANSACTION (37), PROTOCOL.md §10.3: commit or roll back a half message (oneway from
// producers, also as the answer to CHECK_TRANSACTION_STATE). Slaves answer SLAVE_NOT_AVAILABLE;
// unknown (0) or other decisions do nothing. RESUME_CHECK_HALF_MESSAGE (323, mqadmin
// resumeCheckHalfMessage): a message back into the half queue with its check count reset. The
// work is TransactionalMessageService's.
#include "roles/broker/broker_context.h"

namespace rmq::broker {

void registerEndTransactionProcessor(BrokerContext& ctx);

}  // namespace rmq::broker
