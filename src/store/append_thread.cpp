#include "store/append_thread.h"

#include <pthread.h>

#include <exception>

#include "common/log.h"

namespace rmq::store {

namespace {
using Clock = std::chrono::steady_clock;
int64_t nanosSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count();
}
}  // namespace

void AppendThread::start() {
  std::lock_guard lock(mu_);
  if (running_) return;
  running_ = true;
  stopping_ = false;
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "appender");
    loop();
  });
}

void AppendThread::stop() {
  {
    std::lock_guard lock(mu_);
    if (!running_) return;
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mu_);
  running_ = false;
}

void AppendThread::submit(Work work, Completion done) {
  std::unique_lock lock(mu_);
  if (!running_ || stopping_) {  // not started (tests, tools) or shut down: run here
    lock.unlock();
    work();
    done(PutStatus::PUT_OK);
    return;
  }
  queue_.push_back(Job{std::move(work), std::move(done)});
  pending_.fetch_add(1, std::memory_order_relaxed);
  const bool wake = sleeping_;
  lock.unlock();
  if (wake) cv_.notify_one();
}

bool AppendThread::waitForJobs(std::vector<Job>& round) {
  const auto spinUntil = Clock::now() + kSpin;
  while (pending_.load(std::memory_order_relaxed) == 0 && Clock::now() < spinUntil) {
  }
  std::unique_lock lock(mu_);
  sleeping_ = true;
  cv_.wait(lock, [this] { return !queue_.empty() || stopping_; });
  sleeping_ = false;
  if (queue_.empty()) return false;  // stopping, nothing left
  round.swap(queue_);
  return true;
}

void AppendThread::runRound(std::vector<Job>& round, std::vector<Completion>& done) {
  Clock::time_point firstDone{};
  for (auto& job : round) {
    pending_.fetch_sub(1, std::memory_order_relaxed);
    // Answers already due go out before a job that may stall (one clock read per job).
    if (!done.empty() && nanosSince(firstDone) >= kCompleteEveryNs) {
      completeAll(done, PutStatus::PUT_OK);
      done.clear();
    }
    try {
      job.work();
    } catch (const std::exception& e) {  // the job records its own outcome; the thread goes on
      log::error("append job threw: {}", e.what());
    }
    if (done.empty()) firstDone = Clock::now();
    done.push_back(std::move(job.done));
  }
  round.clear();
  completeAll(done, PutStatus::PUT_OK);
  done.clear();
}

void AppendThread::loop() {
  std::vector<Job> round;
  std::vector<Completion> done;
  while (waitForJobs(round)) runRound(round, done);
}

}  // namespace rmq::store
