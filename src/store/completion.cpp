#include "store/completion.h"

#include <algorithm>
#include <atomic>
#include <memory>
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

std::vector<Completion> Completion::split(size_t parts, Combine combine) && {
  struct Joint {
    Fn handler;
    Combine combine;
    std::vector<PutStatus> statuses;
    std::atomic<size_t> left;
  };
  auto joint = std::make_shared<Joint>();
  joint->handler = std::move(fn_);
  joint->combine = std::move(combine);
  joint->statuses.assign(parts, PutStatus::PUT_OK);
  joint->left = parts;
  std::vector<Completion> out;
  out.reserve(parts);
  for (size_t i = 0; i < parts; ++i) {
    Fn part = [joint, i](PutStatus st) {
      joint->statuses[i] = st;  // each index written once; the acq_rel count publishes it
      if (joint->left.fetch_sub(1, std::memory_order_acq_rel) == 1) joint->handler(joint->combine(joint->statuses));
    };
    Completion c;
    c.executor_ = executor_;  // a tracked copy: each part keeps the executor busy until it ran
    c.fn_ = std::move(part);
    out.push_back(std::move(c));
  }
  executor_ = {};
  return out;
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
