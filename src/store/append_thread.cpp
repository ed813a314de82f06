#include "store/append_thread.h"

#include <pthread.h>

#include <exception>
#include <utility>

#include "common/cpu_relax.h"
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

void AppendThread::submit(Job job) {
  std::unique_lock lock(mu_);
  if (!running_ || stopping_) {  // not started (tests, tools) or shut down: run here
    lock.unlock();
    std::vector<Completion> done;
    runJob(job, done);
    completeAll(done, PutStatus::PUT_OK);
    return;
  }
  queue_.push_back(std::move(job));
  pending_.fetch_add(1, std::memory_order_relaxed);
  idle_.store(false, std::memory_order_relaxed);
  const bool wake = sleeping_;
  lock.unlock();
  if (wake) cv_.notify_one();
}

bool AppendThread::runWaiting(AppendTicket& ticket, Work work, std::chrono::nanoseconds spin, bool& submitted) {
  submitted = false;
  if (!idle_.load(std::memory_order_relaxed) || !idleSpin()) return false;
  if (waitSkips_.load(std::memory_order_relaxed) > 0) {  // a recent wait missed: the box is busy
    waitSkips_.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  ticket.state_.store(AppendTicket::kQueued, std::memory_order_relaxed);
  submit(Job{work, {}, &ticket});
  submitted = true;
  const auto until = Clock::now() + spin;
  for (;;) {
    if (ticket.state_.load(std::memory_order_acquire) == AppendTicket::kDone) return true;
    if (Clock::now() >= until) {
      waitSkips_.store(kSkipsAfterMiss, std::memory_order_relaxed);
      return false;
    }
    for (int i = 0; i < 16; ++i) cpuRelax();  // fewer clock reads, and room for the sibling hyperthread
  }
}

void AppendThread::detach(AppendTicket& ticket, Completion done) {
  ticket.done_ = std::move(done);  // published by the exchange below (release)
  int expected = AppendTicket::kQueued;
  if (ticket.state_.compare_exchange_strong(expected, AppendTicket::kDetached, std::memory_order_acq_rel)) return;
  std::exchange(ticket.done_, {})(PutStatus::PUT_OK);  // ran meanwhile: posted from here
}

void AppendThread::runJob(Job& job, std::vector<Completion>& done) {
  try {
    job.work();
  } catch (const std::exception& e) {  // the job records its own outcome; the thread goes on
    log::error("append job threw: {}", e.what());
  }
  if (job.ticket) {
    // After kDone the submitter may go on and its frame (the ticket) be gone: no touching it then.
    if (job.ticket->state_.exchange(AppendTicket::kDone, std::memory_order_acq_rel) == AppendTicket::kDetached)
      done.push_back(std::move(job.ticket->done_));
  } else {
    done.push_back(std::move(job.done));
  }
}

bool AppendThread::waitForJobs(std::vector<Job>& round) {
  idle_.store(true, std::memory_order_relaxed);
  const auto spinUntil = Clock::now() + kSpin;
  while (idleSpin() && pending_.load(std::memory_order_relaxed) == 0 && Clock::now() < spinUntil) {
  }
  std::unique_lock lock(mu_);
  sleeping_ = true;
  cv_.wait(lock, [this] { return !queue_.empty() || stopping_; });
  sleeping_ = false;
  idle_.store(false, std::memory_order_relaxed);
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
    const size_t before = done.size();
    runJob(job, done);
    if (before == 0 && !done.empty()) firstDone = Clock::now();
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
