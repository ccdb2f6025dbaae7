#include "argus/cli/diagnostic_json.h"

#include "argus/server/lsp_diagnostic.h"

#include <filesystem>

namespace argus::cli {

std::optional<ColumnUnit> parse_position_encoding(std::string_view name) {
  if (name == "utf-16")
    return ColumnUnit::Utf16CodeUnits;
  if (name == "utf-8")
    return ColumnUnit::Utf8Bytes;
  if (name == "utf-32")
    return ColumnUnit::CodePoints;
  return std::nullopt;
}

std::string_view position_encoding_name(ColumnUnit unit) {
  switch (unit) {
  case ColumnUnit::Utf16CodeUnits:
    return "utf-16";
  case ColumnUnit::Utf8Bytes:
    return "utf-8";
  case ColumnUnit::CodePoints:
    return "utf-32";
  }
  return "utf-16";
}

std::string percent_encode_path(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                            (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' ||
                            c == '~' || c == '/';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

std::string file_uri(std::string_view path) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(std::filesystem::path(path), ec);
  const std::string full = ec ? std::string(path) : absolute.lexically_normal().string();
  return std::string(full.empty() || full.front() != '/' ? "file:///" : "file://") +
         percent_encode_path(full);
}

nlohmann::json lsp_range(const SourceFile &source, Range range, ColumnUnit unit) {
  return server::lsp_range(source, range, unit);
}

nlohmann::json lsp_diagnostic(const SourceFile &source, const Diagnostic &diagnostic,
                              const std::string &uri, ColumnUnit unit) {
  return server::lsp_diagnostic(source, diagnostic, uri, unit);
}

nlohmann::json checked_file_json(const SourceFile &source,
                                 const std::vector<Diagnostic> &diagnostics, ColumnUnit unit) {
  const std::string uri = file_uri(source.path());
  nlohmann::json list = nlohmann::json::array();
  for (const Diagnostic &diagnostic : diagnostics)
    list.push_back(lsp_diagnostic(source, diagnostic, uri, unit));
  return nlohmann::json{{"path", source.path()}, {"uri", uri}, {"diagnostics", std::move(list)}};
}

nlohmann::json unreadable_file_json(const std::string &path, const std::string &error) {
  return nlohmann::json{{"path", path},
                        {"uri", file_uri(path)},
                        {"error", error},
                        {"diagnostics", nlohmann::json::array()}};
}

std::string dump_json(const nlohmann::json &value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace argus::cli
