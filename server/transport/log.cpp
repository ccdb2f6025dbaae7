#include "argus/server/log.h"

namespace argus::server {

std::optional<LogLevel> parse_log_level(std::string_view name) {
  if (name == "error")
    return LogLevel::Error;
  if (name == "info")
    return LogLevel::Info;
  if (name == "debug")
    return LogLevel::Debug;
  return std::nullopt;
}

void Logger::write(LogLevel level, std::string_view tag, std::string_view message) {
  if (!enabled(level))
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  *out_ << tag << " argus-lsp: " << message << '\n';
  out_->flush();
}

} // namespace argus::server
