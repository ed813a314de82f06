#include "roles/broker/messaging/resource_namespace.h"

#include <vector>

#include "apache/rocketmq/v2/definition.pb.h"
#include "roles/broker/metadata/topic_config.h"

namespace rmq::broker::messaging {

namespace {

namespace v2 = apache::rocketmq::v2;
using google::protobuf::FieldDescriptor;

constexpr char kSeparator = '%';
constexpr std::string_view kSysGroupPrefix = "CID_RMQ_SYS_";  // MixAll.isSysConsumerGroup

bool isSystemResource(std::string_view name) {
  return topics::isFixedSystemTopic(name) || name.starts_with(kSysGroupPrefix);
}

// The %RETRY% / %DLQ% prefix of `name` ("" when none).
std::string_view prefixOf(std::string_view name) {
  for (auto p : {topics::RETRY_GROUP_TOPIC_PREFIX, topics::DLQ_GROUP_TOPIC_PREFIX})
    if (name.starts_with(p)) return name.substr(0, p.size());
  return {};
}

bool inNamespace(std::string_view bare, std::string_view ns) {
  return bare.size() > ns.size() && bare.starts_with(ns) && bare[ns.size()] == kSeparator;
}

// Calls f on every Resource set inside m (maps hold only strings in v2: not walked).
template <class F>
void forEachResource(google::protobuf::Message& m, const F& f) {
  if (m.GetDescriptor() == v2::Resource::descriptor()) {
    f(static_cast<v2::Resource&>(m));
    return;
  }
  const auto* reflection = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(m, &fields);
  for (const auto* fd : fields) {
    if (fd->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE || fd->is_map()) continue;
    if (!fd->is_repeated()) {
      forEachResource(*reflection->MutableMessage(&m, fd), f);
      continue;
    }
    for (int i = 0, n = reflection->FieldSize(m, fd); i < n; ++i)
      forEachResource(*reflection->MutableRepeatedMessage(&m, fd, i), f);
  }
}

}  // namespace

std::string wrapNamespace(std::string_view ns, std::string_view name) {
  if (ns.empty() || name.empty() || isSystemResource(name)) return std::string(name);
  auto prefix = prefixOf(name);
  auto bare = name.substr(prefix.size());
  if (inNamespace(bare, ns)) return std::string(name);
  std::string out;
  out.reserve(name.size() + ns.size() + 1);
  out.append(prefix).append(ns).append(1, kSeparator).append(bare);
  return out;
}

std::string withoutNamespace(std::string_view name, std::string_view ns) {
  auto prefix = prefixOf(name);
  auto bare = name.substr(prefix.size());
  if (ns.empty() || !inNamespace(bare, ns)) return std::string(name);
  return std::string(prefix) + std::string(bare.substr(ns.size() + 1));
}

void wrapResources(google::protobuf::Message& request, std::string_view ns) {
  forEachResource(request, [ns](v2::Resource& r) {
    std::string_view own = r.resource_namespace().empty() ? ns : std::string_view(r.resource_namespace());
    r.set_name(wrapNamespace(own, r.name()));
    r.clear_resource_namespace();  // the name carries it now
  });
}

void unwrapResources(google::protobuf::Message& answer, std::string_view ns) {
  if (ns.empty()) return;
  forEachResource(answer, [ns](v2::Resource& r) {
    std::string bare = withoutNamespace(r.name(), ns);
    if (bare.size() == r.name().size()) return;
    r.set_name(std::move(bare));
    r.set_resource_namespace(std::string(ns));
  });
}

}  // namespace rmq::broker::messaging
