#include "roles/broker/pop/pop_log.h"

#include <fmt/format.h>

#include "common/log.h"
#include "common/message_codec.h"
#include "common/response_code.h"
#include "common/text_split.h"
#include "common/wall_clock.h"
#include "roles/broker/pop/text_number.h"
#include "store/message_store.h"

namespace rmq::broker::pop {

namespace {

Error bad(std::string_view what, std::string_view text) {
  return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("pop log: {}: '{}'", what, text.substr(0, 200)));
}

void appendKey(std::string& out, const QueueKey& k) { out += fmt::format(" {} {} {}", k.group, k.topic, k.queueId); }

bool parseKey(const std::vector<std::string_view>& f, size_t at, QueueKey& k) {
  if (f.size() < at + 3) return false;
  k.group = std::string(f[at]);
  k.topic = std::string(f[at + 1]);
  return parseNumber(f[at + 2], k.queueId);
}

// "<qo>@<popTime>"
bool parseRef(std::string_view s, PopItem& it) {
  auto at = s.find('@');
  return at != std::string_view::npos && parseNumber(s.substr(0, at), it.queueOffset) &&
         parseNumber(s.substr(at + 1), it.popTime);
}

// "<qo>:<clo>:<deliveries>"
bool parsePopped(std::string_view s, PopItem& it) {
  auto parts = splitNonEmpty(s, ':');
  return parts.size() == 3 && parseNumber(parts[0], it.queueOffset) && parseNumber(parts[1], it.commitLogOffset) &&
         parseNumber(parts[2], it.deliveries);
}

}  // namespace

std::string encodeEvent(const PopEvent& e) {
  std::string out(1, static_cast<char>(e.kind));
  appendKey(out, e.key);
  switch (e.kind) {
    case PopEvent::Kind::Pop: {
      out += fmt::format(" {} {} {} ", e.popTime, e.invisibleTime, e.nextOffset);
      if (e.items.empty()) out += '-';
      for (size_t i = 0; i < e.items.size(); ++i)
        out += fmt::format("{}{}:{}:{}", i ? "," : "", e.items[i].queueOffset, e.items[i].commitLogOffset,
                           e.items[i].deliveries);
      break;
    }
    case PopEvent::Kind::Ack:
      out += ' ';
      for (size_t i = 0; i < e.items.size(); ++i)
        out += fmt::format("{}{}@{}", i ? "," : "", e.items[i].queueOffset, e.items[i].popTime);
      break;
    case PopEvent::Kind::Change:
      out += fmt::format(" {} {} {}@{}", e.popTime, e.invisibleTime, e.items.at(0).queueOffset, e.items.at(0).popTime);
      break;
  }
  return out;
}

Result<PopEvent> decodeEvent(std::string_view body) {
  auto f = splitNonEmpty(body, ' ');
  PopEvent e;
  if (f.empty() || f[0].size() != 1 || !parseKey(f, 1, e.key)) return bad("event without kind or queue", body);
  switch (f[0][0]) {
    case 'P': {
      e.kind = PopEvent::Kind::Pop;
      if (f.size() != 8 || !parseNumber(f[4], e.popTime) || !parseNumber(f[5], e.invisibleTime) ||
          !parseNumber(f[6], e.nextOffset))
        return bad("pop event", body);
      if (f[7] == "-") return e;
      for (auto s : splitNonEmpty(f[7], ',')) {
        PopItem it;
        if (!parsePopped(s, it)) return bad("pop event item", body);
        it.popTime = e.popTime;
        e.items.push_back(it);
      }
      return e;
    }
    case 'A': {
      e.kind = PopEvent::Kind::Ack;
      if (f.size() != 5) return bad("ack event", body);
      for (auto s : splitNonEmpty(f[4], ',')) {
        PopItem it;
        if (!parseRef(s, it)) return bad("ack event item", body);
        e.items.push_back(it);
      }
      return e;
    }
    case 'C': {
      e.kind = PopEvent::Kind::Change;
      PopItem it;
      if (f.size() != 7 || !parseNumber(f[4], e.popTime) || !parseNumber(f[5], e.invisibleTime) || !parseRef(f[6], it))
        return bad("change event", body);
      e.items.push_back(it);
      return e;
    }
    default: return bad("unknown event kind", body);
  }
}

std::vector<std::string> encodeSnapshot(const PopState& state, int64_t seq, int64_t replayFrom, size_t maxPartBytes) {
  std::vector<std::string> lines;  // part bodies without their header
  std::string cur;
  auto queueLine = [](const QueueKey& k, const PopQueue& q) {
    return fmt::format("Q {} {} {} {}\n", k.group, k.topic, k.queueId, q.nextOffset);
  };
  for (const auto& [key, q] : state.queues()) {
    if (q.nextOffset < 0 && q.inFlight.empty()) continue;
    std::string ql = queueLine(key, q);
    if (cur.size() + ql.size() > maxPartBytes && !cur.empty()) lines.push_back(std::exchange(cur, {}));
    cur += ql;
    for (const auto& [qo, m] : q.inFlight) {
      std::string il = fmt::format("I {} {} {} {} {}\n", qo, m.commitLogOffset, m.deliveries, m.popTime, m.invisibleTime);
      if (cur.size() + il.size() > maxPartBytes) {
        lines.push_back(std::exchange(cur, {}));
        cur = ql;  // the next part continues this queue
      }
      cur += il;
    }
  }
  if (!cur.empty() || lines.empty()) lines.push_back(std::move(cur));
  std::vector<std::string> parts;
  for (size_t i = 0; i < lines.size(); ++i)
    parts.push_back(fmt::format("S {} {} {} {}\n", seq, i, lines.size(), replayFrom) + lines[i]);
  return parts;
}

Result<SnapshotHeader> decodeSnapshotHeader(std::string_view body) {
  auto line = body.substr(0, body.find('\n'));
  auto f = splitNonEmpty(line, ' ');
  SnapshotHeader h;
  if (f.size() != 5 || f[0] != "S" || !parseNumber(f[1], h.seq) || !parseNumber(f[2], h.part) ||
      !parseNumber(f[3], h.parts) || !parseNumber(f[4], h.replayFrom) || h.part < 0 || h.part >= h.parts)
    return bad("snapshot header", line);
  return h;
}

Result<void> applySnapshotPart(std::string_view body, PopState& state) {
  QueueKey key;
  PopQueue* q = nullptr;
  for (auto line : splitNonEmpty(body, '\n')) {
    auto f = splitNonEmpty(line, ' ');
    if (f.empty() || f[0] == "S") continue;
    if (f[0] == "Q") {
      int64_t next = -1;
      if (f.size() != 5 || !parseKey(f, 1, key) || !parseNumber(f[4], next)) return bad("snapshot queue line", line);
      q = &state.queue(key);
      PopEvent e;  // through apply(), so the state's counters stay right
      e.key = key;
      e.nextOffset = next;
      state.apply(e);
      continue;
    }
    PopEvent e;
    e.key = key;
    PopItem it;
    if (f[0] != "I" || !q || f.size() != 6 || !parseNumber(f[1], it.queueOffset) ||
        !parseNumber(f[2], it.commitLogOffset) || !parseNumber(f[3], it.deliveries) || !parseNumber(f[4], e.popTime) ||
        !parseNumber(f[5], e.invisibleTime))
      return bad("snapshot message line", line);
    e.items.push_back(it);
    state.apply(e);
  }
  return {};
}

store::AppendResult PopLog::appendBody(int32_t queueId, std::string_view body) {
  store::MessageToStore m;
  m.topic = kPopLogTopic;
  m.queueId = queueId;
  m.body = body;
  m.bornTimestamp = nowMillis();
  m.bornHost = store_.storeHost();
  m.delayDelivered = true;  // never parked, whatever it looks like
  return store_.append(m);
}

store::AppendResult PopLog::append(const PopEvent& e) { return appendBody(kEventQueueId, encodeEvent(e)); }

bool PopLog::appendSnapshot(const std::vector<std::string>& parts) {
  for (const auto& p : parts) {
    auto r = appendBody(kSnapshotQueueId, p);
    if (!r.ok()) {
      log::warn("pop: checkpoint not stored ({}); the previous one stays in use", store::toString(r.status));
      return false;
    }
  }
  return true;
}

std::optional<std::string> PopLog::readBody(int32_t queueId, int64_t offset) const {
  int64_t phy = store_.commitLogOffsetInQueue(kPopLogTopic, queueId, offset);
  if (phy < 0) return std::nullopt;
  auto view = store_.lookMessageByOffset(phy);
  RecordView rec;
  if (!view || parseRecord(view.bytes.data(), view.bytes.size(), rec, false) != RecordParse::Ok) return std::nullopt;
  return std::string(rec.body);
}

std::optional<SnapshotHeader> PopLog::loadSnapshot(PopState& state) {
  const int64_t min = store_.minOffsetInQueue(kPopLogTopic, kSnapshotQueueId);
  int64_t last = store_.maxOffsetInQueue(kPopLogTopic, kSnapshotQueueId) - 1;
  while (last >= min && last >= 0) {
    auto body = readBody(kSnapshotQueueId, last);
    auto h = body ? decodeSnapshotHeader(*body) : Result<SnapshotHeader>(bad("unreadable snapshot record", ""));
    if (!h) {
      --last;
      continue;
    }
    if (h->part != h->parts - 1 || last - h->part < min) {  // an incomplete (or trimmed) snapshot
      last -= h->part + 1;
      continue;
    }
    PopState built;
    bool ok = true;
    for (int64_t o = last - h->part; o <= last && ok; ++o) {
      auto part = readBody(kSnapshotQueueId, o);
      auto ph = part ? decodeSnapshotHeader(*part) : Result<SnapshotHeader>(bad("unreadable snapshot part", ""));
      ok = ph && ph->seq == h->seq && ph->part == o - (last - h->part) && applySnapshotPart(*part, built);
    }
    if (ok) {
      state = std::move(built);
      return *h;
    }
    log::error("pop: snapshot {} at {} unreadable; trying the one before", h->seq, last);
    last -= h->part + 1;
  }
  return std::nullopt;
}

RecoveryStats PopLog::recover(PopState& state) {
  RecoveryStats st;
  state.clear();
  if (auto h = loadSnapshot(state)) {
    st.snapshotSeq = h->seq;
    st.replayFrom = h->replayFrom;
  } else {
    st.replayFrom = store_.minOffsetInQueue(kPopLogTopic, kEventQueueId);
  }
  int64_t offset = std::max(st.replayFrom, store_.minOffsetInQueue(kPopLogTopic, kEventQueueId));
  const int64_t end = store_.maxOffsetInQueue(kPopLogTopic, kEventQueueId);
  while (offset < end) {
    auto r = store_.getMessages(kPopLogTopic, kEventQueueId, offset, 1024, 16 << 20, nullptr);
    if (r.records.empty()) {
      log::error("pop: event log unreadable at {} ({}); {} events skipped", offset, store::toString(r.status),
                 end - offset);
      break;
    }
    for (size_t i = 0; i < r.records.size(); ++i) {
      RecordView rec;
      if (parseRecord(r.records[i].data(), r.records[i].size(), rec, false) != RecordParse::Ok) continue;
      auto e = decodeEvent(rec.body);
      if (!e) {
        log::error("{}", e.error().message);
        continue;
      }
      state.apply(*e);
      ++st.eventsReplayed;
    }
    offset = std::max(offset + 1, r.nextBeginOffset);
  }
  st.nextEventOffset = end;
  return st;
}

}  // namespace rmq::broker::pop
