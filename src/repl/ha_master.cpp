#include "repl/ha_master.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <algorithm>
#include <atomic>
#include <future>
#include <optional>
#include <pthread.h>
#include <string>

#include "common/fault_point.h"
#include "common/log.h"
#include "net/tcp_listener.h"
#include "repl/ha_protocol.h"
#include "repl/ha_link.h"

namespace rmq::repl {

namespace {
using asio::use_awaitable;
using asio::experimental::as_tuple;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string endpointText(const asio::ip::tcp::socket& s) {
  asio::error_code ec;
  auto ep = s.remote_endpoint(ec);
  return ec ? std::string("?") : ep.address().to_string() + ":" + std::to_string(ep.port());
}
}  // namespace

class HaMaster::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(HaMaster& master, asio::ip::tcp::socket socket)
      : m_(master), link_(std::move(socket), "slave", endpointText(socket)), wakeTimer_(link_.executor()) {}

  void start() {
    auto self = shared_from_this();
    asio::co_spawn(link_.executor(), readLoop(self), asio::detached);
    asio::co_spawn(link_.executor(), writeLoop(self), asio::detached);
    auto drop = [self](const std::string& why) { self->close(why); };
    asio::co_spawn(link_.executor(), link_.dropWhenSilent(milliseconds(m_.cfg_.haHousekeepingInterval), drop),
                   asio::detached);
  }

  // HA thread only.
  void close(const std::string& why) {
    if (!link_.close(why)) return;
    wakeTimer_.cancel();
    if (token_ != 0) m_.replicas_->onDisconnected(slaveId_, token_);
    if (parked_.exchange(false)) m_.idleWriters_.fetch_sub(1);
    m_.removeConnection(this);
  }

  // Any thread: wakes the writer if it is parked waiting for data.
  void wakeIfParked() {
    if (!parked_.exchange(false)) return;
    m_.idleWriters_.fetch_sub(1);
    asio::post(link_.executor(), [self = shared_from_this()] { self->wakeTimer_.cancel(); });
  }

  SlaveInfo info() const {
    return SlaveInfo{link_.address(), requestOffset_.load(), ackOffset_.load(), nextTransfer_.load()};
  }
  int64_t ackOffset() const { return ackOffset_.load(); }

 private:
  // Failover mode: the slave's {brokerId, epoch} first, our {epoch, epochStart} back (before the
  // writer may send anything: it waits for the first report, which follows our answer).
  asio::awaitable<bool> handshake() {
    auto got = co_await link_.readHandshake();
    if (!got.failure.empty()) {
      close(got.failure);
      co_return false;
    }
    const EpochHandshake slave = got.value;
    int64_t epoch = m_.replicas_->epoch();
    if (slave.second > epoch) {
      log::warn("HA: slave {} (brokerId {}) follows epoch {}, above this master's {}: this master is stale",
                link_.address(), slave.first, slave.second, epoch);
      m_.replicas_->noteEpochHeard(slave.second);
      close("stale master");
      co_return false;
    }
    slaveId_ = slave.first;
    const EpochHandshake mine{epoch, m_.replicas_->epochStart()};
    auto failed = co_await link_.writeHandshake(mine);
    if (!failed.empty()) {
      close(failed);
      co_return false;
    }
    token_ = m_.replicas_->onConnected(slaveId_);
    log::info("HA: slave {} is brokerId {} (epoch {})", link_.address(), slaveId_, epoch);
    co_return true;
  }

  asio::awaitable<void> readLoop(std::shared_ptr<Connection> self) {
    std::array<char, 4096> buf;
    ReportReader reports;
    if (m_.replicas_ && !co_await handshake()) co_return;
    for (;;) {
      auto readBuf = asio::buffer(buf);
      auto got = co_await link_.readSome(readBuf);
      if (!got.failure.empty()) {
        close(got.failure);
        co_return;
      }
      auto report = reports.feed(std::string_view(buf.data(), got.n));
      if (!report) continue;
      if (auto refused = refusedReport(*report)) {
        log::warn("HA: slave {} {}", link_.address(), *refused);
        close(*refused);
        co_return;
      }
      ackOffset_ = *report;
      if (requestOffset_ < 0) {
        requestOffset_ = *report;
        log::info("HA: slave {} requests offset {}", link_.address(), *report);
        wakeTimer_.cancel();  // the writer waits for this first report
      }
      if (m_.replicas_) m_.replicas_->onReport(slaveId_, *report);
      else m_.store_.notifySlaveAck(*report);
    }
  }

  // Why a report is no offset a slave of this master can have (nullopt: it is one). Java's
  // ReadSocketService closes the connection for a report beyond the commit log end, but checks
  // neither the first report nor the sign: its writer then streams from a negative or future
  // offset (heartbeats its slave refuses) and notifyTransferSome takes a first report beyond the
  // end as the ack of every SYNC_MASTER send up to there. Both are refused here, first or not: the
  // connection closes (the slave reconnects and reports again), nothing is acked.
  std::optional<std::string> refusedReport(int64_t report) const {
    if (report < 0) return "reported the negative offset " + std::to_string(report);
    int64_t end = m_.store_.maxPhyOffset();
    if (report > end)
      return "reported offset " + std::to_string(report) + " beyond the master's commit log end " + std::to_string(end);
    return std::nullopt;
  }

  // Where the stream starts (Java's WriteSocketService): a report of 0 means the beginning of the
  // master's last commit log file, anything else that offset.
  int64_t startOffset() const {
    int64_t requested = requestOffset_.load();
    if (requested != 0) return requested;
    int64_t max = m_.store_.maxPhyOffset();
    return std::max<int64_t>(0, max - max % m_.cfg_.mappedFileSizeCommitLog);
  }

  asio::awaitable<bool> send(int64_t offset, std::string_view body) {
    if (fault::armed(fault::Point::HaDrop)) {  // test/drill fault point: the link to the slave breaks
      close("fault point ha_drop");
      co_return false;
    }
    if (fault::armed(fault::Point::HaDelay)) {  // test/drill fault point: a slow link
      wakeTimer_.expires_after(milliseconds(fault::arg(fault::Point::HaDelay, 1000)));
      co_await wakeTimer_.async_wait(as_tuple(use_awaitable));
      if (link_.closed()) co_return false;
    }
    auto header = encodeFrameHeader(offset, static_cast<int32_t>(body.size()));
    const std::array<asio::const_buffer, 2> bufs{asio::buffer(header), asio::buffer(body.data(), body.size())};
    auto [ec, n] = co_await asio::async_write(link_.socket(), bufs, as_tuple(use_awaitable));
    if (ec) {
      close("write failed: " + ec.message());
      co_return false;
    }
    lastWrite_ = Clock::now();
    co_return true;
  }

  // Up to `batch` bytes from `next`, never past the store's published end (maxPhyOffset), which
  // is what refusedReport checks the slave's reports against. An append moves its file's write
  // position a moment before it publishes the new end; bytes read in between (an appender
  // descheduled there) would reach the slave, whose report would then be "beyond the master's
  // end": the connection closed and SYNC_MASTER sends failed SLAVE_NOT_AVAILABLE until the slave
  // reconnected (seen in issue 23's benchmark; Java reads and checks against one position).
  store::ByteView readPublished(int64_t next, size_t batch) const {
    const int64_t end = m_.store_.maxPhyOffset();
    if (next >= end) return {};
    return m_.store_.readCommitLog(next, std::min(batch, static_cast<size_t>(end - next)));
  }

  // Parks until onAppended() or `timeout`; returns at once when data arrived meanwhile.
  asio::awaitable<void> park(int64_t next, Clock::duration timeout) {
    parked_ = true;
    m_.idleWriters_.fetch_add(1);
    // Dekker pair with onAppended(): our count store before our read of the commit log end, its
    // publication of the end before its read of the count; one of the two sees the other.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (readPublished(next, 1) || link_.closed()) {  // appended between our read and parking
      if (parked_.exchange(false)) m_.idleWriters_.fetch_sub(1);
      co_return;
    }
    wakeTimer_.expires_after(timeout);
    co_await wakeTimer_.async_wait(as_tuple(use_awaitable));
    if (parked_.exchange(false)) m_.idleWriters_.fetch_sub(1);
  }

  asio::awaitable<void> writeLoop(std::shared_ptr<Connection> self) {
    while (requestOffset_ < 0) {  // nothing is sent before the slave's first report
      if (link_.closed()) co_return;
      wakeTimer_.expires_after(milliseconds(1000));
      co_await wakeTimer_.async_wait(as_tuple(use_awaitable));
    }
    int64_t next = startOffset();
    nextTransfer_ = next;
    log::info("HA: master transfers to slave {} from offset {} (slave requested {})", link_.address(), next,
              requestOffset_.load());
    if (next < m_.store_.minPhyOffset())
      log::warn("HA: slave {} starts at {}, before the master's oldest commit log offset {}: it cannot catch up",
                link_.address(), next, m_.store_.minPhyOffset());
    const auto heartbeat = milliseconds(m_.cfg_.haSendHeartbeatInterval);
    const auto batch = static_cast<size_t>(m_.cfg_.haTransferBatchSize);
    lastWrite_ = Clock::now();
    while (!link_.closed()) {
      auto view = readPublished(next, batch);  // never crosses a file; keeps its file alive
      if (view) {
        if (!co_await send(next, view.bytes)) co_return;
        next += static_cast<int64_t>(view.bytes.size());
        nextTransfer_ = next;
        continue;
      }
      auto idle = Clock::now() - lastWrite_;
      if (idle >= heartbeat) {
        const std::string_view heartbeatBody;
        if (!co_await send(next, heartbeatBody)) co_return;
        continue;
      }
      const auto timeout = heartbeat - idle;
      co_await park(next, timeout);
    }
  }

  HaMaster& m_;
  HaLink link_;
  asio::steady_timer wakeTimer_;
  Clock::time_point lastWrite_;
  std::atomic<bool> parked_{false};
  std::atomic<int64_t> requestOffset_{-1};
  std::atomic<int64_t> ackOffset_{-1};
  std::atomic<int64_t> nextTransfer_{-1};
  int64_t slaveId_ = -1;  // failover mode: from the handshake
  uint64_t token_ = 0;    // failover mode: ReplicaSet connection token (0 = not registered)
};

HaMaster::HaMaster(store::MessageStore& store, const store::StoreConfig& cfg, ReplicaSet* replicas)
    : store_(store), cfg_(cfg), replicas_(replicas) {}

void HaMaster::setAccepting(bool accepting) {
  if (accepting_.exchange(accepting) == accepting || accepting || !running_) return;
  asio::post(io_, [this] {
    std::vector<std::shared_ptr<Connection>> all;
    {
      std::lock_guard lock(mu_);
      all = connections_;
    }
    for (auto& c : all) c->close("this broker is no longer the master");
  });
}

HaMaster::~HaMaster() { stop(); }

Result<void> HaMaster::start(const std::string& host, uint16_t port) {
  auto listening = net::listenTcp(io_, host, port, "HA");
  if (!listening) return listening.error();
  acceptor_ = std::move(*listening);
  port_ = acceptor_->local_endpoint().port();
  store_.setAppendListener([this] { onAppended(); });
  running_ = true;
  asio::co_spawn(io_, acceptLoop(), asio::detached);
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "ha-master");  // perf / top tell the HA thread apart
    io_.run();
  });
  log::info("HA: master listening on {}:{}", host, port_);
  return {};
}

asio::awaitable<void> HaMaster::acceptLoop() {
  for (;;) {
    asio::ip::tcp::socket socket(io_);
    auto [ec] = co_await acceptor_->async_accept(socket, as_tuple(use_awaitable));
    if (!running_) co_return;
    if (ec) {
      if (ec == asio::error::operation_aborted) co_return;
      co_await net::pauseAfterAcceptError(acceptor_, ec, "HA");
      continue;
    }
    if (!accepting_) {
      socket.close(ec);  // failover: not the master now
      continue;
    }
    socket.set_option(asio::ip::tcp::no_delay(true), ec);
    auto conn = std::make_shared<Connection>(*this, std::move(socket));
    log::info("HA: slave {} connected", conn->info().address);
    {
      std::lock_guard lock(mu_);
      connections_.push_back(conn);
    }
    store_.setSlaveAvailable(true);
    conn->start();
  }
}

void HaMaster::removeConnection(const Connection* c) {
  std::lock_guard lock(mu_);
  std::erase_if(connections_, [c](const auto& p) { return p.get() == c; });
  store_.setSlaveAvailable(!connections_.empty());
}

void HaMaster::onAppended() {
  // The appender published the new end with a release store; without a full fence x86 may read
  // idleWriters_ before that store is visible while a writer reads the old end and parks: a lost
  // wake-up costing haSendHeartbeatInterval (a SYNC_MASTER send then times out). See park().
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (idleWriters_.load(std::memory_order_relaxed) == 0) return;  // every writer is busy shipping
  std::lock_guard lock(mu_);
  for (auto& c : connections_) c->wakeIfParked();
}

size_t HaMaster::connectionCount() const {
  std::lock_guard lock(mu_);
  return connections_.size();
}

std::vector<SlaveInfo> HaMaster::slaves() const {
  std::lock_guard lock(mu_);
  std::vector<SlaveInfo> out;
  for (auto& c : connections_) out.push_back(c->info());
  return out;
}

int64_t HaMaster::slaveFallBehind() const { return store_.maxPhyOffset() - store_.slaveAckedOffset(); }

void HaMaster::stop() {
  if (!running_.exchange(false)) return;
  auto done = std::make_shared<std::promise<void>>();
  asio::post(io_, [this, done] {
    asio::error_code ec;
    acceptor_->close(ec);
    std::vector<std::shared_ptr<Connection>> all;
    {
      std::lock_guard lock(mu_);
      all = connections_;
    }
    for (auto& c : all) c->close("master shutting down");
    done->set_value();
  });
  done->get_future().wait_for(std::chrono::seconds(5));
  io_.stop();
  if (thread_.joinable()) thread_.join();
  store_.setSlaveAvailable(false);
}

}  // namespace rmq::repl
