#pragma once
// NamesrvAddressFetcher: Java's BrokerOuterAPI.fetchNameServerAddr for a broker without namesrvAddr
// and with fetchNamesrvAddrByAddressServer: GET http://<rmqAddressServerDomain>[:8080]/rocketmq/
// <rmqAddressServerSubGroup> (net/top_addressing.h) once at start (before the first registration:
// Java waits 10 s, we register at once) and every 2 minutes after; a changed list goes to the
// registrar, which registers with it at once. A failed fetch keeps the list it had.
// Threads: start() fetches on the caller's thread (the controller's), then a thread of its own
// (the fetch blocks, bounded by 3 s as Java's); stop() joins it.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace rmq::broker {

class NamesrvAddressFetcher {
 public:
  // `onFetched` gets every non-empty list the address server answers (it ignores unchanged ones).
  NamesrvAddressFetcher(std::string url, std::function<void(const std::string&)> onFetched,
                        std::chrono::milliseconds period = std::chrono::minutes(2));
  ~NamesrvAddressFetcher();
  void start();
  void stop();
  const std::string& url() const { return url_; }

 private:
  void fetchOnce();
  std::string url_;
  std::function<void(const std::string&)> onFetched_;
  std::chrono::milliseconds period_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // mu_
  std::thread thread_;
};

}  // namespace rmq::broker
