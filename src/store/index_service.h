#pragma once
// IndexService: the index files of <root>/index (named by creation time, yyyyMMddHHmmssSSS local),
// newest last. Builds entries for UNIQ_KEY and each KEYS word ("topic#key") on the dispatcher
// thread; answers key queries from any thread; a full file is rolled over and flushed later by
// the maintenance thread (which then advances the checkpoint's indexMsgTimestamp).
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "common/message_codec.h"
#include "store/checkpoint.h"
#include "store/index_file.h"
#include "store/store_config.h"

namespace rmq::store {

class IndexService {
 public:
  explicit IndexService(const StoreConfig& cfg);
  // Opens existing files; after an abnormal exit, files newer than the checkpoint are deleted
  // (they are rebuilt by the recovery re-dispatch).
  Result<void> load(bool lastExitOk, int64_t checkpointIndexTs);
  // Lowest commit log offset covered by an index file that load() deleted (INT64_MAX if none):
  // recovery re-dispatches from there so those keys are indexed again.
  int64_t rebuildFrom() const { return rebuildFrom_; }
  // Commit log offset of the newest record the index files hold keys of (-1: no index file).
  // Recovery indexes what follows it, so a lost newest index file (or all) is rebuilt.
  int64_t lastIndexedPhy() const;
  // Recovery, after the commit log was cut at `phyEnd`: deletes the index files holding keys of
  // records at or beyond it (stale: new records will take those offsets) and returns the lowest
  // offset they covered (INT64_MAX if none), to re-index from there.
  int64_t dropBeyond(int64_t phyEnd);
  // Run-time commit log cut at `phyOffset` (dispatcher parked): the items of records at or
  // beyond it leave the newest files (IndexFile::truncateFrom), a file left with none is
  // deleted. O(items dropped): no commit log re-read. Returns the number of files touched.
  int truncateFrom(int64_t phyOffset, const std::function<int64_t(int64_t)>& storeTimeOf);
  // (first, last) commit log offsets of the records each file holds keys of, oldest file first.
  std::vector<std::pair<int64_t, int64_t>> spans() const;
  // Recovery: deletes file `i` and every newer one (`why` goes to the log line).
  void dropFrom(size_t i, const std::string& why);
  // A record buildIndex() puts keys of.
  static bool hasKeys(const RecordView& rec);

  // Dispatcher thread. An error (no index file, full disk) means the record is not (completely)
  // indexed: call again with the same record; keys stored before the failure are not repeated.
  Result<void> buildIndex(const RecordView& rec);
  struct Query {
    std::vector<int64_t> offsets;
    int64_t lastUpdateTimestamp = 0;
    int64_t lastUpdatePhyOffset = 0;
  };
  Query query(std::string_view topic, std::string_view key, int maxNum, int64_t begin, int64_t end) const;

  void flushFullFiles(Checkpoint& cp);  // maintenance thread
  void flushAll();
  int deleteFilesBelow(int64_t phyMin);  // never the newest
  void destroy();

 private:
  Result<IndexFilePtr> writableFile(int64_t phyOffset, int64_t storeTs);
  Result<void> putKey(IndexFilePtr& file, std::string_view topic, std::string_view key, const RecordView& rec);

  const StoreConfig& cfg_;
  std::string dir_;
  mutable std::mutex mu_;
  std::vector<IndexFilePtr> files_;
  std::vector<IndexFilePtr> fullUnflushed_;
  std::string keyBuf_;  // dispatcher-thread scratch for "topic#key"
  int64_t rebuildFrom_ = INT64_MAX;
  int64_t resumePhy_ = -1;  // record whose indexing failed part-way (dispatcher thread)
  int resumeKeys_ = 0;      // its keys already stored
};

}  // namespace rmq::store
