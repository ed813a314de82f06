#include "tools/rmqadmin/verb_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <unistd.h>

#include "client/client_tls.h"
#include "client/message_helpers.h"

namespace rmq::admin {

void requireBrokerOrCluster(VerbContext& ctx) {
  if (ctx.args.get({"b", "brokerAddr"}, "").empty() && ctx.args.get({"c", "clusterName"}, "").empty())
    ctx.usageError("give -b <brokerAddr> or -c <clusterName>");
}

Result<std::vector<std::string>> brokerTargets(VerbContext& ctx) {
  if (auto b = ctx.args.get({"b", "brokerAddr"}); b && !b->empty()) return std::vector<std::string>{*b};
  std::string cluster = ctx.args.get({"c", "clusterName"}, "");
  auto& admin = ctx.admin();
  auto addrs = admin.run(admin.asyncMasterAddrs(cluster));
  if (addrs && addrs->empty()) return Error{1, fmt::format("cluster [{}] has no master broker", cluster)};
  return addrs;
}

client::ClientConfig toolClientConfig(VerbContext& ctx) {
  client::ClientConfig cfg;
  cfg.namesrvAddr = ctx.args.get({"n", "namesrvAddr"}, "");
  cfg.instanceName = fmt::format("rmqadmin-{}", ::getpid());
  cfg.accessKey = ctx.args.get({"access-key"}, "");
  cfg.secretKey = ctx.args.get({"secret-key"}, "");
  auto tls = client::clientTls(ctx.args.flag("tls"), ctx.args.get({"tls-config"}, "/etc/rocketmq/tls.properties"));
  if (!tls) {  // a bad tls.client.* file: nothing this verb could do without it
    std::fprintf(stderr, "rmqadmin %s: %s\n", ctx.verb.c_str(), tls.error().message.c_str());
    std::exit(2);
  }
  cfg.tls = std::move(*tls);
  return cfg;
}

int failAt(VerbContext& ctx, const std::string& addr, const Error& e) {
  return ctx.fail(fmt::format("{}: {}", addr, e.message), e.code);
}

bool boolOption(VerbContext& ctx, std::initializer_list<std::string> names, bool dflt) {
  auto v = ctx.args.get(names);
  if (!v) return dflt;
  std::string s = *v;  // "true" or "false" in any case: the parser checked it
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s == "true";
}

std::string mqVersionDesc(int32_t version) {
  constexpr int32_t kV4_0_0_SNAPSHOT = 212, kHigherVersion = 612;  // MQVersion.Version ordinals
  if (version >= kHigherVersion) return "HIGHER_VERSION";
  if (version < kV4_0_0_SNAPSHOT) return std::to_string(version);
  int32_t i = version - kV4_0_0_SNAPSHOT;  // two entries (SNAPSHOT, release) per x.y.z from 4.0.0
  return fmt::format("V{}_{}_{}{}", 4 + i / 200, i % 200 / 20, i % 20 / 2, i % 2 == 0 ? "_SNAPSHOT" : "");
}

std::string formatTimestamp(int64_t ms, bool withMillis) {
  if (ms <= 0) return std::to_string(ms);
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  if (!withMillis) return buf;
  return fmt::format("{},{:03d}", buf, static_cast<int>(ms % 1000));
}

std::string javaHumanTime(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  return fmt::format("{:04d}{:02d}{:02d}{:02d}{:02d}{:02d}{:03d}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
}

std::optional<int64_t> parseTimestamp(const std::string& text) {
  if (text == "now")
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch()).count();
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    try { return std::stoll(text); } catch (...) { return std::nullopt; }
  }
  // yyyy-MM-dd#HH:mm:ss:SSS (local time)
  std::tm tm{};
  int millis = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%d#%d:%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &millis) != 7)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_isdst = -1;
  std::time_t t = std::mktime(&tm);
  if (t == -1) return std::nullopt;
  return static_cast<int64_t>(t) * 1000 + millis;
}

std::string bodyText(const std::string& body, size_t limit) {
  bool printable = std::all_of(body.begin(), body.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u >= 0x20 || c == '\n' || c == '\r' || c == '\t';
  });
  if (!printable) return fmt::format("<{} bytes, binary>", body.size());
  if (body.size() <= limit) return body;
  return fmt::format("{}... <{} bytes>", body.substr(0, limit), body.size());
}

std::vector<std::pair<std::string, std::string>> messageDetail(const MessageExt& m, bool withBody) {
  std::string props;
  for (auto& [k, v] : m.properties) props += fmt::format("{}{}={}", props.empty() ? "" : ", ", k, v);
  std::vector<std::pair<std::string, std::string>> rows = {
      {"OffsetID", m.offsetMsgId()},
      {"Message ID", client::uniqKey(m).empty() ? m.offsetMsgId() : client::uniqKey(m)},
      {"Topic", m.topic},
      {"Tags", "[" + m.tags() + "]"},
      {"Keys", "[" + m.keys() + "]"},
      {"Queue ID", std::to_string(m.queueId)},
      {"Queue Offset", std::to_string(m.queueOffset)},
      {"CommitLog Offset", std::to_string(m.commitLogOffset)},
      {"Reconsume Times", std::to_string(m.reconsumeTimes)},
      {"Born Timestamp", formatTimestamp(m.bornTimestamp)},
      {"Store Timestamp", formatTimestamp(m.storeTimestamp)},
      {"Born Host", m.bornHost.toString()},
      {"Store Host", m.storeHost.toString()},
      {"System Flag", std::to_string(m.sysFlag)},
      {"Properties", "{" + props + "}"},
      {"Body Size", std::to_string(m.body.size())},
  };
  if (withBody) rows.emplace_back("Message Body", bodyText(m.body));
  return rows;
}

}  // namespace rmq::admin
