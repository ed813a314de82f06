#pragma once
// Report: what an rmqadmin verb prints, built first and printed once, either as text (aligned
// tables like mqadmin, "key : value" blocks, plain lines) or as one JSON object (--json) whose
// members are the report's sections in order:
//   message lines  -> "messages": ["...", ...]
//   table "rows"   -> "rows": [{"#Topic": "T", "#QID": 0, ...}, ...]   (numeric cells unquoted)
//   kv "config"    -> "config": {"key": "value", ...}
//   json "route"   -> "route": <the JSON text as is>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rmq::admin {

struct Cell {
  std::string text;
  bool numeric = false;
  Cell(std::string s) : text(std::move(s)) {}
  Cell(const char* s) : text(s) {}
  Cell(int64_t v) : text(std::to_string(v)), numeric(true) {}
  Cell(int32_t v) : text(std::to_string(v)), numeric(true) {}
  Cell(uint64_t v) : text(std::to_string(v)), numeric(true) {}
  Cell(double v, int decimals);
};

class Table {
 public:
  explicit Table(std::vector<std::string> columns) : columns_(std::move(columns)) {}
  void add(std::vector<Cell> row) { rows_.push_back(std::move(row)); }
  size_t size() const { return rows_.size(); }
  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }
  std::string text() const;  // header + rows, columns padded to their widest cell
  std::string json() const;

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> rows_;
};

class Report {
 public:
  void line(std::string text);
  Table& table(std::string name, std::vector<std::string> columns);
  // align: pad keys to the longest one (brokerStatus); false prints "key<sep>value" as is.
  void kv(std::string name, std::vector<std::pair<std::string, std::string>> items, std::string sep = " : ",
          bool align = true);
  void json(std::string name, std::string jsonText);  // text mode pretty-prints it
  // Prints to stdout in the chosen form.
  void print(bool asJson) const;

 private:
  enum class Kind { Line, Table, Kv, Json };
  struct Section {
    Kind kind;
    std::string name;
    std::string text;  // Line / Json
    std::vector<std::pair<std::string, std::string>> items;
    std::string sep;
    size_t table = 0;
    bool align = true;
  };
  std::vector<Section> sections_;
  std::vector<Table> tables_;
};

// JSON text re-indented with two spaces (for topicRoute etc. in text mode).
std::string prettyJson(const std::string& jsonText);

}  // namespace rmq::admin
