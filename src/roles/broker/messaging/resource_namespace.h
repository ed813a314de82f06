#pragma once
// Namespaces of the 5.x clients (`x-mq-namespace`, and Resource.resource_namespace): a client with
// namespace "ns" names topic "T" and group "G"; the cluster stores them as "ns%T" and "ns%G" (so a
// 4.x client sees topic "ns%T"), with the retry / DLQ forms "%RETRY%ns%G" and "%DLQ%ns%G" — the
// rules of RocketMQ's NamespaceUtil, which the 5.x proxy applied to every Resource of a request
// and undid in its answers. Applied here at the gRPC boundary, before the ACL and the services
// see a request and after they answered, so nothing behind it knows about namespaces.
#include <google/protobuf/message.h>

#include <string>
#include <string_view>

namespace rmq::broker::messaging {

inline constexpr std::string_view kNamespaceHeader = "x-mq-namespace";

// NamespaceUtil.wrapNamespace: "ns%name" (after a %RETRY% / %DLQ% prefix); system topics and
// groups, names already in `ns` and an empty `ns` leave the name as it is.
std::string wrapNamespace(std::string_view ns, std::string_view name);
// NamespaceUtil.withoutNamespace(name, ns): the name without "ns%" (the prefixes kept); a name of
// another namespace or none is left as it is.
std::string withoutNamespace(std::string_view name, std::string_view ns);

// Every apache.rocketmq.v2.Resource inside `request` (any depth: messages, queues, settings,
// subscriptions): name = wrapNamespace(its resource_namespace, or `ns` when that is empty).
void wrapResources(google::protobuf::Message& request, std::string_view ns);
// Every Resource inside `answer`: name without `ns`, resource_namespace = `ns` when it had it.
void unwrapResources(google::protobuf::Message& answer, std::string_view ns);

}  // namespace rmq::broker::messaging
