#pragma once
// AllocateService: creates the next commit log file ahead of time on its own thread, so an append
// that fills a file (under the CommitLog lock, on a network thread) only swaps in a ready file.
// take() falls back to creating the file synchronously when the background one is not ready.
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "store/mapped_file.h"

namespace rmq::store {

class AllocateService {
 public:
  explicit AllocateService(bool warm) : warm_(warm) {}
  ~AllocateService() { stop(); }
  void start();
  void stop();  // joins; deletes a prepared file that was never taken
  // After a commit log cut: deletes the prepared files (they were for offsets after the old end;
  // one left on disk would sit after a gap in the file list) and drops pending requests; the
  // next take() creates its file itself and queues the one after it again.
  void discardPrepared();
  // Returns the file for `path` and queues the preparation of `nextPath`.
  Result<MappedFilePtr> take(const std::string& path, int64_t start, int64_t size, const std::string& nextPath,
                             int64_t nextStart);

 private:
  void run();
  struct Request {
    int64_t start = 0;
    int64_t size = 0;
  };
  bool warm_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Request> pending_;
  std::map<std::string, MappedFilePtr> ready_;
  std::string creating_;  // path being created by the thread right now
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace rmq::store
