// JavaStringMap: java.util.HashMap<String, String> iteration order. The vectors were printed by the
// JDK 17 HashMap itself: test/reference/props/HashMapVectors.java.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/java_string_map.h"
#include "common/message_codec.h"

using namespace rmq;

namespace {
struct Vector {
  const char* name;
  std::vector<std::string> ops;   // "+key" puts key, "-key" removes it
  std::vector<std::string> keys;  // the JDK's iteration order afterwards
};

// Output of `java HashMapVectors.java` (JDK 17), unchanged.
const std::vector<Vector> kJdkVectors = {
  {"client props + CLUSTER", {"+KEYS", "+UNIQ_KEY", "+WAIT", "+TAGS", "+CLUSTER", "-WAIT"}, {"KEYS", "UNIQ_KEY", "CLUSTER", "TAGS"}},
  {"user props first", {"+color", "+price", "+KEYS", "+UNIQ_KEY", "+WAIT", "+TAGS", "+CLUSTER", "-WAIT"}, {"color", "price", "KEYS", "UNIQ_KEY", "CLUSTER", "TAGS"}},
  {"WAIT removed and put again goes last in its bucket", {"+REAL_TOPIC", "+KEYS", "+TRAN_MSG", "+UNIQ_KEY", "+WAIT", "+PGROUP", "+TAGS", "+CLUSTER", "-WAIT", "+WAIT", "+REAL_TOPIC", "+REAL_QID"}, {"REAL_TOPIC", "KEYS", "TRAN_MSG", "UNIQ_KEY", "CLUSTER", "PGROUP", "WAIT", "TAGS", "REAL_QID"}},
  {"delay", {"+UNIQ_KEY", "+WAIT", "+DELAY", "+CLUSTER", "-WAIT", "+WAIT", "+REAL_TOPIC", "+REAL_QID"}, {"REAL_TOPIC", "UNIQ_KEY", "CLUSTER", "DELAY", "WAIT", "REAL_QID"}},
  {"13 puts grow the table to 32", {"+p0", "+p1", "+p2", "+p3", "+p4", "+p5", "+p6", "+p7", "+p8", "+p9", "+p10", "+p11", "+p12", "-p3"}, {"p0", "p1", "p2", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p12", "p11"}},
  {"25 puts grow the table to 64", {"+key-0", "+key-1", "+key-2", "+key-3", "+key-4", "+key-5", "+key-6", "+key-7", "+key-8", "+key-9", "+key-10", "+key-11", "+key-12", "+key-13", "+key-14", "+key-15", "+key-16", "+key-17", "+key-18", "+key-19", "+key-20", "+key-21", "+key-22", "+key-23", "+key-24"}, {"key-18", "key-17", "key-19", "key-14", "key-13", "key-16", "key-15", "key-1", "key-10", "key-0", "key-12", "key-11", "key-5", "key-4", "key-3", "key-2", "key-9", "key-8", "key-7", "key-6", "key-24", "key-21", "key-20", "key-23", "key-22"}},
  {"colliding keys", {"+BB", "+Aa", "+AaAa", "+BBBB", "+AaBB", "-Aa", "+Aa"}, {"BB", "Aa", "AaAa", "BBBB", "AaBB"}},
  {"8 keys in one bucket: no resize", {"+c3", "+c20", "+c31", "+c42", "+c53", "+c64", "+c75", "+c86"}, {"c3", "c20", "c31", "c42", "c53", "c64", "c75", "c86"}},
  {"a 9th key in one bucket resizes the table", {"+c3", "+c20", "+c31", "+c42", "+c53", "+c64", "+c75", "+c86", "+c97"}, {"c20", "c31", "c42", "c53", "c64", "c75", "c86", "c97", "c3"}},
  {"non-ASCII keys hash as UTF-16", {"+über", "+中文", "+emoji😀", "+plain"}, {"中文", "plain", "über", "emoji😀"}},
};

std::vector<std::string> run(const std::vector<std::string>& ops, JavaStringMap& map) {
  for (const auto& op : ops) {
    std::string_view key = std::string_view(op).substr(1);
    if (op[0] == '+') map.put(key, key);
    else map.remove(key);
  }
  std::vector<std::string> keys;
  for (auto k : map.keys()) keys.emplace_back(k);
  return keys;
}
}  // namespace

TEST_CASE("java string map: iteration order equals the JDK's HashMap after the same puts and removes") {
  for (const auto& v : kJdkVectors) {
    CAPTURE(v.name);
    JavaStringMap map;
    CHECK(run(v.ops, map) == v.keys);
  }
}

TEST_CASE("java string map: table size grows at 0.75 load and for a 9th key in one bucket, never shrinks") {
  JavaStringMap map;
  CHECK(map.capacity() == 0);
  std::vector<std::string> keys;
  for (int i = 0; i < 25; ++i) keys.push_back("key-" + std::to_string(i));
  for (int i = 0; i < 12; ++i) map.put(keys[i], "v");
  CHECK(map.capacity() == 16);
  map.put(keys[12], "v");
  CHECK(map.capacity() == 32);
  for (int i = 0; i < 13; ++i) map.remove(keys[i]);
  CHECK(map.size() == 0);
  CHECK(map.capacity() == 32);
  for (int i = 0; i < 25; ++i) map.put(keys[i], "v");
  CHECK(map.capacity() == 64);
  map.clear();
  CHECK(map.capacity() == 0);
  // The JDK vector "a 9th key in one bucket resizes the table" with its keys: 9 puts, 32 buckets.
  for (const char* k : {"c3", "c20", "c31", "c42", "c53", "c64", "c75", "c86"}) map.put(k, "v");
  CHECK(map.capacity() == 16);
  map.put("c97", "v");
  CHECK(map.capacity() == 32);
}

TEST_CASE("java string map: put keeps an existing key's place and takes its new value; get and remove") {
  JavaStringMap map;
  map.put("TAGS", "a");
  map.put("KEYS", "k");
  map.put("TAGS", "b");
  CHECK(map.size() == 2);
  CHECK(map.get("TAGS") == std::optional<std::string_view>("b"));
  CHECK(map.remove("KEYS") == std::optional<std::string_view>("k"));
  CHECK_FALSE(map.remove("KEYS"));
  CHECK_FALSE(map.get("KEYS"));
}

TEST_CASE("java string map: properties strings parse like string2messageProperties and print like messageProperties2String") {
  JavaStringMap map;
  // Items Java drops: shorter than 3 chars, no key, no value, no 0x01. A repeated key keeps its
  // first place and its last value.
  putEncodedProperties(map, std::string_view("TAGS\x01" "a\x02x\x02\x01vv\x02KEYS\x01\x02junk\x02UNIQ_KEY\x01u\x02TAGS\x01" "b\x02"));
  CHECK(map.size() == 2);
  CHECK(map.get("TAGS") == std::optional<std::string_view>("b"));
  std::string out;
  appendProperties(out, map);
  CHECK(out == std::string("UNIQ_KEY\x01u\x02TAGS\x01" "b"));  // HashMap order, no trailing 0x02
  JavaStringMap empty;
  out.clear();
  appendProperties(out, empty);
  CHECK(out.empty());
}
