#include "roles/broker/failover/failover_coordinator.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <future>

#include "common/json.h"
#include "common/log.h"
#include "coord/etcd_client.h"
#include "repl/replica_set.h"
#include "roles/broker/replication/broker_replication.h"
#include "store/epoch_file.h"
#include "store/message_store.h"

namespace rmq::broker {

namespace {
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using coord::Compare;
using coord::TxnOp;

Compare stateUnchanged(const GroupKeys& k, int64_t revision) {
  Compare c;
  c.key = k.state();
  c.target = revision == 0 ? Compare::Target::Version : Compare::Target::Mod;
  c.number = revision;  // version 0 = absent
  return c;
}

Compare leaderHeldBy(const GroupKeys& k, int64_t lease) {
  Compare c;
  c.key = k.leader();
  c.target = Compare::Target::Lease;
  c.number = lease;
  return c;
}

Compare leaderAbsent(const GroupKeys& k) {
  Compare c;
  c.key = k.leader();
  c.target = Compare::Target::Version;
  c.number = 0;
  return c;
}

TxnOp putOp(std::string key, std::string value, int64_t lease = 0) {
  TxnOp op;
  op.kind = TxnOp::Kind::Put;
  op.key = std::move(key);
  op.value = std::move(value);
  op.lease = lease;
  return op;
}
}  // namespace

FailoverCoordinator::FailoverCoordinator(BrokerContext& ctx, BrokerReplication& replication, store::EpochFile& epochs,
                                         Hooks hooks)
    : ctx_(ctx),
      repl_(replication),
      epochs_(epochs),
      hooks_(std::move(hooks)),
      keys_(ctx.config.failover.failoverEtcdPrefix, ctx.config.brokerClusterName, ctx.config.brokerName),
      checkEvery_(ctx.config.failover.failoverCheckIntervalMs),
      renewEvery_(ctx.config.failover.failoverRenewIntervalMs),
      fenceMargin_(ctx.config.failover.failoverFenceMarginMs),
      readEvery_(ctx.config.failover.failoverGroupReadIntervalMs) {
  coord::EtcdOptions opts;
  opts.endpoints = ctx.config.failover.etcdEndpoints();
  opts.requestTimeout = milliseconds(ctx.config.failover.failoverEtcdRequestTimeoutMs);
  etcd_ = std::make_unique<coord::EtcdClient>(io_.get_executor(), opts);
}

FailoverCoordinator::~FailoverCoordinator() { stop(); }

void FailoverCoordinator::start() {
  if (running_.exchange(true)) return;
  asio::co_spawn(io_, leaseLoop(), asio::detached);
  asio::co_spawn(io_, groupLoop(), asio::detached);
  thread_ = std::thread([this] {
    auto guard = asio::make_work_guard(io_);
    io_.run();
  });
  log::info("failover: group {} coordinated through etcd {} (lease {} ms, renew every {} ms, fence margin {} ms)",
            keys_.base, ctx_.config.failover.failoverEtcdEndpoints, ctx_.config.failover.failoverLeaseTtlMs,
            renewEvery_.count(), fenceMargin_.count());
}

void FailoverCoordinator::stop() {
  if (!running_.exchange(false)) return;
  // A master that stops gives its lease back: the leader key goes at once and a slave takes over
  // without waiting for the TTL (the controller has stopped taking sends before this).
  auto done = std::make_shared<std::promise<void>>();
  asio::co_spawn(
      io_,
      [this, done]() -> asio::awaitable<void> {
        if (leaseId_ != 0) {
          ctx_.role.leaseValidUntil(Clock::time_point{});  // acknowledge nothing more
          auto r = co_await etcd_->leaseRevoke(leaseId_);
          if (!r) log::warn("failover: revoking lease {} failed: {}", leaseId_, r.error().message);
        }
        done->set_value();
      },
      asio::detached);
  done->get_future().wait_for(std::chrono::seconds(3));
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

FailoverCoordinator::Status FailoverCoordinator::status() const {
  std::lock_guard lock(statusMu_);
  return status_;
}

void FailoverCoordinator::noteError(const std::string& e) {
  std::lock_guard lock(statusMu_);
  if (status_.lastError != e) log::warn("failover: {}", e);
  status_.lastError = e;
}

asio::awaitable<void> FailoverCoordinator::sleep(milliseconds d) {
  asio::steady_timer t(io_);
  t.expires_after(d);
  co_await t.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
}

// The lease: granted once, renewed every failoverRenewIntervalMs. Each renewal of the lease the
// leader key carries moves the fence deadline to (send time + granted TTL − margin): etcd reset
// the TTL after it received the request, so the lease lives at least that long (README).
asio::awaitable<void> FailoverCoordinator::leaseLoop() {
  const int64_t ttlSeconds = (ctx_.config.failover.failoverLeaseTtlMs + 999) / 1000;
  while (running_) {
    if (leaseId_ == 0) {
      auto sent = Clock::now();
      auto g = co_await etcd_->leaseGrant(ttlSeconds);
      if (!g) {
        noteError("lease grant: " + g.error().message);
        co_await sleep(renewEvery_);
        continue;
      }
      leaseId_ = g->id;
      leaseValidUntil_ = sent + std::chrono::seconds(g->ttlSeconds) - fenceMargin_;
      log::info("failover: lease {} granted (TTL {} s)", leaseId_, g->ttlSeconds);
      continue;
    }
    const int64_t lease = leaseId_;
    auto sent = Clock::now();
    auto r = co_await etcd_->leaseKeepAlive(lease);
    if (r && *r > 0) {
      if (lease == leaseId_) leaseValidUntil_ = sent + std::chrono::seconds(*r) - fenceMargin_;
      if (lease == masterLeaseId_ && lease != 0) ctx_.role.leaseValidUntil(leaseValidUntil_);
    } else if (r || coord::isLeaseGone(r.error())) {
      log::warn("failover: lease {} is gone (expired in etcd)", lease);
      if (leaseId_ == lease) leaseId_ = 0;
      nextRead_ = {};  // a master reads the group at once (its leader key went with the lease)
      continue;
    } else {
      noteError("lease renewal: " + r.error().message);
    }
    // A slave's lease only keeps its member record alive: half the pace is enough. Its last renewal
    // still sets the fence deadline should it be elected (then the master's pace applies).
    const auto pace = ctx_.role.isMaster() ? renewEvery_ : 2 * renewEvery_;
    co_await sleep(pace);
  }
}

asio::awaitable<Result<FailoverCoordinator::View>> FailoverCoordinator::readView() {
  auto kvs = co_await etcd_->range(keys_.base, true);
  if (!kvs) co_return kvs.error();
  View v;
  for (auto& kv : *kvs) {
    if (kv.key == keys_.state()) {
      auto s = parseGroupState(kv.value);
      if (!s) co_return s.error();
      v.state = std::move(*s);
      v.stateRevision = kv.modRevision;
    } else if (kv.key == keys_.leader()) {
      if (auto l = parseLeader(kv.value)) {
        v.leader = *l;
        v.leaderLease = kv.lease;
        v.leaderRevision = kv.modRevision;
      }
    } else if (kv.key.starts_with(keys_.memberPrefix())) {
      if (auto m = parseMember(kv.value)) v.members.push_back(std::move(*m));
    }
  }
  co_return v;
}

asio::awaitable<void> FailoverCoordinator::groupLoop() {
  while (running_) {
    const bool master = ctx_.role.isMaster();
    if (!master || !view_ || Clock::now() >= nextRead_) {
      auto read = co_await readView();
      if (!read) {
        noteError("reading the group's records: " + read.error().message);
        view_.reset();
        co_await sleep(checkEvery_);
        continue;
      }
      view_ = std::move(*read);
      nextRead_ = Clock::now() + readEvery_;
    }
    View& view = *view_;
    {
      std::lock_guard lock(statusMu_);
      status_.state = view.state;
      status_.members = view.members;
      status_.master = master;
      status_.epoch = ctx_.role.epoch();
    }
    if (master) co_await masterTick(view);
    else co_await slaveTick(view);
    if (leaseId_ != 0) co_await publishMember();
    co_await awaitNextTick(view);
  }
}

// Between two ticks: a master paces its in-sync checks; a slave with a master to follow waits on
// an etcd watch of the leader key (woken by any change since the read: the master's lease expired,
// a switchover, a new master), at most failoverGroupReadIntervalMs; without one it reads again soon.
asio::awaitable<void> FailoverCoordinator::awaitNextTick(const View& v) {
  if (ctx_.role.isMaster() || !view_ || !v.leader || v.leaderRevision == 0) {
    co_await sleep(checkEvery_);
    co_return;
  }
  auto changed = co_await etcd_->waitForChange(keys_.leader(), v.leaderRevision + 1, readEvery_);
  if (!changed) co_await sleep(checkEvery_);  // the read that follows tries the other endpoints
}

MemberRecord FailoverCoordinator::self() const {
  MemberRecord m;
  m.brokerId = ctx_.config.brokerId;
  m.addr = ctx_.config.brokerAddr();
  m.haAddr = repl_.haServerAddr();
  m.maxOffset = ctx_.store.maxPhyOffset();
  m.epoch = epochs_.lastEpoch();
  m.priority = ctx_.config.failover.brokerElectionPriority;
  m.master = ctx_.role.isMaster();
  return m;
}

// The member record (own lease): at once when the lease, role or epoch changed; when only the
// commit-log end moved, at most once a second (it ranks candidates and feeds rmqadmin's lag; under
// load it changes all the time, and every etcd put is an fsync on the etcd members: a second's
// staleness costs nothing, safety never depends on the ranking); nothing while nothing moves.
asio::awaitable<void> FailoverCoordinator::publishMember() {
  auto m = self();
  auto now = Clock::now();
  bool changed = leaseId_ != memberLease_ || m.epoch != lastMember_.epoch || m.master != lastMember_.master ||
                 m.haAddr != lastMember_.haAddr;
  bool moved = m.maxOffset != lastMember_.maxOffset;
  if (!changed && (!moved || now - lastMemberPut_ < milliseconds(1000))) co_return;
  auto put = co_await etcd_->put(keys_.member(m.brokerId), toJson(m), leaseId_);
  if (!put) {
    noteError("member record: " + put.error().message);
    co_return;
  }
  lastMember_ = m;
  lastMemberPut_ = now;
  memberLease_ = leaseId_;
}

bool FailoverCoordinator::isCandidate(const GroupState& s) const {
  int64_t me = ctx_.config.brokerId;
  return s.masterId == me || s.inSyncHas(me);
}

asio::awaitable<void> FailoverCoordinator::slaveTick(const View& v) {
  if (!v.state) {
    co_await bootstrap(v);
    co_return;
  }
  const GroupState& s = *v.state;
  const int64_t me = ctx_.config.brokerId;
  for (auto& m : v.members)
    if (m.brokerId == s.masterId && m.master) lastMasterEnd_ = std::max(lastMasterEnd_, m.maxOffset);
  if (v.leader) {
    if (s.masterId != me) follow(s);
    co_return;  // (the state names us but an old lease of ours still holds the leader key: wait)
  }
  if (!isCandidate(s)) co_return;
  if (s.handoverTo >= 0 && s.handoverTo != me) {
    // A planned switchover names its successor: the others wait for it unless it is gone.
    bool targetAlive = false;
    for (auto& m : v.members) targetAlive |= m.brokerId == s.handoverTo;
    if (targetAlive) co_return;
  }
  co_await elect(v);
}

// No state yet: the broker configured as master creates epoch 1 (after the newest epoch its
// own epoch file knows, if etcd lost the group).
asio::awaitable<void> FailoverCoordinator::bootstrap(const View& v) {
  if (ctx_.storeConfig.isSlave() || leaseId_ == 0) co_return;
  const int64_t lease = leaseId_;
  GroupState base;
  base.epoch = epochs_.lastEpoch();
  int64_t end = ctx_.store.maxPhyOffset();
  GroupState next = base.nextEpoch(ctx_.config.brokerId, ctx_.config.brokerAddr(), repl_.haServerAddr(), end);
  next.mode = ctx_.storeConfig.brokerRole;  // the group's replication mode, for every master it will have
  std::vector<Compare> cmp{stateUnchanged(keys_, 0), leaderAbsent(keys_)};
  std::vector<TxnOp> ops{putOp(keys_.state(), toJson(next)),
                         putOp(keys_.leader(), toJson(LeaderRecord{next.masterId, next.epoch}), lease)};
  auto t = co_await etcd_->txn(std::move(cmp), std::move(ops));
  if (!t) {
    noteError("bootstrap: " + t.error().message);
    co_return;
  }
  if (!t->succeeded) co_return;  // someone else was first: the next read shows it
  log::info("failover: group {} created, this broker is master at epoch {}", keys_.base, next.epoch);
  becomeMaster(next, lease);
}

// Leader key gone and we are a candidate: the best-ranked live candidate waits least; the
// transaction (state unchanged, leader absent) lets exactly one win.
asio::awaitable<void> FailoverCoordinator::elect(const View& v) {
  if (leaseId_ == 0) co_return;
  const GroupState& s = *v.state;
  int rank = s.handoverTo == ctx_.config.brokerId ? 0 : rankAmong(s, v.members, self());
  if (rank > 0) {
    co_await sleep(milliseconds(ctx_.config.failover.failoverRankDelayMs * rank));
    auto again = co_await readView();
    if (!again || again->leader || !again->state || again->stateRevision != v.stateRevision) co_return;
  }
  // Stop following before deciding where our log ends: nothing may land after the cut.
  repl_.detachFromMaster();
  followingEpoch_ = 0;
  int64_t end = ctx_.store.maxPhyOffset();
  int64_t complete = ctx_.store.lastRecordBoundaryAtOrBelow(end);
  if (complete < end) {
    if (auto cut = ctx_.store.truncateTo(complete); !cut) {
      noteError("election: cutting the partial record at " + std::to_string(complete) + ": " + cut.error().message);
      co_return;
    }
  }
  const int64_t lease = leaseId_;
  GroupState next = s.nextEpoch(ctx_.config.brokerId, ctx_.config.brokerAddr(), repl_.haServerAddr(), complete);
  std::vector<Compare> cmp{stateUnchanged(keys_, v.stateRevision), leaderAbsent(keys_)};
  std::vector<TxnOp> ops{putOp(keys_.state(), toJson(next)),
                         putOp(keys_.leader(), toJson(LeaderRecord{next.masterId, next.epoch}), lease)};
  auto t = co_await etcd_->txn(std::move(cmp), std::move(ops));
  if (!t) {
    noteError("election: " + t.error().message);
    co_return;
  }
  if (!t->succeeded) {
    log::info("failover: another broker took mastership of {} first", keys_.base);
    co_return;  // the next read shows the new master; we follow it
  }
  ctx_.store.rebuildQueueOffsets();  // replicated appends left the next queue offsets behind
  log::info("failover: elected master of {} at epoch {} (rank {}, commit log end {}, old master {})", keys_.base,
            next.epoch, rank, complete, s.masterId);
  // ASYNC_MASTER: what the old master had beyond our end may have been acknowledged and is lost
  // now (SYNC_MASTER acknowledged nothing we do not have). Its last published end says how much.
  if (lastMasterEnd_ > complete)
    log::warn("failover: the old master's last published commit log end was {}, {} bytes beyond ours: messages "
              "it acknowledged in that range (ASYNC_MASTER) are lost",
              lastMasterEnd_, lastMasterEnd_ - complete);
  lastMasterEnd_ = 0;
  becomeMaster(next, lease);
}

void FailoverCoordinator::becomeMaster(const GroupState& s, int64_t leaseId) {
  if (auto r = epochs_.append(s.epoch, s.epochStart()); !r)
    log::error("failover: epoch file: {}", r.error().message);
  masterLeaseId_ = leaseId;
  // The leader key was just written with this lease, so it lived then; it lives at least until
  // the last renewal's send time + TTL (the fence deadline the lease loop keeps).
  ctx_.role.leaseValidUntil(leaseId == leaseId_ ? leaseValidUntil_ : Clock::time_point{});
  ctx_.role.becomeMaster(s.epoch);
  repl_.actAsMaster(s.epoch, s.epochStart(), {});
  ctx_.store.setRole(s.mode);
  followingEpoch_ = 0;
  nextRead_ = {};  // our copy of the group predates our own transaction
  if (hooks_.becameMaster) hooks_.becameMaster();
}

void FailoverCoordinator::demote(int64_t epoch, const std::string& why) {
  log::warn("failover: this broker steps down as master of {} (epoch {}): {}", keys_.base, ctx_.role.epoch(), why);
  masterLeaseId_ = 0;
  ctx_.role.becomeSlave(epoch, ctx_.config.brokerId);
  ctx_.store.setRole("SLAVE");
  repl_.stepDown();
  followingEpoch_ = 0;
  if (hooks_.becameSlave) hooks_.becameSlave();
}

// Follow the master of state `s`: first cut what this replica wrote beyond the end of its
// newest epoch in the group's history (an old master's unreplicated tail), then stream.
void FailoverCoordinator::follow(const GroupState& s) {
  if (followingEpoch_ == s.epoch) return;
  const int64_t mine = epochs_.lastEpoch();
  const int64_t keep = s.endOfEpoch(mine);
  const int64_t end = ctx_.store.maxPhyOffset();
  if (end > keep) {
    repl_.detachFromMaster();
    auto cut = ctx_.store.truncateTo(keep);
    if (!cut) {
      noteError("cutting the commit log at " + std::to_string(keep) + " (end of epoch " + std::to_string(mine) +
                "): " + cut.error().message);
      return;
    }
    if (auto r = epochs_.truncateFrom(keep); !r) log::error("failover: epoch file: {}", r.error().message);
  }
  for (auto& [e, start] : s.history)
    if (e > epochs_.lastEpoch())
      if (auto r = epochs_.append(e, start); !r) log::error("failover: epoch file: {}", r.error().message);
  ctx_.role.becomeSlave(s.epoch, ctx_.config.brokerId);
  repl_.actAsSlave(s.masterAddr, s.masterHaAddr, s.epoch);
  followingEpoch_ = s.epoch;
  log::info("failover: following master {} (brokerId {}) at epoch {}", s.masterAddr, s.masterId, s.epoch);
}

asio::awaitable<void> FailoverCoordinator::masterTick(View& v) {
  const int64_t me = ctx_.config.brokerId;
  if (!v.state || v.state->epoch != ctx_.role.epoch() || v.state->masterId != me) {
    int64_t e = v.state ? v.state->epoch : ctx_.role.epoch();
    demote(e, v.state ? "etcd names master " + std::to_string(v.state->masterId) + " at epoch " + std::to_string(e)
                      : "the group's state vanished from etcd");
    co_return;
  }
  if (!v.leader || v.leaderLease != masterLeaseId_) {
    demote(v.state->epoch, "its leader key is gone (lease expired)");
    co_return;
  }
  if (int64_t heard = repl_.replicas()->highestEpochHeard(); heard > ctx_.role.epoch()) {
    demote(heard, "a slave follows epoch " + std::to_string(heard));
    co_return;
  }
  co_await updateInSync(v);
}

// Shrink: slaves disconnected or behind for haMaxTimeSlaveNotCatchup leave, after etcd accepted
// it. Grow: caught-up slaves join, counted for acks before etcd is asked (replica_set.h).
asio::awaitable<void> FailoverCoordinator::updateInSync(View& v) {
  auto& replicas = *repl_.replicas();
  replicas.tick(ctx_.store.maxPhyOffset());
  const auto now = Clock::now();
  const auto maxBehind = milliseconds(ctx_.config.failover.haMaxTimeSlaveNotCatchup);
  const std::vector<int64_t> current = v.state->inSync;
  std::vector<int64_t> next;
  bool grow = false;
  for (auto& r : replicas.replicas()) {
    bool fresh = r.connected && r.caughtUpAt != Clock::time_point{} && now - r.caughtUpAt <= maxBehind;
    bool in = v.state->inSyncHas(r.id);
    if (in && fresh) next.push_back(r.id);
    if (!in && fresh && now - r.caughtUpAt <= 2 * checkEvery_ + milliseconds(50)) {
      next.push_back(r.id);
      grow = true;
    }
  }
  std::sort(next.begin(), next.end());
  std::vector<int64_t> sortedCurrent = current;
  std::sort(sortedCurrent.begin(), sortedCurrent.end());
  if (next == sortedCurrent) co_return;
  if (grow) {  // count the joining slaves' acks now, before etcd records them
    std::vector<int64_t> both = sortedCurrent;
    for (int64_t id : next)
      if (!v.state->inSyncHas(id)) both.push_back(id);
    replicas.setInSync(both);
  }
  GroupState updated = *v.state;
  updated.inSync = next;
  std::vector<Compare> cmp{stateUnchanged(keys_, v.stateRevision), leaderHeldBy(keys_, masterLeaseId_)};
  std::vector<TxnOp> ops{putOp(keys_.state(), toJson(updated))};
  auto t = co_await etcd_->txn(std::move(cmp), std::move(ops));
  if (!t || !t->succeeded) {
    replicas.setInSync(current);  // unchanged in etcd: keep acknowledging by the recorded set
    if (!t) noteError("in-sync set update: " + t.error().message);
    nextRead_ = {};  // our copy may be stale: read before the next try
    co_return;
  }
  replicas.setInSync(next);
  v.state->inSync = next;  // our copy follows our own write (the txn's revision is the state's now)
  v.stateRevision = t->revision;
  std::string text;
  for (int64_t id : next) text += (text.empty() ? "" : ",") + std::to_string(id);
  log::info("failover: in-sync set of {} at epoch {} is now [{}]", keys_.base, updated.epoch, text);
}

}  // namespace rmq::broker

namespace rmq::broker {

asio::awaitable<FailoverCoordinator::HandOver> FailoverCoordinator::handOver(int64_t target, milliseconds timeout) {
  const int64_t me = ctx_.config.brokerId;
  if (!ctx_.role.isMaster()) co_return HandOver{false, "broker " + std::to_string(me) + " is not the master of " + keys_.base};
  if (target == me) co_return HandOver{false, "broker " + std::to_string(me) + " is the master already"};
  ctx_.role.setDraining(true);  // new sends answer SERVICE_NOT_AVAILABLE; those in flight finish
  auto undo = [this](std::string why) {
    ctx_.role.setDraining(false);
    return HandOver{false, std::move(why)};
  };
  const auto deadline = Clock::now() + timeout;
  int64_t end = 0, ack = -1;
  for (;;) {
    end = ctx_.store.maxPhyOffset();
    ack = -1;
    for (auto& r : repl_.replicas()->replicas())
      if (r.id == target && r.connected) ack = r.ack;
    if (ack >= end) break;
    if (Clock::now() > deadline || !ctx_.role.isMaster())
      co_return undo("broker " + std::to_string(target) + " did not catch up in time (acknowledged " +
                     std::to_string(ack) + " of " + std::to_string(end) + ")");
    co_await sleep(milliseconds(10));
  }
  auto view = co_await readView();
  if (!view) co_return undo("reading the group's records: " + view.error().message);
  if (!view->state || view->state->masterId != me) co_return undo("the group's state does not name this broker");
  GroupState next = *view->state;
  next.handoverTo = target;
  std::vector<Compare> cmp{stateUnchanged(keys_, view->stateRevision), leaderHeldBy(keys_, masterLeaseId_)};
  TxnOp dropLeader;
  dropLeader.kind = TxnOp::Kind::Delete;
  dropLeader.key = keys_.leader();
  std::vector<TxnOp> ops{putOp(keys_.state(), toJson(next)), dropLeader};
  auto t = co_await etcd_->txn(std::move(cmp), std::move(ops));
  if (!t) co_return undo("etcd: " + t.error().message);
  if (!t->succeeded) co_return undo("the group's state changed meanwhile; nothing handed over");
  demote(next.epoch, "planned switchover to broker " + std::to_string(target) + " (commit log end " +
                         std::to_string(end) + " acknowledged by it)");
  co_return HandOver{true, "broker " + std::to_string(target) + " takes over " + keys_.base +
                              " at commit log offset " + std::to_string(end)};
}

std::string FailoverCoordinator::statusJson() const {
  auto st = status();
  rmq::json::Buffer buf;
  rmq::json::Writer w(buf);
  w.StartObject();
  w.Key("group"); w.String(keys_.base.c_str());
  w.Key("brokerId"); w.Int64(ctx_.config.brokerId);
  w.Key("role"); w.String(ctx_.role.isMaster() ? "master" : "slave");
  w.Key("epoch"); w.Int64(ctx_.role.epoch());
  w.Key("commitLogMaxOffset"); w.Int64(ctx_.store.maxPhyOffset());
  if (st.state) {
    auto text = toJson(*st.state);
    w.Key("state"); w.RawValue(text.c_str(), text.size(), rapidjson::kObjectType);
  }
  w.Key("members"); w.StartArray();
  for (auto& m : st.members) {
    auto text = toJson(m);
    w.RawValue(text.c_str(), text.size(), rapidjson::kObjectType);
  }
  w.EndArray();
  if (ctx_.role.isMaster()) {
    w.Key("replicas"); w.StartArray();
    int64_t end = ctx_.store.maxPhyOffset();
    for (auto& r : repl_.replicas()->replicas()) {
      w.StartObject();
      w.Key("brokerId"); w.Int64(r.id);
      w.Key("ackOffset"); w.Int64(r.ack);
      w.Key("lagBytes"); w.Int64(r.ack < 0 ? end : end - r.ack);
      w.Key("connected"); w.Bool(r.connected);
      w.Key("inSync"); w.Bool(r.inSync);
      w.EndObject();
    }
    w.EndArray();
  }
  w.Key("lastError"); w.String(st.lastError.c_str());
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace rmq::broker
