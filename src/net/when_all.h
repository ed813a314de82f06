#pragma once
// whenAll: runs coroutines that return Result<T> side by side on the caller's executor and awaits
// them together under one deadline — the fan-out of an admin view over the brokers of a cluster or a
// route ("ask every broker, merge the answers"). The answers come back in the order of the tasks.
// A task still running at the deadline counts as CLIENT_TIMEOUT (it goes on in the background and
// its late answer is dropped), so a node that does not answer costs the caller `timeout` once, not
// once per node; a task that throws counts as SYSTEM_ERROR.
// Threads: the caller's executor must be serialized (a single-threaded io_context, as each IoPool
// context is, or a strand): the tasks and the caller share their state without locks.
// Lifetime: a task may outlive the caller (when it times out), so it must own what it uses — pass
// parameters by value (the async* members of the client library do), never references to locals.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/awaitable.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/response_code.h"
#include "common/result.h"

namespace rmq::net {

namespace when_all_detail {

template <class T>
struct State {
  State(asio::any_io_executor ex, size_t n) : timer(ex), answers(n), pending(n) {}
  asio::steady_timer timer;  // the deadline; cancelled when the last task finishes
  std::vector<std::optional<Result<T>>> answers;
  size_t pending;
};

template <class T>
asio::awaitable<void> runTask(std::shared_ptr<State<T>> state, size_t index, asio::awaitable<Result<T>> task) {
  std::optional<Result<T>> answer;
  std::string thrown;
  try {
    answer.emplace(co_await std::move(task));
  } catch (const std::exception& e) {
    thrown = e.what();
  } catch (...) {
    thrown = "unknown exception";
  }
  if (!answer) answer.emplace(makeError(ResponseCode::SYSTEM_ERROR, thrown));
  state->answers[index] = std::move(answer);
  if (--state->pending == 0) state->timer.cancel();
}

}  // namespace when_all_detail

template <class T>
asio::awaitable<std::vector<Result<T>>> whenAll(std::vector<asio::awaitable<Result<T>>> tasks,
                                                std::chrono::milliseconds timeout) {
  auto ex = co_await asio::this_coro::executor;
  auto state = std::make_shared<when_all_detail::State<T>>(ex, tasks.size());
  state->timer.expires_after(timeout);
  for (size_t i = 0; i < tasks.size(); ++i)
    asio::co_spawn(ex, when_all_detail::runTask<T>(state, i, std::move(tasks[i])), asio::detached);
  if (state->pending > 0)  // a task may have finished inline
    co_await state->timer.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
  std::vector<Result<T>> out;
  out.reserve(state->answers.size());
  for (auto& answer : state->answers) {
    if (answer) {
      out.push_back(std::move(*answer));
    } else {
      out.push_back(makeError(ResponseCode::CLIENT_TIMEOUT,
                              "no answer within " + std::to_string(timeout.count()) + " ms"));
    }
  }
  co_return out;
}

// The first error of a fan-out's answers, if any (for callers that need every answer).
template <class T>
std::optional<Error> firstError(const std::vector<Result<T>>& answers) {
  for (const auto& a : answers)
    if (!a) return a.error();
  return std::nullopt;
}

}  // namespace rmq::net
