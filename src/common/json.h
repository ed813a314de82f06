#pragma once
// fastjson compatibility helpers (PROTOCOL.md §3.1) for every JSON body and config file.
//
// Reading: json::parse() accepts what Java's fastjson writes and standard JSON alike, into a
// rapidjson::Document:
//   * unquoted map keys          {0:"10.0.0.1:10911"}            -> key "0"
//   * object-valued map keys     {{"brokerName":"b","queueId":0,"topic":"t"}:12}
//                                -> key is the compact JSON text of the key object:
//                                   "{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"t\"}"
//   * single-quoted strings, trailing commas.
// Writing: use a rapidjson::Writer<rapidjson::StringBuffer> (json::Writer) as usual; it quotes
// and escapes like fastjson (control chars as \uXXXX, UTF-8 raw). For the non-standard key forms
// Java readers need, call writeIntKey / writeMessageQueueKey where you would call w.Key(...).
//
// Example (ConsumeStats-like body):
//   json::Buffer buf; json::Writer w(buf);
//   w.StartObject();
//   w.Key("offsetTable"); w.StartObject();
//   json::writeMessageQueueKey(w, {"TopicTest", "broker-a", 0});
//   w.StartObject(); w.Key("brokerOffset"); w.Int64(12); w.EndObject();
//   w.EndObject();
//   w.Key("brokerAddrs"); w.StartObject(); json::writeIntKey(w, 0); w.String("1.2.3.4:10911"); w.EndObject();
//   w.EndObject();
//   std::string body(buf.GetString(), buf.GetSize());
//   // {"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"TopicTest"}:{"brokerOffset":12}},
//   //  "brokerAddrs":{0:"1.2.3.4:10911"}}
//   rapidjson::Document doc;
//   if (auto r = json::parse(body, doc); !r) { /* r.error().message says where */ }
//   for (auto& m : doc["offsetTable"].GetObject())
//     if (auto mq = json::parseMessageQueueKey(json::keyView(m.name))) { /* mq->topic ... */ }
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rmq::json {

using Buffer = rapidjson::StringBuffer;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// Deepest nesting of objects/arrays any JSON reader here accepts (object-valued keys count too).
// RocketMQ's bodies nest a handful of levels; the readers recurse per level, so without a bound a
// 16 MiB frame of '[' would overflow a network thread's stack (found by fuzz/remoting_frame).
inline constexpr size_t kMaxNesting = 256;

// Parses fastjson or standard JSON text into `doc` (tolerant forms above). Error message names
// the byte offset and the rapidjson reason. Error code is SYSTEM_ERROR (1). Text nested deeper
// than kMaxNesting is refused.
Result<void> parse(std::string_view text, rapidjson::Document& doc);

// Compact JSON text of a value (rapidjson Writer, fastjson-compatible escaping).
std::string toString(const rapidjson::Value& v);

// Appends `s` as a quoted JSON string the way fastjson escapes it: `"` and `\` backslashed,
// \b \t \n \f \r short forms, other control chars and DEL as \u00XX (upper-case hex).
void appendQuoted(std::string& out, std::string_view s);

// A MessageQueue as used for map keys (fields in fastjson's alphabetical order).
struct MessageQueueKey {
  std::string topic;
  std::string brokerName;
  int32_t queueId = 0;
};
// {"brokerName":"b","queueId":0,"topic":"t"}: the exact text fastjson writes and parse() uses as key.
std::string messageQueueKeyText(const MessageQueueKey& mq);
// Parses a key produced by parse() from an object key (or any MessageQueue JSON text).
std::optional<MessageQueueKey> parseMessageQueueKey(std::string_view keyText);

// Key writers for Java-facing maps; call them where you would call w.Key().
void writeIntKey(Writer& w, int64_t key);                 // {0:...}
void writeRawKey(Writer& w, std::string_view jsonText);   // key written unquoted, verbatim
void writeMessageQueueKey(Writer& w, const MessageQueueKey& mq);

// A JSON number as a Java long field takes it (fraction cut toward zero); nullopt when it is NaN or
// beyond int64 (a plain cast would be undefined behaviour: found by fuzz/fastjson).
std::optional<int64_t> int64OfDouble(double v);

// Tolerant member getters (fastjson accepts numbers as strings and vice versa). getInt64 is
// nullopt for a number beyond int64.
inline std::string_view keyView(const rapidjson::Value& name) { return {name.GetString(), name.GetStringLength()}; }
std::optional<std::string_view> getString(const rapidjson::Value& obj, const char* key);
std::optional<int64_t> getInt64(const rapidjson::Value& obj, const char* key);  // number or numeric string
std::optional<bool> getBool(const rapidjson::Value& obj, const char* key);      // bool or "true"/"false"

}  // namespace rmq::json
