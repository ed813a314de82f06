#pragma once
// runOn(io, work): runs the coroutine `work` on `io` and blocks the calling thread (never io's own)
// until it finished, returning its value. For tools whose main thread drives coroutines living on
// an IoPool (connect a channel, close it). Result<T> has no default constructor, which asio's
// use_future needs, hence a promise.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/awaitable.hpp>
#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <exception>
#include <future>
#include <memory>

namespace rmq::bench {

template <class T>
T runOn(asio::io_context& io, asio::awaitable<T> work) {
  auto promise = std::make_shared<std::promise<T>>();
  auto future = promise->get_future();
  auto body = [w = std::make_shared<asio::awaitable<T>>(std::move(work)), promise]() -> asio::awaitable<void> {
    T value = co_await std::move(*w);
    promise->set_value(std::move(value));
  };
  asio::co_spawn(io, std::move(body), [promise](std::exception_ptr e) {
    if (e) promise->set_exception(e);
  });
  return future.get();
}

}  // namespace rmq::bench
