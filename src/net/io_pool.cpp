#include "net/io_pool.h"

#include <pthread.h>

namespace rmq::net {

IoPool::IoPool(size_t threads) {
  if (threads == 0) threads = 1;
  for (size_t i = 0; i < threads; ++i) contexts_.push_back(std::make_unique<asio::io_context>(1));
}

IoPool::~IoPool() { stop(); }

void IoPool::start() {
  if (started_) return;
  started_ = true;
  for (auto& ctx : contexts_) {
    if (ctx->stopped()) ctx->restart();
    guards_.push_back(asio::make_work_guard(*ctx));
    threads_.emplace_back([c = ctx.get()] {
      pthread_setname_np(pthread_self(), "io");  // network thread (perf / top)
      c->run();
    });
  }
}

void IoPool::stop() {
  if (!started_) return;
  started_ = false;
  guards_.clear();
  for (auto& ctx : contexts_) ctx->stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

asio::io_context& IoPool::next() {
  return *contexts_[next_.fetch_add(1, std::memory_order_relaxed) % contexts_.size()];
}

}  // namespace rmq::net
