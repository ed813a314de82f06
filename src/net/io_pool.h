#pragma once
// IoPool: N network threads, one io_context each. Connections are spread round-robin and stay on
// their io_context for life, so a connection's handlers never race each other. Nothing that can
// block (disk flush, fsync) may run on these threads.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/io_context.hpp>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace rmq::net {

class IoPool {
 public:
  explicit IoPool(size_t threads);
  ~IoPool();
  IoPool(const IoPool&) = delete;
  IoPool& operator=(const IoPool&) = delete;

  void start();          // starts the threads (idempotent)
  void stop();           // stops the io_contexts and joins the threads
  asio::io_context& next();  // round-robin pick for a new connection or task
  asio::io_context& at(size_t i) { return *contexts_[i]; }
  size_t size() const { return contexts_.size(); }
  bool running() const { return started_; }

 private:
  std::vector<std::unique_ptr<asio::io_context>> contexts_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards_;
  std::vector<std::thread> threads_;
  std::atomic<size_t> next_{0};
  bool started_ = false;
};

}  // namespace rmq::net
