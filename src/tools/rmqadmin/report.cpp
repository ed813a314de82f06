#include "tools/rmqadmin/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "common/json.h"

namespace rmq::admin {

Cell::Cell(double v, int decimals) : text(fmt::format("{:.{}f}", v, decimals)), numeric(true) {}

std::string Table::text() const {
  std::vector<size_t> width(columns_.size(), 0);
  for (size_t c = 0; c < columns_.size(); ++c) width[c] = columns_[c].size();
  for (auto& r : rows_)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].text.size());
  auto emit = [&](auto&& cellText, size_t n, std::string& out) {
    for (size_t c = 0; c < n; ++c) {
      const std::string& t = cellText(c);
      out += t;
      if (c + 1 < n) out.append(width[c] - t.size() + 2, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  };
  std::string out;
  emit([&](size_t c) -> const std::string& { return columns_[c]; }, columns_.size(), out);
  for (auto& r : rows_) {
    std::string line;
    emit([&](size_t c) -> const std::string& { return r[c].text; }, std::min(r.size(), columns_.size()), line);
    out += line;
  }
  return out;
}

std::string Table::json() const {
  std::string out = "[";
  for (size_t i = 0; i < rows_.size(); ++i) {
    out += i ? ",{" : "{";
    for (size_t c = 0; c < columns_.size() && c < rows_[i].size(); ++c) {
      if (c) out += ',';
      json::appendQuoted(out, columns_[c]);
      out += ':';
      if (rows_[i][c].numeric) out += rows_[i][c].text;
      else json::appendQuoted(out, rows_[i][c].text);
    }
    out += '}';
  }
  return out + "]";
}

void Report::line(std::string text) { sections_.push_back({Kind::Line, "messages", std::move(text), {}, {}, 0, true}); }

Table& Report::table(std::string name, std::vector<std::string> columns) {
  tables_.emplace_back(std::move(columns));
  sections_.push_back({Kind::Table, std::move(name), {}, {}, {}, tables_.size() - 1, true});
  return tables_.back();
}

void Report::kv(std::string name, std::vector<std::pair<std::string, std::string>> items, std::string sep,
                bool align) {
  sections_.push_back({Kind::Kv, std::move(name), {}, std::move(items), std::move(sep), 0, align});
}

void Report::json(std::string name, std::string jsonText) {
  sections_.push_back({Kind::Json, std::move(name), std::move(jsonText), {}, {}, 0, true});
}

void Report::print(bool asJson) const {
  std::string out;
  if (!asJson) {
    for (auto& s : sections_) {
      switch (s.kind) {
        case Kind::Line: out += s.text + "\n"; break;
        case Kind::Table: out += tables_[s.table].text(); break;
        case Kind::Json: out += prettyJson(s.text) + "\n"; break;
        case Kind::Kv: {
          size_t w = 0;
          if (s.align)
            for (auto& [k, v] : s.items) w = std::max(w, k.size());
          for (auto& [k, v] : s.items) out += fmt::format("{:<{}}{}{}\n", k, w, s.sep, v);
          break;
        }
      }
    }
  } else {
    out = "{";
    bool first = true;
    auto key = [&](const std::string& k) {
      if (!first) out += ',';
      first = false;
      json::appendQuoted(out, k);
      out += ':';
    };
    std::vector<std::string> lines;
    for (auto& s : sections_) {
      switch (s.kind) {
        case Kind::Line: lines.push_back(s.text); break;
        case Kind::Table: key(s.name); out += tables_[s.table].json(); break;
        case Kind::Json: key(s.name); out += s.text.empty() ? "null" : s.text; break;
        case Kind::Kv: {
          key(s.name);
          out += '{';
          for (size_t i = 0; i < s.items.size(); ++i) {
            if (i) out += ',';
            json::appendQuoted(out, s.items[i].first);
            out += ':';
            json::appendQuoted(out, s.items[i].second);
          }
          out += '}';
          break;
        }
      }
    }
    if (!lines.empty()) {
      key("messages");
      out += '[';
      for (size_t i = 0; i < lines.size(); ++i) {
        if (i) out += ',';
        json::appendQuoted(out, lines[i]);
      }
      out += ']';
    }
    out += "}\n";
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

std::string prettyJson(const std::string& text) {
  std::string out;
  int depth = 0;
  bool inString = false;
  auto newline = [&] { out += '\n'; out.append(static_cast<size_t>(depth) * 2, ' '); };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') inString = false;
      continue;
    }
    switch (c) {
      case '"': inString = true; out += c; break;
      case '{': case '[':
        out += c;
        if (i + 1 < text.size() && (text[i + 1] == '}' || text[i + 1] == ']')) { out += text[++i]; break; }
        ++depth; newline(); break;
      case '}': case ']': --depth; newline(); out += c; break;
      case ',': out += c; newline(); break;
      case ':': out += ": "; break;
      case ' ': case '\n': case '\t': case '\r': break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace rmq::admin
