#include "metrics/text_writer.h"

#include <cmath>
#include <fmt/format.h>

namespace rmq::metrics {

void TextWriter::appendLabelValue(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}

void TextWriter::appendHelp(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
}

std::string TextWriter::formatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

void TextWriter::family(std::string_view name, std::string_view help, std::string_view type) {
  if (declared_.count(name)) return;
  declared_.emplace(name);
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  appendHelp(out_, help);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

void TextWriter::line(std::string_view name, const Label* labels, size_t n, const Label* extra, double value) {
  out_ += name;
  if (n > 0 || extra) {
    out_ += '{';
    bool first = true;
    auto add = [&](const Label& l) {
      if (!first) out_ += ',';
      first = false;
      out_ += l.first;
      out_ += "=\"";
      appendLabelValue(out_, l.second);
      out_ += '"';
    };
    for (size_t i = 0; i < n; ++i) add(labels[i]);
    if (extra) add(*extra);
    out_ += '}';
  }
  out_ += ' ';
  out_ += formatValue(value);
  out_ += '\n';
}

void TextWriter::sample(std::string_view name, std::initializer_list<Label> labels, double value) {
  line(name, labels.begin(), labels.size(), nullptr, value);
}

void TextWriter::sample(std::string_view name, const LabelList& labels, double value) {
  line(name, labels.data(), labels.size(), nullptr, value);
}

void TextWriter::histogramSamples(std::string_view name, const LabelList& labels, const Histogram::Snapshot& s) {
  std::string bucket = std::string(name) + "_bucket";
  for (size_t i = 0; i < s.cumulative.size(); ++i) {
    std::string le = i < s.upperBounds.size() ? formatValue(s.upperBounds[i]) : "+Inf";
    Label extra{"le", le};
    line(bucket, labels.data(), labels.size(), &extra, static_cast<double>(s.cumulative[i]));
  }
  line(std::string(name) + "_sum", labels.data(), labels.size(), nullptr, s.sum);
  line(std::string(name) + "_count", labels.data(), labels.size(), nullptr, static_cast<double>(s.count));
}

void TextWriter::histogram(std::string_view name, std::string_view help, const LabelList& labels,
                           const Histogram::Snapshot& s) {
  family(name, help, "histogram");
  histogramSamples(name, labels, s);
}

}  // namespace rmq::metrics
