// net::whenAll: tasks run side by side, answers in task order, one deadline for all, a throw is an error.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <doctest/doctest.h>

#include <stdexcept>

#include "net/async_result.h"
#include "net/when_all.h"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

// Runs `body` on a fresh single-threaded io_context until everything it started has finished.
template <class Body>
void runOnIo(Body body) {
  asio::io_context io;
  asio::co_spawn(io, body(), asio::detached);
  io.run();
}

// (No temporaries inside the co_await expression: GCC 12 corrupts them.)
asio::awaitable<Result<int>> waitFor(std::shared_ptr<net::AsyncResult<int>> gate) {
  std::chrono::milliseconds forever = std::chrono::hours(1);
  bool opened = co_await gate->wait(forever);
  if (!opened) co_return makeError(ResponseCode::SYSTEM_ERROR, "gate never opened");
  co_return gate->value();
}

asio::awaitable<Result<int>> openGate(std::shared_ptr<net::AsyncResult<int>> gate, int value) {
  gate->set(value);
  co_return value + 1;
}

asio::awaitable<Result<int>> fail() {
  throw std::runtime_error("broken task");
  co_return 0;
}

asio::awaitable<Result<int>> refuse() { co_return makeError(ResponseCode::TOPIC_NOT_EXIST, "no such topic"); }

}  // namespace

TEST_CASE("whenAll runs the tasks side by side: the first waits for what the second does") {
  std::vector<Result<int>> answers;
  runOnIo([&]() -> asio::awaitable<void> {
    auto gate = std::make_shared<net::AsyncResult<int>>();
    std::vector<asio::awaitable<Result<int>>> tasks;
    tasks.push_back(waitFor(gate));  // one after the other, this would wait out the whole deadline
    tasks.push_back(openGate(gate, 41));
    tasks.push_back(refuse());
    std::chrono::milliseconds deadline = std::chrono::hours(1);
    answers = co_await net::whenAll(std::move(tasks), deadline);
  });
  REQUIRE(answers.size() == 3);
  REQUIRE(answers[0].ok());
  CHECK(answers[0].value() == 41);
  REQUIRE(answers[1].ok());
  CHECK(answers[1].value() == 42);
  REQUIRE_FALSE(answers[2].ok());
  CHECK(answers[2].error().code == ResponseCode::TOPIC_NOT_EXIST);
  CHECK_FALSE(net::firstError(std::vector<Result<int>>{answers[0], answers[1]}).has_value());
  CHECK(net::firstError(answers)->code == ResponseCode::TOPIC_NOT_EXIST);
}

TEST_CASE("whenAll: a task that does not finish by the deadline is CLIENT_TIMEOUT; the others keep their answers") {
  std::vector<Result<int>> answers;
  auto never = std::make_shared<net::AsyncResult<int>>();
  runOnIo([&]() -> asio::awaitable<void> {
    auto gate = std::make_shared<net::AsyncResult<int>>();
    std::vector<asio::awaitable<Result<int>>> tasks;
    tasks.push_back(openGate(gate, 1));
    tasks.push_back(waitFor(never));
    tasks.push_back(fail());
    std::chrono::milliseconds deadline = 100ms;
    answers = co_await net::whenAll(std::move(tasks), deadline);
    never->set(7);  // the late task finishes after the caller moved on: its answer is dropped
  });
  REQUIRE(answers.size() == 3);
  REQUIRE(answers[0].ok());
  CHECK(answers[0].value() == 2);
  REQUIRE_FALSE(answers[1].ok());
  CHECK(answers[1].error().code == ResponseCode::CLIENT_TIMEOUT);
  CHECK(answers[1].error().message.find("100 ms") != std::string::npos);
  REQUIRE_FALSE(answers[2].ok());
  CHECK(answers[2].error().code == ResponseCode::SYSTEM_ERROR);
  CHECK(answers[2].error().message == "broken task");
}

TEST_CASE("whenAll of no task answers at once with nothing") {
  std::optional<size_t> count;
  runOnIo([&]() -> asio::awaitable<void> {
    std::vector<asio::awaitable<Result<int>>> none;
    std::chrono::milliseconds deadline = std::chrono::hours(1);
    auto answers = co_await net::whenAll(std::move(none), deadline);
    count = answers.size();
  });
  CHECK(count == 0u);
}
