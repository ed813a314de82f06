// Completion batches: one post per executor, order kept per executor, inline ones in place.
#include <doctest/doctest.h>

#include <asio/io_context.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "store/completion.h"

using namespace rmq::store;

TEST_CASE("completeAll releases a batch with one post per executor, in order, on that executor") {
  asio::io_context a, b;
  std::vector<std::string> ran;
  bool wrongThread = false;
  auto on = [&](asio::io_context& io, std::string name) {
    return Completion(io.get_executor(), [&, name, ex = io.get_executor()](PutStatus st) {
      wrongThread |= !ex.running_in_this_thread();
      ran.push_back(name + (st == PutStatus::PUT_OK ? ":ok" : ":other"));
    });
  };
  std::vector<Completion> batch;
  batch.push_back(on(a, "a1"));
  batch.push_back(on(b, "b1"));
  batch.push_back(Completion([&](PutStatus) { ran.push_back("inline"); }));
  batch.push_back(on(a, "a2"));
  batch.push_back(on(b, "b2"));
  batch.push_back(on(a, "a3"));
  completeAll(batch, PutStatus::PUT_OK);
  CHECK(ran == std::vector<std::string>{"inline"});  // the others wait for their executors
  CHECK(a.poll() == 1);                                // one handler for a1, a2, a3
  CHECK(ran == std::vector<std::string>{"inline", "a1:ok", "a2:ok", "a3:ok"});
  CHECK(b.poll() == 1);
  CHECK(ran == std::vector<std::string>{"inline", "a1:ok", "a2:ok", "a3:ok", "b1:ok", "b2:ok"});
  CHECK_FALSE(wrongThread);
}

TEST_CASE("a Completion keeps its executor's io_context busy until it ran; alone it posts") {
  asio::io_context io;
  PutStatus seen = PutStatus::PUT_OK;
  Completion c(io.get_executor(), [&](PutStatus st) { seen = st; });
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    c(PutStatus::FLUSH_DISK_TIMEOUT);
  });
  io.run();  // returns only after the completion ran: its tracked work kept run() waiting
  t.join();
  CHECK((seen == PutStatus::FLUSH_DISK_TIMEOUT));
}

TEST_CASE("split: the parts ride their lists' batches on the send's executor; the last one answers in place") {
  asio::io_context a;
  std::vector<PutStatus> answers;
  bool wrongThread = false;
  auto ex = a.get_executor();
  auto send = [&] {
    return Completion(ex, [&](PutStatus st) {
      wrongThread |= !ex.running_in_this_thread();
      answers.push_back(st);
    });
  };
  auto slaveWins = [](const std::vector<PutStatus>& st) { return st[1] != PutStatus::PUT_OK ? st[1] : st[0]; };
  std::vector<Completion> flushBatch, ackBatch;
  for (int i = 0; i < 3; ++i) {
    auto parts = send().split(2, slaveWins);
    REQUIRE(parts.size() == 2);
    flushBatch.push_back(std::move(parts[0]));
    ackBatch.push_back(std::move(parts[1]));
  }
  flushBatch.push_back(send());  // a plain SYNC_FLUSH send in the same flush batch
  completeAll(flushBatch, PutStatus::PUT_OK);
  CHECK(a.poll() == 1);  // one post for the whole flush batch
  CHECK(answers == std::vector<PutStatus>{PutStatus::PUT_OK});  // the split ones still wait for the ack
  ackBatch[2](PutStatus::FLUSH_SLAVE_TIMEOUT);  // one part alone (a timeout): posted on its own
  ackBatch.pop_back();
  completeAll(ackBatch, PutStatus::PUT_OK);  // the other two: one post
  CHECK(a.poll() == 2);
  CHECK(answers == std::vector<PutStatus>{PutStatus::PUT_OK, PutStatus::FLUSH_SLAVE_TIMEOUT, PutStatus::PUT_OK,
                                          PutStatus::PUT_OK});
  CHECK_FALSE(wrongThread);
}

TEST_CASE("split without an executor: parts run in place, the last one combines") {
  PutStatus answer = PutStatus::UNKNOWN_ERROR;
  int calls = 0;
  auto parts = Completion([&](PutStatus st) {
                 answer = st;
                 ++calls;
               }).split(2, [](const std::vector<PutStatus>& st) { return st[1] != PutStatus::PUT_OK ? st[1] : st[0]; });
  parts[1](PutStatus::PUT_OK);
  CHECK(calls == 0);
  parts[0](PutStatus::FLUSH_DISK_TIMEOUT);
  CHECK(calls == 1);
  CHECK((answer == PutStatus::FLUSH_DISK_TIMEOUT));
}
