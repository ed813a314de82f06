#pragma once
// Runs coroutines of the etcd client to completion on a test's io_context (bounded: a hung call
// fails the test instead of hanging it). The context stops when the call ends, so coroutines of
// the test's own (a fake server) may stay parked on it between calls.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <stdexcept>

namespace rmq::coord::test {

template <class T>
asio::awaitable<void> storeInto(asio::awaitable<T> task, std::optional<T>* out) {
  out->emplace(co_await std::move(task));
}

template <class T>
T runOn(asio::io_context& io, asio::awaitable<T> task, std::chrono::seconds limit = std::chrono::seconds(30)) {
  std::optional<T> out;
  asio::co_spawn(io, storeInto(std::move(task), &out), [&io](std::exception_ptr e) {
    io.stop();
    if (e) std::rethrow_exception(e);
  });
  io.restart();
  io.run_for(limit);
  if (!out) throw std::runtime_error("etcd client call did not finish within the test's limit");
  return std::move(*out);
}

}  // namespace rmq::coord::test
