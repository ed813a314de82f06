#pragma once
// NamesrvRegistrar: keeps this broker registered with every name server of namesrvAddr
// (PROTOCOL.md §7.7, §8.8): REGISTER_BROKER to all of them in parallel at start and every
// registerNameServerPeriod, an extra full registration soon after a topic is auto-created, the one
// new topic at once after UPDATE_AND_CREATE_TOPIC (Java's registerIncrementBrokerData), and
// UNREGISTER_BROKER on shutdown. As Java 4.9: compressedRegister sends the compressed body
// (register_body.h); forceRegister=false makes the periodic registration ask QUERY_DATA_VERSION
// first and skip it when every name server answering holds this broker's data version (start,
// registerSoon/registerNow and increments always register). Every answer's masterAddr / haServerAddr go to
// BrokerReplication::onRegistered (a slave follows the master the name servers name).
// What a registration says about the node's role (brokerId, failover epoch) is read from
// BrokerContext::role at each registration, so a failover flips it at run time (then registerSoon).
// Threads: the periodic loop runs as a coroutine on one network io_context; RemotingClient calls
// are asynchronous, so nothing blocks a network thread. start()/stop() from the controller thread.
#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "net/io_pool.h"
#include "net/remoting_client.h"
#include "roles/broker/broker_context.h"

namespace rmq::broker {

// The role a registration announces. Failover flips it: brokerId 0 with the node's own HA
// address as master, its own id as slave. epoch > 0 = the group's failover epoch, sent as
// dataVersion.stateVersion (the name server refuses a master of an older epoch); 0 = failover
// off: no stateVersion field, the body as Java 4.9's.
struct RegistrationIdentity {
  int64_t brokerId = 0;
  std::string haServerAddr;
  int64_t epoch = 0;
};

class NamesrvRegistrar {
 public:
  // `clientOptions`: of the connections to the name servers (TLS when the broker's tls.enable says so).
  NamesrvRegistrar(BrokerContext& ctx, std::string haServerAddr, net::ClientOptions clientOptions = {});
  ~NamesrvRegistrar();

  // Registers once (waiting for the answers, errors logged) and starts the periodic loop.
  void start();
  // Requests a registration as soon as possible (coalesced). Any thread.
  void registerSoon();
  // Registers with every name server now; completes when all answered or timed out.
  asio::awaitable<void> registerNow();
  // Java's registerIncrementBrokerData: REGISTER_BROKER carrying only `topic` (the broker's perm
  // when it is not read-write) and the table's current data version, to every name server; the
  // name servers add or update that topic's queues and keep the others. Completes when all
  // answered or timed out. O(1) in the table size, so creating topics one by one stays linear.
  asio::awaitable<void> registerIncrement(TopicConfig topic);
  // The identity the next registration (and the UNREGISTER of stop()) carries, from ctx.role. Java
  // 5.x sends no UNREGISTER for the old brokerId on a flip: the name server drops an address's
  // entry under another id when it registers under a new one.
  RegistrationIdentity identity() const;
  // Stops the loop and sends UNREGISTER_BROKER to every name server (waits for the answers,
  // bounded by registerBrokerTimeoutMills). Must not be called on a network thread.
  void stop();

  // The name servers from the address server (namesrvAddr empty, fetchNamesrvAddrByAddressServer):
  // used from the next registration on, which follows at once. Any thread.
  void setFetchedNamesrvAddr(const std::string& addrs);

  // Body of REGISTER_BROKER: RegisterBrokerBody JSON (§3.2; register_body.h), epoch included.
  std::string registerBody() const;
  uint64_t registrationsSucceeded() const { return succeeded_.load(); }
  // Periodic registrations left out because no name server's data version differed.
  uint64_t registrationsSkipped() const { return skipped_.load(); }

  std::vector<std::string> namesrvList() const;  // namesrvAddr, else the fetched list (any thread)

 private:
  using PerNamesrv = std::function<asio::awaitable<void>(std::string addr)>;
  asio::awaitable<void> loop();
  // force=false: only when needRegister() says so (forceRegister=false's periodic registration).
  asio::awaitable<void> registerAll(bool force);
  // Java's needRegister: QUERY_DATA_VERSION to every name server; true when one answered changed,
  // holds another version, or could not be asked.
  asio::awaitable<bool> needRegister(const RegistrationIdentity& id, const DataVersion& version);
  asio::awaitable<void> queryDataVersion(std::string addr, std::string mine, RegistrationIdentity id,
                                         std::shared_ptr<bool> changed);
  // Runs `one` for every name server in parallel; completes when all have.
  asio::awaitable<void> forEachNamesrv(PerNamesrv one);
  asio::awaitable<void> sendToAll(std::string body, RegistrationIdentity id);
  asio::awaitable<void> registerOne(std::string addr, std::string body, RegistrationIdentity id);
  std::string encodeBody(const DataVersion& version, int64_t epoch, const std::vector<TopicConfig>& topics) const;
  void applyOrderTopics(std::string_view kvTableBody);  // ORDER_TOPIC_CONFIG from the answer

  BrokerContext& ctx_;
  const std::string haServerAddr_;
  net::RemotingClient client_;
  asio::io_context& io_;
  std::shared_ptr<asio::steady_timer> wake_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> loopDone_{false};
  std::atomic<bool> pending_{false};
  std::atomic<uint64_t> succeeded_{0};
  std::atomic<uint64_t> skipped_{0};
  mutable std::mutex fetchedMu_;
  std::string fetchedNamesrvAddr_;  // fetchedMu_
};

}  // namespace rmq::broker
