#pragma once
// Process-wide logger: level + timestamp + thread, to stderr and (once openFile is called) to a
// log file such as <logDir>/broker.log. Thread-safe; one write per line.
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace rmq::log {

enum class Level { Debug = 0, Info = 1, Warn = 2, Error = 3 };

void setLevel(Level level);
Level level();
bool parseLevel(std::string_view name, Level& out);
// Opens (appends to) the log file; returns false with errno set when it cannot be opened.
bool openFile(const std::string& path);
void write(Level level, std::string_view line);

template <class... Args>
void debug(fmt::format_string<Args...> f, Args&&... args) {
  if (level() <= Level::Debug) write(Level::Debug, fmt::format(f, std::forward<Args>(args)...));
}
template <class... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
  if (level() <= Level::Info) write(Level::Info, fmt::format(f, std::forward<Args>(args)...));
}
template <class... Args>
void warn(fmt::format_string<Args...> f, Args&&... args) {
  if (level() <= Level::Warn) write(Level::Warn, fmt::format(f, std::forward<Args>(args)...));
}
template <class... Args>
void error(fmt::format_string<Args...> f, Args&&... args) {
  write(Level::Error, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace rmq::log
