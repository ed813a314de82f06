#pragma once
// The pop log: PopService's durable state, as ordinary records of the system topic
// `rmq_sys_pop_state` in the commit log (so a slave has it byte for byte and a promoted slave
// rebuilds it). Queue 0 holds one record per PopEvent; queue 1 holds checkpoints (snapshots of the
// whole PopState, in parts). Recovery = the last complete snapshot + the events after it: bounded
// by what is in flight and by the events since the last checkpoint, never a scan of history.
// Record bodies are ASCII lines (group and topic names have no blanks); README.md "Pop log".
//
//   P <group> <topic> <queueId> <popTime> <invisibleTime> <nextOffset> <qo>:<clo>:<deliveries>,...|-
//   A <group> <topic> <queueId> <qo>@<popTime>,...
//   C <group> <topic> <queueId> <newPopTime> <newInvisibleTime> <qo>@<oldPopTime>
//   snapshot part:  S <seq> <part> <parts> <replayFrom>\n then lines
//                   Q <group> <topic> <queueId> <nextOffset>\n  and, for that queue,
//                   I <qo> <clo> <deliveries> <popTime> <invisibleTime>\n
//
// Codec functions are pure; PopLog reads and appends through the MessageStore (any non-network
// thread for recovery; append is the store's ordinary append, safe on any thread).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "roles/broker/pop/pop_state.h"
#include "store/store_types.h"

namespace rmq::store {
class MessageStore;
}

namespace rmq::broker::pop {

inline constexpr std::string_view kPopLogTopic = "rmq_sys_pop_state";
inline constexpr int32_t kEventQueueId = 0;
inline constexpr int32_t kSnapshotQueueId = 1;

std::string encodeEvent(const PopEvent& e);
Result<PopEvent> decodeEvent(std::string_view body);

struct SnapshotHeader {
  int64_t seq = 0;
  int32_t part = 0;
  int32_t parts = 1;
  int64_t replayFrom = 0;  // queue-0 offset of the first event not contained in the snapshot
};
// The state as snapshot parts of at most ~maxPartBytes each (a queue's lines may span parts; each
// part restates the Q line of the queue it continues).
std::vector<std::string> encodeSnapshot(const PopState& state, int64_t seq, int64_t replayFrom,
                                        size_t maxPartBytes = 1 << 20);
Result<SnapshotHeader> decodeSnapshotHeader(std::string_view body);
// Applies one part's lines to `state`.
Result<void> applySnapshotPart(std::string_view body, PopState& state);

struct RecoveryStats {
  int64_t snapshotSeq = -1;  // -1: none found (replayed from the queue start)
  int64_t replayFrom = 0;
  int64_t eventsReplayed = 0;
  int64_t nextEventOffset = 0;  // queue-0 offset the next event will get
};

class PopLog {
 public:
  explicit PopLog(store::MessageStore& store) : store_(store) {}
  // Appends one event; PUT_OK results carry the event's queue offset.
  store::AppendResult append(const PopEvent& e);
  // Appends the snapshot parts, in order; false when the store refused one (the previous
  // complete snapshot stays the one recovery uses).
  bool appendSnapshot(const std::vector<std::string>& parts);
  // Rebuilds `state` from the last complete snapshot and the events after it.
  RecoveryStats recover(PopState& state);

 private:
  store::AppendResult appendBody(int32_t queueId, std::string_view body);
  std::optional<std::string> readBody(int32_t queueId, int64_t offset) const;
  // The last complete snapshot applied to `state`: its header; nullopt when there is none.
  std::optional<SnapshotHeader> loadSnapshot(PopState& state);

  store::MessageStore& store_;
};

}  // namespace rmq::broker::pop
