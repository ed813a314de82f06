#include "roles/broker/registration/namesrv_address_fetcher.h"

#include "common/log.h"
#include "net/top_addressing.h"

namespace rmq::broker {

NamesrvAddressFetcher::NamesrvAddressFetcher(std::string url, std::function<void(const std::string&)> onFetched,
                                             std::chrono::milliseconds period)
    : url_(std::move(url)), onFetched_(std::move(onFetched)), period_(period) {}

NamesrvAddressFetcher::~NamesrvAddressFetcher() { stop(); }

void NamesrvAddressFetcher::fetchOnce() {
  auto addrs = net::fetchNamesrvAddr(url_, std::chrono::milliseconds(3000));  // TopAddressing's timeout
  if (!addrs) {
    log::error("{}", addrs.error().message);
    return;
  }
  if (addrs->empty()) {
    log::error("fetch nameserver address is null ({})", url_);
    return;
  }
  onFetched_(*addrs);
}

void NamesrvAddressFetcher::start() {
  log::info("name servers from the address server {}", url_);
  fetchOnce();
  thread_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, period_, [this] { return stop_; })) {
      lock.unlock();
      fetchOnce();
      lock.lock();
    }
  });
}

void NamesrvAddressFetcher::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace rmq::broker
