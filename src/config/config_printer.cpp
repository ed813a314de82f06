#include "config/config_printer.h"

#include <fmt/format.h>

#include <cmath>

namespace rmq::config {
std::string tomlDouble(double d) {
  auto s = fmt::format("{}", d);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep it a TOML float
  return s;
}

namespace {

class TomlPrinter : public FieldVisitor {
 public:
  explicit TomlPrinter(std::string& out) : out_(out) {}
  void field(const FieldInfo& f, bool& v) override { emit(f, v ? "true" : "false"); }
  void field(const FieldInfo& f, int32_t& v) override { emit(f, std::to_string(v)); }
  void field(const FieldInfo& f, int64_t& v) override { emit(f, std::to_string(v)); }
  void field(const FieldInfo& f, double& v) override { emit(f, tomlDouble(v)); }
  void field(const FieldInfo& f, std::string& v) override { emit(f, tomlQuote(v)); }

 private:
  void emit(const FieldInfo& f, const std::string& literal) {
    if (!f.description.empty()) out_ += fmt::format("# {}\n", f.description);
    if (f.min && f.max) out_ += fmt::format("# range: {} .. {}\n", *f.min, *f.max);
    else if (f.min) out_ += fmt::format("# minimum: {}\n", *f.min);
    else if (f.max) out_ += fmt::format("# maximum: {}\n", *f.max);
    if (!f.choices.empty()) out_ += fmt::format("# one of: {}\n", fmt::join(f.choices, ", "));
    // A dotted name (tls.server.mode) is quoted: bare, TOML would read it as nested tables.
    if (f.name.find('.') != std::string_view::npos) out_ += fmt::format("\"{}\" = {}\n\n", f.name, literal);
    else out_ += fmt::format("{} = {}\n\n", f.name, literal);
  }
  std::string& out_;
};

// The fields of Java 4.9.8's BrokerConfig and MessageStoreConfig annotated @ImportantField, which
// `mqbroker -m` prints (MixAll.printObjectProperties(..., true)); the name server has none.
bool isImportant(std::string_view key) {
  static constexpr std::string_view kImportant[] = {
      "namesrvAddr", "brokerIP1", "brokerName", "brokerClusterName", "brokerId", "autoCreateTopicEnable",
      "autoCreateSubscriptionGroup", "msgTraceTopicName", "traceTopicEnable", "rejectTransactionMessage",
      "fetchNamesrvAddrByAddressServer", "transactionTimeOut", "transactionCheckMax", "transactionCheckInterval",
      "aclEnable", "storePathRootDir", "storePathCommitLog", "flushIntervalCommitLog", "deleteWhen",
      "fileReservedTime", "maxTransferBytesOnMessageInMemory", "maxTransferCountOnMessageInMemory",
      "maxTransferBytesOnMessageInDisk", "maxTransferCountOnMessageInDisk", "accessMessageInMemoryMaxRatio",
      "messageIndexEnable", "messageIndexSafe", "haMasterAddress", "brokerRole", "flushDiskType",
      "cleanFileForciblyEnable", "transientStorePoolEnable"};
  for (auto k : kImportant)
    if (k == key) return true;
  return false;
}

class PropertiesPrinter : public FieldVisitor {
 public:
  explicit PropertiesPrinter(std::string& out, bool importantOnly = false) : out_(out), importantOnly_(importantOnly) {}
  void field(const FieldInfo& f, bool& v) override { emit(f, v ? "true" : "false"); }
  void field(const FieldInfo& f, int32_t& v) override { emit(f, std::to_string(v)); }
  void field(const FieldInfo& f, int64_t& v) override { emit(f, std::to_string(v)); }
  void field(const FieldInfo& f, double& v) override { emit(f, fmt::format("{}", v)); }
  void field(const FieldInfo& f, std::string& v) override { emit(f, v); }

 private:
  void emit(const FieldInfo& f, std::string_view value) {
    if (!importantOnly_ || isImportant(f.name)) out_ += fmt::format("{}={}\n", f.name, value);
  }
  std::string& out_;
  bool importantOnly_;
};

}  // namespace

std::string tomlQuote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7F) out += fmt::format("\\u{:04X}", c);
        else out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string renderToml(const std::vector<ConfigSection>& sections) {
  std::string out;
  for (auto& s : sections) {
    out += fmt::format("[{}]\n\n", s.title);
    TomlPrinter p(out);
    s.visit(p);
  }
  return out;
}

std::string renderApplyReport(const ApplyReport& report, const std::string& source) {
  std::string out = fmt::format("# config file: {}\n", source);
  out += fmt::format("# taken ({} keys): {}\n", report.written.size(),
                     report.written.empty() ? "none" : fmt::format("{}", fmt::join(report.written, ", ")));
  for (const auto& c : report.clamped) out += fmt::format("# clamped: {}\n", c);
  if (report.ignored.empty()) return out + "# ignored: none\n";
  out += fmt::format("# ignored ({} keys, accepted as Apache RocketMQ does, no effect in rmqnode):\n",
                     report.ignored.size());
  for (const auto& i : report.ignored) {
    out += fmt::format("#   {}{}: {}\n", i.key, i.origin.empty() ? "" : " (" + i.origin + ")", i.reason);
  }
  return out;
}

std::string renderProperties(const std::vector<ConfigSection>& sections) {
  std::string out;
  PropertiesPrinter p(out);
  for (auto& s : sections) s.visit(p);
  return out;
}

std::string renderImportantProperties(const std::vector<ConfigSection>& sections) {
  std::string out;
  PropertiesPrinter p(out, true);
  for (auto& s : sections) s.visit(p);
  return out;
}

}  // namespace rmq::config
