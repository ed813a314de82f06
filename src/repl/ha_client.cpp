#include "repl/ha_client.h"

#include <asio/co_spawn.hpp>
#include <asio/connect.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <future>
#include <pthread.h>

#include "common/log.h"
#include "repl/ha_protocol.h"
#include "repl/ha_link.h"

namespace rmq::repl {

namespace {
using asio::use_awaitable;
using asio::experimental::as_tuple;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kConnectTimeout{3000};
constexpr milliseconds kMinBackoff{200};
constexpr milliseconds kMaxBackoff{5000};  // Java's HAClient retries every 5 s
constexpr size_t kReadChunk = 256 * 1024;
}  // namespace

// One connection to the master: reader (frames → appendReplicated), reporter (8-byte offsets),
// watchdog (master silence). All on the HA thread.
class HaClient::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(HaClient& client, asio::ip::tcp::socket socket, std::string master)
      : c_(client), link_(std::move(socket), "master", std::move(master)), reportTimer_(link_.executor()) {}

  // Runs until the connection ends (error, refused stream, silence, close()).
  asio::awaitable<void> run() {
    auto self = shared_from_this();
    if (c_.handshakeId_ >= 0 && !co_await handshake()) co_return;
    asio::co_spawn(link_.executor(), reportLoop(self), asio::detached);
    auto drop = [self](const std::string& why) { self->close(why); };
    asio::co_spawn(link_.executor(), link_.dropWhenSilent(milliseconds(c_.cfg_.haHousekeepingInterval), drop),
                   asio::detached);
    co_await readLoop();
  }

  void close(const std::string& why) {
    if (link_.close(why)) reportTimer_.cancel();
  }

 private:
  // Failover mode: {our brokerId, the epoch we follow} out, {master epoch, its start} back.
  asio::awaitable<bool> handshake() {
    const int64_t follows = c_.followEpoch_.load();
    const EpochHandshake mine{c_.handshakeId_, follows};
    auto failed = co_await link_.writeHandshake(mine);
    if (!failed.empty()) {
      close(failed);
      co_return false;
    }
    auto got = co_await link_.readHandshake();
    if (!got.failure.empty()) {
      close(got.failure);
      co_return false;
    }
    const EpochHandshake master = got.value;
    if (master.first < follows) {
      ++c_.refused_;
      log::warn("HA: master {} is at epoch {}, below the epoch {} this slave follows: stream refused",
                link_.address(), master.first, follows);
      close("master of a lower epoch");
      co_return false;
    }
    c_.masterEpoch_ = master.first;
    log::info("HA: master {} at epoch {} (began at offset {})", link_.address(), master.first, master.second);
    co_return true;
  }

  asio::awaitable<void> readLoop() {
    FrameReader frames;
    while (!link_.closed()) {
      char* space = frames.space(kReadChunk);
      auto readBuf = asio::buffer(space, frames.spaceSize());
      auto got = co_await link_.readSome(readBuf);
      if (!got.failure.empty()) {
        close(got.failure);
        co_return;
      }
      frames.commit(got.n);
      bool appended = false;
      for (;;) {
        auto next = frames.next();
        if (!next) {
          log::error("HA: master {} sent a malformed frame: {}", link_.address(), next.error().message);
          close("malformed frame");
          co_return;
        }
        if (!next->has_value()) break;
        const Frame& f = **next;
        if (!apply(f)) co_return;
        appended |= !f.body.empty();
      }
      if (appended) reportTimer_.cancel();  // report the new end now
    }
  }

  // Appends one frame; false (connection closed) when it does not continue our commit log.
  bool apply(const Frame& f) {
    if (link_.closed()) return false;  // detach() closed us while frames were buffered
    auto& store = c_.store_;
    int64_t end = store.maxPhyOffset();
    if (end != 0 && end != f.phyOffset) {
      ++c_.refused_;
      log::error("HA: master {} pushed offset {} but this slave's commit log ends at {}: stream refused, "
                 "nothing appended; reconnecting to resume from {}",
                 link_.address(), f.phyOffset, end, end);
      close("non-continuous stream");
      return false;
    }
    c_.masterOffsetSeen_ = f.phyOffset + static_cast<int64_t>(f.body.size());
    if (f.body.empty()) return true;  // heartbeat
    if (auto r = store.appendReplicated(f.phyOffset, f.body); !r) {
      ++c_.refused_;
      log::error("HA: appending {} bytes from master {} at offset {} failed: {}", f.body.size(), link_.address(),
                 f.phyOffset, r.error().message);
      close("append failed");
      return false;
    }
    return true;
  }

  // Reports the commit log end at once, after every appended batch and every haSendHeartbeatInterval.
  asio::awaitable<void> reportLoop(std::shared_ptr<Session> self) {
    const auto heartbeat = milliseconds(c_.cfg_.haSendHeartbeatInterval);
    int64_t reported = -1;
    auto lastWrite = Clock::time_point::min();
    while (!link_.closed()) {
      int64_t end = c_.store_.maxPhyOffset();
      auto now = Clock::now();
      if (end != reported || now - lastWrite >= heartbeat) {
        const auto report = encodeReport(end);
        const auto reportBuf = asio::buffer(report);
        auto [ec, n] = co_await asio::async_write(link_.socket(), reportBuf, as_tuple(use_awaitable));
        if (ec) {
          close("report failed: " + ec.message());
          co_return;
        }
        reported = end;
        lastWrite = Clock::now();
        continue;
      }
      reportTimer_.expires_at(lastWrite + heartbeat);
      co_await reportTimer_.async_wait(as_tuple(use_awaitable));
    }
  }

  HaClient& c_;
  HaLink link_;
  asio::steady_timer reportTimer_;
};

HaClient::HaClient(store::MessageStore& store, const store::StoreConfig& cfg)
    : store_(store), cfg_(cfg), idle_(io_) {
  if (cfg_.haMasterAddress.size() >= 6) masterAddress_ = cfg_.haMasterAddress;  // Java: length >= 6
}

HaClient::~HaClient() { stop(); }

void HaClient::start() {
  if (running_.exchange(true)) return;
  asio::co_spawn(io_, run(), asio::detached);
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "ha-slave");  // perf / top tell the HA thread apart
    io_.run();
  });
}

void HaClient::stop() {
  if (!running_.exchange(false)) return;
  auto done = std::make_shared<std::promise<void>>();
  asio::post(io_, [this, done] {
    idle_.cancel();
    if (session_) session_->close("slave shutting down");
    done->set_value();
  });
  done->get_future().wait_for(std::chrono::seconds(5));
  io_.stop();
  if (thread_.joinable()) thread_.join();
  connected_ = false;
}

void HaClient::setMasterAddress(const std::string& haAddress) {
  {
    std::lock_guard lock(mu_);
    if (haAddress == masterAddress_) return;
    log::info("HA: master address {} -> {}", masterAddress_.empty() ? "(none)" : masterAddress_,
              haAddress.empty() ? "(none)" : haAddress);
    masterAddress_ = haAddress;
    ++addressVersion_;
  }
  asio::post(io_, [this] {
    idle_.cancel();
    if (session_) session_->close("master address changed");
  });
}

void HaClient::enableEpochHandshake(int64_t brokerId) { handshakeId_ = brokerId; }

void HaClient::follow(const std::string& haAddress, int64_t epoch) {
  std::lock_guard lock(mu_);
  if (haAddress == masterAddress_ && epoch == followEpoch_.load()) return;
  log::info("HA: follow {} at epoch {}", haAddress.empty() ? "(none)" : haAddress, epoch);
  followEpoch_ = epoch;
  masterAddress_ = haAddress;
  ++addressVersion_;
  asio::post(io_, [this] {
    idle_.cancel();
    if (session_) session_->close("master changed");
  });
}

void HaClient::detach() {
  {
    std::lock_guard lock(mu_);
    masterAddress_.clear();
    ++addressVersion_;
  }
  if (!running_) return;
  auto done = std::make_shared<std::promise<void>>();
  asio::post(io_, [this, done] {
    idle_.cancel();
    if (session_) session_->close("this broker becomes master");
    done->set_value();
  });
  done->get_future().wait_for(std::chrono::seconds(5));
}

std::string HaClient::masterAddress() const {
  std::lock_guard lock(mu_);
  return masterAddress_;
}

asio::awaitable<void> HaClient::sleep(milliseconds d) {
  idle_.expires_after(d);
  co_await idle_.async_wait(as_tuple(use_awaitable));
}

asio::awaitable<void> HaClient::run() {
  auto backoff = kMinBackoff;
  while (running_) {
    std::string addr = masterAddress();
    auto colon = addr.rfind(':');
    if (addr.empty() || colon == std::string::npos) {
      if (!addr.empty()) log::warn("HA: master address '{}' is not host:port", addr);
      const milliseconds waitForAddress(1000);
      co_await sleep(waitForAddress);
      continue;
    }
    asio::ip::tcp::resolver resolver(io_);
    const std::string host = addr.substr(0, colon), port = addr.substr(colon + 1);
    auto [rec, endpoints] = co_await resolver.async_resolve(host, port, as_tuple(use_awaitable));
    auto socket = std::make_shared<asio::ip::tcp::socket>(io_);
    asio::error_code ec = rec;
    if (!ec) {
      asio::steady_timer guard(io_);
      guard.expires_after(kConnectTimeout);
      guard.async_wait([socket](asio::error_code e) {
        if (!e) socket->close();
      });
      auto [cec, ep] = co_await asio::async_connect(*socket, endpoints, as_tuple(use_awaitable));
      guard.cancel();
      ec = cec;
    }
    if (!running_) co_return;
    if (ec) {
      log::warn("HA: cannot connect to master {}: {} (retry in {} ms)", addr, ec.message(), backoff.count());
      co_await sleep(backoff);
      backoff = std::min(backoff * 2, kMaxBackoff);
      continue;
    }
    asio::error_code ignored;
    socket->set_option(asio::ip::tcp::no_delay(true), ignored);
    log::info("HA: connected to master {}, slave commit log ends at {}", addr, store_.maxPhyOffset());
    auto began = Clock::now();
    session_ = std::make_shared<Session>(*this, std::move(*socket), addr);
    connected_ = true;
    co_await session_->run();
    connected_ = false;
    session_.reset();
    if (!running_) co_return;
    // A connection that lived a while was healthy: retry fast. One that failed at once (master
    // refusing us, non-continuous stream) backs off.
    backoff = Clock::now() - began > std::chrono::seconds(10) ? kMinBackoff : std::min(backoff * 2, kMaxBackoff);
    co_await sleep(backoff);
  }
}

}  // namespace rmq::repl
