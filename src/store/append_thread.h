#pragma once
// AppendThread: the store-owned thread that runs the broker's appends, so that an append stalled
// in the commit log (a page fault on a slow disk, fault point append_stall) holds this thread, not
// the network thread that read the send: the other connections of that network thread go on
// being served while the send's coroutine co_awaits its append (issue 25).
// Jobs run one at a time in submission order. The thread drains its queue in rounds; completions
// of a round are posted once per executor (completeAll), and before a job only when the round's
// finished jobs have waited past kCompleteEveryNs (a stalled job does not hold the answers of
// the jobs before it). Idle, it spins briefly (kSpin) before sleeping on a condition variable: a
// steady stream of sends finds it awake, and a submit wakes it (one futex call) only when asleep.
// runWaiting() spares the submitter's thread the second hand-off, the post of the completion
// back: while the thread is idle, the submitter waits for its job in place for a few tens of
// microseconds (an append takes ~5-10) and goes on without suspending; past that (the append
// stalls, or the thread was not scheduled in time) it suspends (awaitTicket) and the completion is
// posted as for run(). So a stall costs the submitter's thread that spin, once.
#include <asio/async_result.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

#include "store/completion.h"

namespace rmq::store {

// A job of the append thread: a callable the submitter keeps alive (in its coroutine frame) until
// the completion, referenced, not owned, so a send's append costs no allocation.
class AppendWork {
 public:
  template <class F>
  explicit AppendWork(F& f) : target_(&f), call_([](void* t) { (*static_cast<F*>(t))(); }) {}
  void operator()() const { call_(target_); }

 private:
  void* target_;
  void (*call_)(void*);
};

// A job whose submitter first waits for it in place (AppendThread::runWaiting) and suspends for it
// (awaitTicket) only when it is not done in time. Lives in the submitter's coroutine frame.
class AppendTicket {
 public:
  AppendTicket() = default;
  AppendTicket(const AppendTicket&) = delete;
  AppendTicket& operator=(const AppendTicket&) = delete;

 private:
  friend class AppendThread;
  enum State : int { kQueued, kDone, kDetached };  // kDetached: the submitter suspended, done_ set
  std::atomic<int> state_{kQueued};
  Completion done_;
};

class AppendThread {
 public:
  using Work = AppendWork;
  AppendThread() = default;
  ~AppendThread() { stop(); }
  AppendThread(const AppendThread&) = delete;
  AppendThread& operator=(const AppendThread&) = delete;

  void start();
  // Runs the jobs still queued, then joins. Jobs submitted later run on the submitting thread.
  void stop();

  // Runs `work` on the append thread, then completes (void()) on the handler's associated
  // executor, never inline. What `work` reads and writes must outlive the completion (the
  // awaiting coroutine's frame). Usage: `co_await appender.run(work, asio::use_awaitable);`
  template <class Token>
  auto run(Work work, Token&& token) {
    return asio::async_initiate<Token, void()>(
        [this](auto handler, Work w) {
          submit(Job{w, completionOf(std::move(handler), [](auto&& h, PutStatus) { std::move(h)(); }), nullptr});
        },
        token, std::move(work));
  }

  // While the thread is idle (nothing queued, no job running): submits `work` under `ticket` and
  // spins up to `spin` for it. true: it ran (the caller goes on, nothing is posted); false: the
  // thread was busy or its idle spin is off (nothing submitted: use run()), or the job is not done
  // yet (`submitted`: the caller must co_await awaitTicket(ticket) before it touches what the job
  // reads or writes).
  bool runWaiting(AppendTicket& ticket, Work work, std::chrono::nanoseconds spin, bool& submitted);
  // Completes (void()) on the handler's executor, never inline, once the ticket's job ran.
  template <class Token>
  auto awaitTicket(AppendTicket& ticket, Token&& token) {
    return asio::async_initiate<Token, void()>(
        [this, &ticket](auto handler) {
          detach(ticket, completionOf(std::move(handler), [](auto&& h, PutStatus) { std::move(h)(); }));
        },
        token);
  }

  // Off: the thread sleeps as soon as its queue is empty, and runWaiting declines (the submitter
  // suspends and the completion is posted). The store turns it off under SYNC_MASTER (see
  // StoreEngine::applyRoleToThreads), where sends come in bursts a replication round trip apart.
  void setIdleSpin(bool on) { idleSpin_.store(on, std::memory_order_relaxed); }
  bool idleSpin() const { return idleSpin_.load(std::memory_order_relaxed); }

  // Jobs submitted and not started yet (the broker's send-queue size: [OVERLOAD], "size of queue").
  int64_t pending() const { return pending_.load(std::memory_order_relaxed); }

  static constexpr std::chrono::microseconds kSpin{30};
  static constexpr int64_t kCompleteEveryNs = 200'000;
  // After a runWaiting that was not done in time (the thread was not scheduled: a loaded box, or a
  // stall), this many runWaiting calls decline at once, so that a busy box does not pay the spin
  // for nothing on every send, and tries again after them.
  static constexpr int kSkipsAfterMiss = 64;

 private:
  struct Job {
    Work work;
    Completion done;        // empty for a ticket's job
    AppendTicket* ticket;   // set: runWaiting's job
  };
  void submit(Job job);
  void detach(AppendTicket& ticket, Completion done);
  void runJob(Job& job, std::vector<Completion>& done);  // its completion, if due, into `done`
  void loop();
  bool waitForJobs(std::vector<Job>& round);  // false: stopping and nothing left
  void runRound(std::vector<Job>& round, std::vector<Completion>& done);

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Job> queue_;  // guarded by mu_
  bool sleeping_ = false;   // guarded by mu_: a submit must notify
  bool stopping_ = false;   // guarded by mu_
  bool running_ = false;    // guarded by mu_
  std::atomic<int64_t> pending_{0};
  std::atomic<bool> idleSpin_{true};
  std::atomic<int> waitSkips_{0};  // runWaiting calls still to decline (kSkipsAfterMiss)
  std::atomic<bool> idle_{false};  // in waitForJobs with nothing queued: runWaiting may wait here
  std::thread thread_;
};

}  // namespace rmq::store
