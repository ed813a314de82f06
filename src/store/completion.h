#pragma once
// Completion of a durability / replication waiter (SYNC_FLUSH group commit, SYNC_MASTER acks).
// A completion either carries the executor its handler must run on (asio handlers: the send's
// connection thread) or is a plain callable run on the completing thread (which must only post).
// completeAll() releases a whole batch with one post per distinct executor: a group commit of 16
// sends costs one wake-up of each network thread instead of 16 posts from the flusher, each of
// which can wake a thread that preempts the flusher in the middle of the batch.
#include <asio/any_io_executor.hpp>
#include <asio/associated_executor.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <asio/system_executor.hpp>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "store/store_types.h"

namespace rmq::store {

class Completion {
 public:
  using Fn = std::function<void(PutStatus)>;
  Completion() = default;
  // Runs on the completing thread; must be cheap and only post (tests, tools).
  template <class F, std::enable_if_t<!std::is_same_v<std::decay_t<F>, Completion> &&
                                          std::is_invocable_v<std::decay_t<F>&, PutStatus>,
                                      int> = 0>
  Completion(F f) : fn_(std::move(f)) {}
  // `handler` runs on `executor` (outstanding work tracked until it ran).
  Completion(const asio::any_io_executor& executor, Fn handler);

  // Completes this one alone (posted to its executor, or called in place).
  void operator()(PutStatus status);

  // Splits this completion into `parts` completions on the same executor (so completeAll batches
  // them with that executor's other completions): each part's handler records its status, the
  // last one to run calls this completion's handler in place, already on its executor, with
  // `combine` of the parts' statuses (indexed by part). A SYNC_FLUSH + SYNC_MASTER send is one
  // waiter in each list, released in the flush's or the ack's batch without a post of its own.
  using Combine = std::function<PutStatus(const std::vector<PutStatus>&)>;
  std::vector<Completion> split(size_t parts, Combine combine) &&;

 private:
  friend void completeAll(std::vector<Completion>& batch, PutStatus status);
  asio::any_io_executor executor_;  // empty: call fn_ in place
  Fn fn_;
};

// Completes every completion of `batch` with `status`, in order per executor: one post per
// distinct executor running its handlers back to back; executor-less ones in place.
void completeAll(std::vector<Completion>& batch, PutStatus status);

// Type-erases an asio handler into a Completion that runs `invoke(std::move(handler), status)` on
// the handler's associated executor (with outstanding work tracked), so that a batch is released
// with one post per executor. `invoke` adapts the handler's signature (void(PutStatus), void()).
template <class Handler, class Invoke>
Completion completionOf(Handler&& h, Invoke invoke) {
  auto ex = asio::get_associated_executor(h, asio::system_executor());
  auto state = std::make_shared<std::decay_t<Handler>>(std::move(h));
  auto run = [state, invoke](PutStatus st) { invoke(std::move(*state), st); };
  if constexpr (std::is_convertible_v<decltype(ex), asio::any_io_executor>) {
    return Completion(asio::any_io_executor(ex), std::move(run));
  } else {
    auto tracked = asio::prefer(ex, asio::execution::outstanding_work.tracked);
    return [tracked, run](PutStatus st) { asio::post(tracked, [run, st] { run(st); }); };
  }
}

}  // namespace rmq::store
