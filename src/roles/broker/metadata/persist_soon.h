#pragma once
// PersistSoon: where a metadata manager's persist() runs after a change. Once the broker set an
// executor (its background thread) the job goes there, so admin requests never write files on
// network threads; until then it runs in the caller. A failure is logged with the file's name.
// Thread-safe.
#include <functional>
#include <mutex>
#include <string>

#include "common/result.h"

namespace rmq::broker {

class PersistSoon {
 public:
  using Executor = std::function<void(std::function<void()>)>;

  // file: for the log line ("topics.json"); persist: the manager's persist().
  PersistSoon(std::string file, std::function<Result<void>()> persist)
      : file_(std::move(file)), persist_(std::move(persist)) {}

  void setExecutor(Executor exec);
  void operator()();

 private:
  std::string file_;
  std::function<Result<void>()> persist_;
  std::mutex mu_;
  Executor exec_;
};

}  // namespace rmq::broker
