// GET_BROKER_CONFIG / UPDATE_BROKER_CONFIG (Java properties text over the BrokerConfig and
// StoreConfig field lists, src/config) and the maintenance codes CLEAN_EXPIRED_CONSUMEQUEUE,
// CLEAN_UNUSED_TOPIC, DELETE_EXPIRED_COMMITLOG.
//
// Thread safety of UPDATE_BROKER_CONFIG: network threads read BrokerConfig/StoreConfig without a
// lock, so an update never reallocates a std::string field under them. It is applied to copies
// first (all-or-nothing validation); a change to a string field is refused (they are identity
// and path settings that Java also only reads at start-up: edit the config file and restart),
// except kLiveStringKeys, which only GET_BROKER_CONFIG (rendering under ConfigVersion::mu) and the
// store's own copy read. Only the changed scalar fields (bool/int/double, single aligned words)
// are stored into the live structs. Updates are serialized by ConfigVersion::mu. The connection
// keys (config/connection_limits.h) then reach the open connections through
// BrokerContext::applyConnectionLimits (atomics they read), and the store's live keys
// (store/live_store_keys.h) its own StoreConfig through MessageStore::applyRuntimeConfig.
// The accepted keys are then written into the --config file (BrokerContext::configFile, on the
// background thread, before the answer) so a restart keeps them, as Java's Configuration.persist().
#include <asio/co_spawn.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <mutex>
#include <variant>

#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "config/config_loader.h"
#include "config/config_printer.h"
#include "roles/broker/processors/admin_processors.h"
#include "roles/broker/processors/admin_support.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "store/live_store_keys.h"
#include "store/message_store.h"
#include "store/store_config.h"

namespace rmq::broker {
using namespace admin;

namespace {

// Version of the runtime configuration (Java's Configuration.dataVersion).
struct ConfigVersion {
  std::mutex mu;
  DataVersion version;
};

std::vector<config::ConfigSection> sections(BrokerConfig& broker, store::StoreConfig& store) {
  return {config::section("broker", broker), config::section("store", store)};
}
std::vector<config::ConfigSection> sections(BrokerContext& ctx) { return sections(ctx.config, ctx.storeConfig); }

// Every field of the visited sections, in visit order (so two structs of one type line up).
class FieldRefs : public config::FieldVisitor {
 public:
  using Ref = std::variant<bool*, int32_t*, int64_t*, double*, std::string*>;
  struct Field {
    std::string_view name;
    Ref ref;
  };
  std::vector<Field> fields;
  void field(const config::FieldInfo& i, bool& v) override { fields.push_back({i.name, &v}); }
  void field(const config::FieldInfo& i, int32_t& v) override { fields.push_back({i.name, &v}); }
  void field(const config::FieldInfo& i, int64_t& v) override { fields.push_back({i.name, &v}); }
  void field(const config::FieldInfo& i, double& v) override { fields.push_back({i.name, &v}); }
  void field(const config::FieldInfo& i, std::string& v) override { fields.push_back({i.name, &v}); }
};

std::vector<FieldRefs::Field> fieldsOf(const std::vector<config::ConfigSection>& secs) {
  FieldRefs refs;
  for (auto& s : secs) s.visit(refs);
  return std::move(refs.fields);
}

// String keys that may change at run time (see the top of this file).
constexpr std::string_view kLiveStringKeys[] = {"deleteWhen"};
bool isLiveString(std::string_view name) {
  return std::find(std::begin(kLiveStringKeys), std::end(kLiveStringKeys), name) != std::end(kLiveStringKeys);
}

// Copies the changed scalar fields (and kLiveStringKeys) of `updated` into `live`; refuses
// (writing nothing) when another string field differs. Caller holds ConfigVersion::mu.
Result<void> publishScalars(const std::vector<config::ConfigSection>& updated,
                            const std::vector<config::ConfigSection>& live) {
  auto from = fieldsOf(updated), to = fieldsOf(live);
  std::string refused;
  for (size_t i = 0; i < from.size() && i < to.size(); ++i) {
    auto* a = std::get_if<std::string*>(&from[i].ref);
    if (a && **a != *std::get<std::string*>(to[i].ref) && !isLiveString(from[i].name))
      refused += (refused.empty() ? "" : ", ") + std::string(from[i].name);
  }
  if (!refused.empty())
    return makeError(ResponseCode::SYSTEM_ERROR,
                     "cannot change " + refused + " at run time: edit the config file and restart the broker");
  for (size_t i = 0; i < from.size() && i < to.size(); ++i) {
    std::visit(
        [&](auto* src) {
          using T = std::remove_pointer_t<decltype(src)>;
          T* dst = std::get<T*>(to[i].ref);
          if constexpr (std::is_same_v<T, std::string>) {
            if (*dst != *src && isLiveString(from[i].name)) *dst = *src;
          } else if (*dst != *src) {
            *dst = *src;
          }
        },
        from[i].ref);
  }
  return {};
}

// Names the updated store keys the running store does not take (they apply at the next start).
void logRestartOnlyStoreKeys(const std::vector<std::string>& applied, store::StoreConfig& storeConfig) {
  auto storeFields = fieldsOf({config::section("store", storeConfig)});
  std::string later;
  for (const auto& key : applied) {
    bool storeKey = std::any_of(storeFields.begin(), storeFields.end(), [&](auto& f) { return f.name == key; });
    if (storeKey && !store::isLiveStoreKey(key)) later += (later.empty() ? "" : ", ") + key;
  }
  if (!later.empty()) log::warn("updateBrokerConfig: {} take effect at the next start", later);
}

Reply getBrokerConfig(BrokerContext& ctx, ConfigVersion& cv) {
  std::lock_guard lk(cv.mu);  // kLiveStringKeys change under it
  auto resp = success(config::renderProperties(sections(ctx)));
  resp.extFields.set("version", cv.version.toJson());
  co_return resp;
}

// Writes the updated keys into the --config file (Java: Configuration.persist()), on ctx.background.
asio::awaitable<bool> persistJob(std::shared_ptr<config::ConfigFilePersister> file, config::PendingUpdate update) {
  co_return static_cast<bool>(file->write(update));
}

Reply updateBrokerConfig(BrokerContext& ctx, ConfigVersion& cv, net::ConnectionPtr conn, RemotingCommand cmd) {
  log::info("updateBrokerConfig from {}: {}", conn->remoteAddress(), cmd.body);
  std::optional<Error> refused;
  std::optional<config::PendingUpdate> pending;
  bool permissionUpdated = false;
  {
    std::lock_guard lk(cv.mu);
    BrokerConfig broker = ctx.config;  // copies: the live structs are read by other threads
    store::StoreConfig store = ctx.storeConfig;
    auto updated = sections(broker, store);
    auto applied = config::applyPropertiesText(cmd.body, updated);
    if (!applied) refused = applied.error();
    else if (auto published = publishScalars(updated, sections(ctx)); !published) refused = published.error();
    else if (!applied->empty()) {
      cv.version.next();
      if (ctx.applyConnectionLimits) ctx.applyConnectionLimits();  // a no-op unless a connection key changed
      ctx.store.applyRuntimeConfig(ctx.storeConfig);
      logRestartOnlyStoreKeys(*applied, ctx.storeConfig);
      pending = ctx.configFile->capture(updated, *applied);
      permissionUpdated = std::find(applied->begin(), applied->end(), "brokerPermission") != applied->end();
    }
  }
  if (refused) co_return failure(ResponseCode::SYSTEM_ERROR, refused->message);
  // As Java: a new topic-table data version makes the name servers take the queue perms again
  // (they skip queue data of an unchanged version), and the registration goes out now, not at the
  // next period, so `updateBrokerConfig -k brokerPermission -v 4` drains writes at once.
  if (permissionUpdated) {
    ctx.topics.nextDataVersion();
    co_await registerWithNameServersNow(ctx);
  }
  // Like Java, the answer is SUCCESS even when the file cannot be written (the write logs why).
  if (pending && !ctx.background) ctx.configFile->write(*pending);
  if (pending && ctx.background) {
    auto job = persistJob(ctx.configFile, std::move(*pending));
    co_await asio::co_spawn(ctx.background, std::move(job), asio::use_awaitable);
  }
  co_return success();
}

Reply cleanUnusedTopic(BrokerContext& ctx) {
  postBackground(ctx, [&ctx] {
    std::set<std::string> unused;
    for (auto& [topic, _] : ctx.store.queues()) {
      if (topic == topics::SCHEDULE_TOPIC || ctx.topics.contains(topic)) continue;
      if (topics::isRetryTopic(topic) || topics::isDlqTopic(topic)) continue;
      // The timer's and the pop log's queues (rmq_sys_wheel_timer, rmq_sys_pop_state) have no topic config.
      if (topic.starts_with("rmq_sys_")) continue;
      unused.insert(topic);
    }
    if (!unused.empty()) {
      log::info("clean unused topics: {} consume queue topics dropped", unused.size());
      ctx.store.deleteTopics(unused);
    }
  });
  co_return success();
}

Reply runRetention(BrokerContext& ctx) {
  postBackground(ctx, [&ctx] { ctx.store.runRetention(false); });
  co_return success();
}


}  // namespace

void registerBrokerConfigProcessors(BrokerContext& ctx) {
  BrokerContext* c = &ctx;
  auto cv = std::make_shared<ConfigVersion>();
  ctx.registerProcessor(RequestCode::GET_BROKER_CONFIG,
                        [c, cv](net::ConnectionPtr, RemotingCommand) { return getBrokerConfig(*c, *cv); });
  ctx.registerProcessor(RequestCode::UPDATE_BROKER_CONFIG, [c, cv](net::ConnectionPtr conn, RemotingCommand cmd) {
    return updateBrokerConfig(*c, *cv, conn, std::move(cmd));
  });
  ctx.registerProcessor(RequestCode::CLEAN_UNUSED_TOPIC,
                        [c](net::ConnectionPtr, RemotingCommand) { return cleanUnusedTopic(*c); });
  ctx.registerProcessor(RequestCode::DELETE_EXPIRED_COMMITLOG,
                        [c](net::ConnectionPtr, RemotingCommand) { return runRetention(*c); });
  // The store drops consume-queue files below the commit log minimum on its own retention pass.
  ctx.registerProcessor(RequestCode::CLEAN_EXPIRED_CONSUMEQUEUE,
                        [c](net::ConnectionPtr, RemotingCommand) { return runRetention(*c); });
}

}  // namespace rmq::broker
