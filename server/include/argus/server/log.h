// Logging of the language server: to stderr (or any stream), never stdout,
// which carries the protocol alone.
#pragma once

#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace argus::server {

enum class LogLevel { Error = 0, Info = 1, Debug = 2 };

std::optional<LogLevel> parse_log_level(std::string_view name);

// A line-oriented logger; thread-safe (workers log too), one line per call.
class Logger {
public:
  Logger(std::ostream &out, LogLevel level) : out_(&out), level_(level) {}

  void error(std::string_view message) { write(LogLevel::Error, "E", message); }
  void info(std::string_view message) { write(LogLevel::Info, "I", message); }
  void debug(std::string_view message) { write(LogLevel::Debug, "D", message); }
  bool enabled(LogLevel level) const { return level <= level_; }

private:
  void write(LogLevel level, std::string_view tag, std::string_view message);

  std::mutex mutex_;
  std::ostream *out_;
  LogLevel level_;
};

} // namespace argus::server
