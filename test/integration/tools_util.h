#pragma once
// Helpers for the rmqadmin / rmqbench integration tests: run a tool binary against a DevNode
// (dev_node.h) and read its --json output.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "dev_node.h"
#include "common/json.h"
#include "node_process.h"

namespace rmq::test::tools {

// Runs `binary args...` to completion (30 s at most) and returns exit code and output.
inline RunResult runTool(const std::string& binary, const std::vector<std::string>& args,
                         std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  NodeProcess tool(binary);
  return tool.run(args, timeout);
}

// rmqadmin <verb> -n <namesrv> args...
inline RunResult admin(const DevNode& node, const std::string& verb, std::vector<std::string> args = {}) {
  args.insert(args.begin(), {verb, "-n", node.namesrvAddr});
  return runTool(RMQADMIN_BIN, args);
}

inline std::string describe(const RunResult& r) {
  return "exit " + std::to_string(r.exitCode) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

// rmqadmin <verb> ... --json, REQUIRE exit 0 and a JSON object on stdout.
inline rapidjson::Document adminJson(const DevNode& node, const std::string& verb, std::vector<std::string> args = {}) {
  args.push_back("--json");
  auto r = admin(node, verb, std::move(args));
  REQUIRE_MESSAGE(r.exitCode == 0, (describe(r)));
  rapidjson::Document doc;
  auto parsed = json::parse(r.out, doc);
  REQUIRE_MESSAGE(parsed.ok(), ("not JSON: " + r.out));
  REQUIRE(doc.IsObject());
  return doc;
}

// Rows of a table member ("rows": [{"#Col": value}, ...]).
inline const rapidjson::Value& rows(const rapidjson::Document& doc, const char* name) {
  REQUIRE_MESSAGE(doc.HasMember(name), (std::string("no member ") + name + " in " + json::toString(doc)));
  REQUIRE(doc[name].IsArray());
  return doc[name];
}

inline std::string str(const rapidjson::Value& row, const char* col) {
  REQUIRE_MESSAGE(row.HasMember(col), (std::string("no column ") + col + " in " + json::toString(row)));
  return row[col].IsString() ? row[col].GetString() : json::toString(row[col]);
}

inline int64_t num(const rapidjson::Value& row, const char* col) {
  REQUIRE_MESSAGE(row.HasMember(col), (std::string("no column ") + col + " in " + json::toString(row)));
  REQUIRE_MESSAGE(row[col].IsInt64(), (std::string("column ") + col + " not an integer in " + json::toString(row)));
  return row[col].GetInt64();
}

}  // namespace rmq::test::tools
