// GET_BROKER_CONFIG / UPDATE_BROKER_CONFIG (Java properties text over the BrokerConfig and
// StoreConfig field lists, src/config) and the maintenance codes CLEAN_EXPIRED_CONSUMEQUEUE,
// CLEAN_UNUSED_TOPIC, DELETE_EXPIRED_COMMITLOG.
#include <mutex>

#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "config/config_loader.h"
#include "config/config_printer.h"
#include "roles/broker/admin_processors.h"
#include "roles/broker/admin_support.h"
#include "roles/broker/topic_config_manager.h"
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

std::vector<config::ConfigSection> sections(BrokerContext& ctx) {
  return {config::section("broker", ctx.config), config::section("store", ctx.storeConfig)};
}

Reply getBrokerConfig(BrokerContext& ctx, ConfigVersion& cv) {
  auto resp = success(config::renderProperties(sections(ctx)));
  std::lock_guard lk(cv.mu);
  resp.extFields.set("version", cv.version.toJson());
  co_return resp;
}

Reply updateBrokerConfig(BrokerContext& ctx, ConfigVersion& cv, net::ConnectionPtr conn, RemotingCommand cmd) {
  log::info("updateBrokerConfig from {}: {}", conn->remoteAddress(), cmd.body);
  auto applied = config::applyPropertiesText(cmd.body, sections(ctx));
  if (!applied) co_return failure(ResponseCode::SYSTEM_ERROR, applied.error().message);
  if (!applied->empty()) {
    std::lock_guard lk(cv.mu);
    cv.version.next();
  }
  co_return success();
}

Reply cleanUnusedTopic(BrokerContext& ctx) {
  postBackground(ctx, [&ctx] {
    std::set<std::string> unused;
    for (auto& [topic, _] : ctx.store.queues()) {
      if (topic == topics::SCHEDULE_TOPIC || ctx.topics.contains(topic)) continue;
      if (topics::isRetryTopic(topic) || topics::isDlqTopic(topic)) continue;
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
