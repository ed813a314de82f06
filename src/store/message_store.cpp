// MessageStore lifecycle, waiters and the replication seam (reads: store_reads.cpp, writes:
// store_writes.cpp, maintenance: store_maintenance.cpp).
#include "store/message_store.h"
#include "store/live_store_keys.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "common/log.h"
#include "common/response_code.h"
#include "store/store_engine.h"

namespace rmq::store {

namespace fs = std::filesystem;

StoreEngine::StoreEngine(StoreConfig config, HostAddress host)
    : cfg(std::move(config)), storeHost(host), checkpoint(cfg.checkpointPath()),
      allocator(cfg.warmMapedFileEnable), commitLog(cfg, storeHost, allocator),
      cqs(cfg.consumeQueueDir(), cfg.cqFileSize()), index(cfg), dispatcher(cfg, commitLog, cqs, index, checkpoint),
      flusher(cfg, commitLog, checkpoint) {
  ramBytes = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  slaveRole = cfg.isSlave();
  syncMasterRole = cfg.isSyncMaster();
  applyRoleToThreads();
}

void StoreEngine::applyRoleToThreads() {
  const bool spin = !slaveRole.load() && !syncMasterRole.load();
  dispatcher.setIdleSpin(spin);
  appender.setIdleSpin(spin);
}

int64_t StoreEngine::hotDataBytes() const { return ramBytes / 100 * liveRead(cfg.accessMessageInMemoryMaxRatio); }

MessageStore::MessageStore(StoreConfig config, HostAddress storeHost)
    : engine_(std::make_unique<StoreEngine>(std::move(config), storeHost)) {}

MessageStore::~MessageStore() { shutdown(); }

const StoreConfig& MessageStore::config() const { return engine_->cfg; }

void MessageStore::applyRuntimeConfig(const StoreConfig& updated) {
  auto& e = *engine_;
  applyLiveKeys(e.cfg, updated);
  e.setDeleteWhen(updated.deleteWhen);
}

const HostAddress& MessageStore::storeHost() const { return engine_->storeHost; }
void MessageStore::setArrivalListener(ArrivalListener l) { engine_->dispatcher.setListener(std::move(l)); }
void MessageStore::setAppendListener(std::function<void()> l) { engine_->appendListener = std::move(l); }

Result<void> MessageStore::open() {
  auto& e = *engine_;
  std::lock_guard guard(e.lifecycleMu);
  if (e.opened) return makeError(ResponseCode::SYSTEM_ERROR, "store already open");
  std::error_code ec;
  // The checkpoint and abort files may be configured outside the root (storeCheckpoint, abortFile).
  for (const auto& dir : {e.cfg.rootDir(), fs::path(e.cfg.checkpointPath()).parent_path().string(),
                          fs::path(e.cfg.abortPath()).parent_path().string()}) {
    if (dir.empty()) continue;
    fs::create_directories(dir, ec);
    if (ec) return makeError(ResponseCode::SYSTEM_ERROR, "cannot create store directory " + dir + ": " + ec.message());
  }
  if (auto r = e.lock.acquire(e.cfg.lockPath()); !r) return r;
  auto fail = [&](Error err) -> Result<void> {
    e.lock.release();
    log::error("store open failed: {}", err.message);
    return err;
  };
  bool abnormal = fs::exists(e.cfg.abortPath());
  if (auto r = e.dispatcher.init(); !r) return fail(r.error());
  if (auto r = e.commitLog.load(); !r) return fail(r.error());
  if (auto r = e.cqs.load(); !r) return fail(r.error());
  if (auto r = e.checkpoint.load(); !r) return fail(r.error());
  if (auto r = e.index.load(!abnormal, e.checkpoint.indexMsgTimestamp()); !r) return fail(r.error());
  if (auto r = e.recover(abnormal); !r) return fail(r.error());
  e.opened = true;
  return {};
}

void MessageStore::start() {
  auto& e = *engine_;
  std::lock_guard guard(e.lifecycleMu);
  if (!e.opened || e.running) return;
  std::ofstream(e.cfg.abortPath()).flush();  // present while running: its survival marks a crash
  e.allocator.start();
  e.flusher.start();
  e.dispatcher.start(e.dispatchedEnd);
  e.checkDisk();
  e.startMaintenance();
  e.appender.start();
  e.running = true;
  log::info("store started at {} (commit log [{}, {}), {})", e.cfg.rootDir(), e.commitLog.minOffset(),
            e.commitLog.maxOffset(), e.cfg.flushDiskType);
}

void MessageStore::shutdown() {
  auto& e = *engine_;
  std::lock_guard guard(e.lifecycleMu);
  if (!e.opened || e.shutDown) return;
  e.shutDown = true;
  if (e.running) {
    e.appender.stop();  // runs the appends still queued (their senders are answered)
    e.stopMaintenance();
    e.dispatcher.stop();
    e.dispatcher.dispatchRange(e.dispatcher.position(), e.commitLog.maxOffset(), true);  // catch up
    e.flusher.stop();
    e.allocator.stop();
    if (auto gc = e.flusher.groupCommitStats(); gc.flushes > 0)
      log::info("group commit: {} flushes, {:.1f} waiters/flush, {:.0f} us msync/flush, {} overlapped another",
                gc.flushes, double(gc.waiters) / gc.flushes, gc.flushNanos / 1e3 / gc.flushes, gc.overlapped);
  }
  e.commitLog.flush();
  e.checkpoint.setPhysicMsgTimestamp(e.commitLog.lastStoreTimestamp());
  e.flushConsumeQueues();
  e.index.flushAll();
  if (auto r = e.checkpoint.flush(); !r) log::error("{}", r.error().message);
  std::error_code ec;
  if (e.running && e.dispatcher.position() >= e.commitLog.maxOffset()) fs::remove(e.cfg.abortPath(), ec);
  e.running = false;
  e.lock.release();
  log::info("store shut down cleanly (commit log end {})", e.commitLog.maxOffset());
}

AppendThread& MessageStore::appender() { return engine_->appender; }

bool MessageStore::needsDurabilityWait() const { return engine_->cfg.syncFlush(); }

void MessageStore::addWaiter(WaitKind kind, int64_t endOffset, Completion done) {
  auto& e = *engine_;
  if (!e.running || e.shutDown) return done(PutStatus::SERVICE_NOT_AVAILABLE);
  if (kind == WaitKind::Flush) {
    if (!e.cfg.syncFlush()) return done(PutStatus::PUT_OK);
    return e.flusher.waitFlushed(endOffset, std::move(done));
  }
  if (!e.inSyncSetAcks &&
      (!e.slaveAvailable || endOffset - e.flusher.slaveAckedOffset() >= liveRead(e.cfg.haSlaveFallbehindMax)))
    return done(PutStatus::SLAVE_NOT_AVAILABLE);
  e.flusher.waitSlaveAck(endOffset, std::move(done));
}

bool MessageStore::needsStoredWait() const { return engine_->cfg.syncFlush() || engine_->syncMasterRole; }

void MessageStore::addStoredWaiter(int64_t endOffset, Completion done) {
  const auto& cfg = engine_->cfg;
  if (!engine_->syncMasterRole) return addWaiter(WaitKind::Flush, endOffset, std::move(done));
  if (!cfg.syncFlush()) return addWaiter(WaitKind::SlaveAck, endOffset, std::move(done));
  // Both: one part in each waiter list, on the send's executor, so each is released in its
  // list's batch (one post per network thread) and the last part answers the send in place.
  auto parts = std::move(done).split(2, [](const std::vector<PutStatus>& st) {
    return st[1] != PutStatus::PUT_OK ? st[1] : st[0];  // the replication status wins
  });
  addWaiter(WaitKind::Flush, endOffset, std::move(parts[0]));
  addWaiter(WaitKind::SlaveAck, endOffset, std::move(parts[1]));
}

void MessageStore::notifySlaveAck(int64_t ackedOffset) { engine_->flusher.notifySlaveAck(ackedOffset); }
int64_t MessageStore::slaveAckedOffset() const { return engine_->flusher.slaveAckedOffset(); }
void MessageStore::setSlaveAvailable(bool available) { engine_->slaveAvailable = available; }

void MessageStore::rebuildQueueOffsets() {
  auto& e = *engine_;
  e.rebuildQueueOffsets(e.dispatcher.position(), e.commitLog.maxOffset());
}
void MessageStore::setRole(std::string_view brokerRole) {
  engine_->syncMasterRole = brokerRole == "SYNC_MASTER";
  engine_->slaveRole = brokerRole == "SLAVE";
  engine_->applyRoleToThreads();
}
bool MessageStore::isSlaveRole() const { return engine_->slaveRole; }
void MessageStore::setInSyncSetAcks(bool on) { engine_->inSyncSetAcks = on; }
void MessageStore::resetSlaveAck(int64_t confirmedOffset) { engine_->flusher.resetSlaveAck(confirmedOffset); }

int64_t MessageStore::minPhyOffset() const { return engine_->commitLog.minOffset(); }
int64_t MessageStore::maxPhyOffset() const { return engine_->commitLog.maxOffset(); }
int64_t MessageStore::flushedPhyOffset() const { return engine_->commitLog.flushedOffset(); }
int64_t MessageStore::dispatchedPhyOffset() const { return engine_->dispatcher.position(); }
GroupCommitStats MessageStore::groupCommitStats() const { return engine_->flusher.groupCommitStats(); }
GroupCommitHistograms MessageStore::groupCommitHistograms() const { return engine_->flusher.groupCommitHistograms(); }

ByteView MessageStore::readCommitLog(int64_t offset, size_t maxBytes) const {
  return engine_->commitLog.readRaw(offset, maxBytes);
}

Result<void> MessageStore::appendReplicated(int64_t offset, std::string_view bytes) {
  auto r = engine_->commitLog.appendRaw(offset, bytes);
  // The flusher is not woken: a slave flushes on its interval like a master (and like Java's
  // appendToCommitLog). Woken per batch it ran an msync for every 16 KiB received, a fifth of
  // the slave's CPU under SYNC_MASTER load, whose page write-protection (TLB shootdown IPIs) and
  // re-faults hit the HA thread's next appends (src/repl/README.md, "Where the time goes").
  if (r) engine_->dispatcher.wake();
  return r;
}

std::map<std::string, std::set<int>> MessageStore::queues() const { return engine_->cqs.queues(); }

void MessageStore::deleteTopics(const std::set<std::string>& topics) {
  for (auto& t : topics) {
    engine_->cqs.erase(t);
    engine_->commitLog.removeTopic(t);
  }
}

void MessageStore::runRetention(bool force) { engine_->retention(force); }
void MessageStore::setDiskUsageProbe(std::function<double()> probe) {
  engine_->setDiskProbe(std::move(probe));
  engine_->checkDisk();
}
bool MessageStore::isWriteable() const { return engine_->writeable(); }

}  // namespace rmq::store
