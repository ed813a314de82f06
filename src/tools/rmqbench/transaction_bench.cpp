// `rmqbench transaction`: transactional sends through our TransactionProducer, as Java's benchmark
// TransactionProducer (-sr/-su/-cr/-cu rates, a batch id, the outcome written into each body so the
// check answers and any consumer can tell what must be delivered). Each message's plan is drawn
// when it is built: the local transaction answers COMMIT / ROLLBACK / UNKNOW (--send-rollback-rate,
// --send-unknown-rate); an UNKNOW message carries the answers to the broker's successive checks
// (--check-rollback-rate, --check-unknown-rate; at most 20, then UNKNOW). After the sends it waits
// (--check-wait seconds) until every UNKNOW was decided by a check, then prints what was committed.
// Body: "TXB <batch> <index> <send><checks...>" (letters C/R/U) padded with '.' to -s bytes;
// keys "tx-<batch>-<index>", tag --tag, user property benchBatch=<batch>.
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <unordered_map>

#include "client/producer/transaction_producer.h"
#include "tools/rmqbench/bench_driver.h"
#include "tools/rmqbench/bench_registry.h"

namespace rmq::bench {
namespace {

using client::LocalTransactionState;
constexpr size_t kMaxCheckAnswers = 20;  // Java's MAX_CHECK_RESULT_IN_MSG

struct TxOptions {
  std::string namesrv, topic, tag, group;
  int bodySize = 64;
  double sendRollback = 0, sendUnknown = 0, checkRollback = 0, checkUnknown = 0, checkWait = 60;
  int64_t batch = 0;
  uint64_t seed = 0;
  bool json = false;
  LoadOptions load;
};

LocalTransactionState stateOf(char c) {
  return c == 'C' ? LocalTransactionState::COMMIT_MESSAGE
                  : c == 'R' ? LocalTransactionState::ROLLBACK_MESSAGE : LocalTransactionState::UNKNOW;
}

// Java's draw: rollback with rate r; else unknown with rate u; else commit.
char draw(std::mt19937_64& rng, double rollback, double unknown) {
  std::uniform_real_distribution<double> d(0, 1);
  if (d(rng) < rollback) return 'R';
  if (d(rng) < unknown) return 'U';
  return 'C';
}

// The decisions of every message and what the broker asked; thread-safe.
class TxBook {
 public:
  explicit TxBook(const TxOptions& o) : o_(o), rng_(o.seed) {}

  // The plan of the next message: its index and decision letters (send answer, then check answers).
  std::pair<int64_t, std::string> next() {
    std::lock_guard lk(mu_);
    std::string plan(1, draw(rng_, o_.sendRollback, o_.sendUnknown));
    if (plan[0] == 'U') {
      while (plan.size() <= kMaxCheckAnswers) {
        plan += draw(rng_, o_.checkRollback, o_.checkUnknown);
        if (plan.back() != 'U') break;
      }
    }
    int64_t index = nextIndex_++;
    if (plan[0] == 'U') pending_[index] = {plan, 0};
    return {index, plan};
  }
  void sent(char decision, bool ok) {
    std::lock_guard lk(mu_);
    if (!ok) ++sendFailed_;
    else if (decision == 'C') ++committed_;
    else if (decision == 'R') ++rolledBack_;
  }
  void unsent(int64_t index) {
    std::lock_guard lk(mu_);
    pending_.erase(index);
  }
  // A check from the broker about message `index` of batch `batch`.
  LocalTransactionState check(int64_t batch, int64_t index) {
    std::lock_guard lk(mu_);
    ++checks_;
    auto it = pending_.find(index);
    if (batch != o_.batch || it == pending_.end()) {
      ++unexpectedChecks_;  // not ours, or already decided: Java's benchmark answers ROLLBACK
      return LocalTransactionState::ROLLBACK_MESSAGE;
    }
    auto& [plan, asked] = it->second;
    ++asked;
    char c = asked < plan.size() ? plan[asked] : 'U';
    if (c == 'C') ++committed_;
    if (c == 'R') ++rolledBack_;
    if (c != 'U') pending_.erase(it);
    return stateOf(c);
  }
  size_t pending() const {
    std::lock_guard lk(mu_);
    return pending_.size();
  }
  std::vector<std::pair<std::string, std::string>> summary() const {
    std::lock_guard lk(mu_);
    return {{"batch", std::to_string(o_.batch)},         {"committed", std::to_string(committed_)},
            {"rolled_back", std::to_string(rolledBack_)}, {"unresolved", std::to_string(pending_.size())},
            {"send_failed", std::to_string(sendFailed_)}, {"checks", std::to_string(checks_)},
            {"unexpected_checks", std::to_string(unexpectedChecks_)}};
  }

 private:
  const TxOptions& o_;
  mutable std::mutex mu_;
  std::mt19937_64 rng_;
  int64_t nextIndex_ = 0;
  std::unordered_map<int64_t, std::pair<std::string, size_t>> pending_;  // index -> plan, checks answered
  uint64_t committed_ = 0, rolledBack_ = 0, sendFailed_ = 0, checks_ = 0, unexpectedChecks_ = 0;
};

Message makeMessage(const TxOptions& o, int64_t index, const std::string& plan) {
  Message m;
  m.topic = o.topic;
  m.body = fmt::format("TXB {} {} {}", o.batch, index, plan);
  if (m.body.size() < static_cast<size_t>(o.bodySize)) m.body.resize(static_cast<size_t>(o.bodySize), '.');
  if (!o.tag.empty()) m.putProperty(prop::TAGS, o.tag);
  m.putProperty(prop::KEYS, fmt::format("tx-{}-{}", o.batch, index));
  m.putProperty("benchBatch", std::to_string(o.batch));
  return m;
}

// Batch and index from a body written by makeMessage; {-1, -1} otherwise.
std::pair<int64_t, int64_t> parseBody(const std::string& body) {
  std::istringstream in(body);
  std::string magic;
  int64_t batch = -1, index = -1;
  if (!(in >> magic >> batch >> index) || magic != "TXB") return {-1, -1};
  return {batch, index};
}

bool readOptions(OptionValues& args, TxOptions& o) {
  o.namesrv = args.get({"n"}, "");
  o.topic = args.get({"topic"}, "BenchmarkTest");
  o.tag = args.get({"tag"}, "TagA");
  o.group = args.get({"group"}, "benchmark_transaction_producer");
  o.load = readLoad(args);
  o.bodySize = static_cast<int>(args.getInt({"s"}, 64));
  o.sendRollback = args.getDouble({"send-rollback-rate"}, 0);
  o.sendUnknown = args.getDouble({"send-unknown-rate"}, 0);
  o.checkRollback = args.getDouble({"check-rollback-rate"}, 0);
  o.checkUnknown = args.getDouble({"check-unknown-rate"}, 0);
  o.checkWait = args.getDouble({"check-wait"}, 60);
  o.batch = args.getInt({"batch-id"}, std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch()).count());
  o.seed = static_cast<uint64_t>(args.getInt({"seed"}, o.batch));
  o.json = args.flag("json");
  for (double r : {o.sendRollback, o.sendUnknown, o.checkRollback, o.checkUnknown})
    if (r < 0 || r > 1) args.addError("the rates are between 0 and 1");
  if (o.checkWait < 0) args.addError("--check-wait must be >= 0");
  return args.errors().empty();
}

int runTransaction(OptionValues& args) {
  TxOptions o;
  if (!readOptions(args, o)) return 2;
  TxBook book(o);
  client::TransactionListener listener;
  listener.executeLocalTransaction = [](const Message&, void* arg) { return stateOf(*static_cast<char*>(arg)); };
  listener.checkLocalTransaction = [&book](const MessageExt& msg) {
    auto [batch, index] = parseBody(msg.body);
    return book.check(batch, index);
  };
  client::ProducerOptions po;
  po.group = o.group;
  po.client.namesrvAddr = o.namesrv;
  po.client.instanceName = fmt::format("bench-tx-{}", ::getpid());
  client::TransactionProducer producer(po, listener);
  if (auto r = producer.start(); !r) {
    std::fprintf(stderr, "rmqbench transaction: start failed: %s\n", r.error().message.c_str());
    return 1;
  }
  if (!o.json)
    std::printf("transaction: topic %s, batch %lld, %d threads, body %d B, %s, rates send rollback %.2f unknown %.2f,"
                " check rollback %.2f unknown %.2f\n",
                o.topic.c_str(), static_cast<long long>(o.batch), o.load.workers, o.bodySize,
                describeLoad(o.load).c_str(), o.sendRollback, o.sendUnknown, o.checkRollback, o.checkUnknown);

  BenchMeter meter("send", {"send"});
  BenchReporter reporter(meter, o.json);
  reporter.start();
  LoadBudget budget(o.load);
  std::vector<std::thread> threads;
  for (int w = 0; w < o.load.workers; ++w) {
    threads.emplace_back([&] {
      while (budget.take()) {
        auto [index, plan] = book.next();
        char decision = plan[0];
        uint64_t t0 = nowMicros();
        auto r = producer.sendMessageInTransaction(makeMessage(o, index, plan), &decision);
        meter.latency(0).record(nowMicros() - t0);
        bool ok = r.ok() && r->status == client::SendStatus::SEND_OK;
        if (ok) meter.success();
        else meter.failure();
        if (!ok) book.unsent(index);
        book.sent(decision, ok);
      }
    });
  }
  for (auto& t : threads) t.join();
  reporter.stop({{"workers", std::to_string(o.load.workers)}, {"body", std::to_string(o.bodySize)}});

  // The UNKNOW ones are decided by the broker's checks (every transactionCheckInterval).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.checkWait);
  while (book.pending() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto summary = book.summary();
  if (o.json) {
    std::string line = "{\"type\":\"transactions\"";
    for (auto& [k, v] : summary) line += fmt::format(",\"{}\":{}", k, v);
    std::printf("%s}\n", line.c_str());
  } else {
    std::string line = "TRANSACTIONS";
    for (auto& [k, v] : summary) line += fmt::format(" {} {}", k, v);
    std::printf("%s\n", line.c_str());
  }
  std::fflush(stdout);
  producer.shutdown();
  return meter.ok() > 0 && book.pending() == 0 ? 0 : 1;
}

std::vector<OptionSpec> transactionOptions() {
  auto options = loadOptionSpecs("sending threads (default 1)", "transactional sends");
  options.insert(options.end(),
                 {namesrvOption(),
                  {"--topic <topic>", "default BenchmarkTest"},
                  {"-s <bytes>", "body size (default 64; at least the plan text)", kInteger},
                  {"--tag <tag>", "default TagA"},
                  {"--group <group>", "producer group (default benchmark_transaction_producer)"},
                  {"--send-rollback-rate <r>", "share of local transactions answering ROLLBACK (Java -sr)", kNumber},
                  {"--send-unknown-rate <r>", "share of the rest answering UNKNOW (Java -su)", kNumber},
                  {"--check-rollback-rate <r>", "share of check answers ROLLBACK (Java -cr)", kNumber},
                  {"--check-unknown-rate <r>", "share of the rest UNKNOW again (Java -cu)", kNumber},
                  {"--batch-id <n>", "written into every body and key (default: now in ms; Java -b)", kInteger},
                  {"--seed <n>", "random seed of the plans (default: the batch id)", kInteger},
                  {"--check-wait <s>", "seconds to wait for the checks of UNKNOW ones (default 60)", kNumber},
                  jsonOption()});
  return options;
}

Registrar registrar("transaction",
                    "transactional sends with commit/rollback/unknown rates and check-back answers (Java's "
                    "benchmark TransactionProducer)",
                    transactionOptions(), &runTransaction);

}  // namespace
}  // namespace rmq::bench
