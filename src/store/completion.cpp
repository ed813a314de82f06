#include "store/completion.h"

#include <algorithm>
#include <asio/execution/outstanding_work.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <utility>

namespace rmq::store {

Completion::Completion(const asio::any_io_executor& executor, Fn handler)
    : executor_(asio::prefer(executor, asio::execution::outstanding_work.tracked)), fn_(std::move(handler)) {}

void Completion::operator()(PutStatus status) {
  if (!executor_) return fn_(status);
  auto ex = std::move(executor_);  // the tracked work goes with the handler
  executor_ = {};
  asio::post(ex, [fn = std::move(fn_), status] { fn(status); });
}

void completeAll(std::vector<Completion>& batch, PutStatus status) {
  struct Group {
    asio::any_io_executor executor;
    std::vector<Completion::Fn> handlers;
  };
  std::vector<Group> groups;  // few: one per network thread
  for (auto& c : batch) {
    if (!c.executor_) {
      c.fn_(status);
      continue;
    }
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.executor == c.executor_; });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{c.executor_, {}});
    g->handlers.push_back(std::move(c.fn_));
    c.executor_ = {};  // the group's copy tracks the work from here
  }
  for (auto& g : groups)
    asio::post(g.executor, [handlers = std::move(g.handlers), status] {
      for (const auto& h : handlers) h(status);
    });
}

}  // namespace rmq::store
