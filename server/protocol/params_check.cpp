// The params table of params_check.h.
#include "params_check.h"

#include <array>
#include <vector>

namespace argus::server::detail {

namespace {

using nlohmann::json;

enum class Want { String, Unsigned, Integer, Object, Array, Position, Range };

struct Field {
  std::string_view path; // "textDocument.uri"
  Want want;
  bool optional = false;
};

std::string_view type_name(const json &value) {
  switch (value.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::string:
    return "a string";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return "an integer";
  case json::value_t::number_float:
    return "a number with a fraction";
  case json::value_t::array:
    return "an array";
  case json::value_t::object:
    return "an object";
  default:
    return "a value of another type";
  }
}

std::string got(const json &value) {
  std::string text = value.dump();
  if (text.size() > 40)
    text = text.substr(0, 40) + "...";
  return std::string(type_name(value)) + " (" + text + ")";
}

std::optional<std::string> check(const json &value, Want want, const std::string &where);

std::optional<std::string> check_position(const json &value, const std::string &where) {
  if (!value.is_object())
    return where + ": expected a position {line, character}, got " + got(value);
  for (const char *key : {"line", "character"}) {
    if (!value.contains(key))
      return where + "." + key + ": missing";
    if (auto e = check(value[key], Want::Unsigned, where + "." + key))
      return e;
  }
  return std::nullopt;
}

std::optional<std::string> check(const json &value, Want want, const std::string &where) {
  switch (want) {
  case Want::String:
    if (!value.is_string())
      return where + ": expected a string, got " + got(value);
    break;
  case Want::Unsigned:
    if (!value.is_number_integer() || value.get<int64_t>() < 0 ||
        value.get<int64_t>() > int64_t{UINT32_MAX})
      return where + ": expected an unsigned integer, got " + got(value);
    break;
  case Want::Integer:
    if (!value.is_number_integer())
      return where + ": expected an integer, got " + got(value);
    break;
  case Want::Object:
    if (!value.is_object())
      return where + ": expected an object, got " + got(value);
    break;
  case Want::Array:
    if (!value.is_array())
      return where + ": expected an array, got " + got(value);
    break;
  case Want::Position:
    return check_position(value, where);
  case Want::Range:
    if (!value.is_object())
      return where + ": expected a range {start, end}, got " + got(value);
    for (const char *key : {"start", "end"}) {
      if (!value.contains(key))
        return where + "." + key + ": missing";
      if (auto e = check_position(value[key], where + "." + key))
        return e;
    }
    break;
  }
  return std::nullopt;
}

struct MethodFields {
  std::string_view method;
  std::vector<Field> fields;
};

const std::vector<MethodFields> &table() {
  static const Field uri{"textDocument.uri", Want::String};
  static const Field position{"position", Want::Position};
  static const std::vector<MethodFields> methods = {
      {"textDocument/didOpen",
       {{"textDocument.uri", Want::String},
        {"textDocument.text", Want::String},
        {"textDocument.version", Want::Integer, true}}},
      {"textDocument/didChange",
       {uri, {"textDocument.version", Want::Integer, true}, {"contentChanges", Want::Array}}},
      {"textDocument/didClose", {uri}},
      {"textDocument/didSave", {uri, {"text", Want::String, true}}},
      {"textDocument/hover", {uri, position}},
      {"textDocument/definition", {uri, position}},
      {"textDocument/references", {uri, position}},
      {"textDocument/prepareRename", {uri, position}},
      {"textDocument/rename", {uri, position, {"newName", Want::String}}},
      {"textDocument/completion", {uri, position}},
      {"textDocument/signatureHelp", {uri, position}},
      {"textDocument/documentSymbol", {uri}},
      {"textDocument/diagnostic", {uri, {"previousResultId", Want::String, true}}},
      {"textDocument/codeAction", {uri, {"range", Want::Range}}},
      {"textDocument/inlayHint", {uri, {"range", Want::Range}}},
      {"textDocument/semanticTokens/full", {uri}},
      {"textDocument/semanticTokens/full/delta", {uri, {"previousResultId", Want::String}}},
      {"textDocument/semanticTokens/range", {uri, {"range", Want::Range}}},
      {"workspace/executeCommand", {{"command", Want::String}, {"arguments", Want::Array, true}}},
      {"workspace/diagnostic", {{"previousResultIds", Want::Array, true}}},
  };
  return methods;
}

} // namespace

std::optional<std::string> invalid_params(std::string_view method, const json &params) {
  for (const MethodFields &entry : table()) {
    if (entry.method != method)
      continue;
    if (!params.is_object())
      return "params: expected an object, got " + got(params);
    for (const Field &field : entry.fields) {
      const json *value = &params;
      std::string where = "params";
      std::string_view rest = field.path;
      bool missing = false;
      while (!rest.empty()) {
        const size_t dot = rest.find('.');
        const std::string key(rest.substr(0, dot));
        rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
        if (!value->is_object())
          return where + ": expected an object, got " + got(*value);
        where += "." + key;
        if (!value->contains(key)) {
          missing = true;
          break;
        }
        value = &(*value)[key];
      }
      if (missing) {
        if (field.optional)
          continue;
        return where + ": missing";
      }
      if (auto e = check(*value, field.want, where))
        return e;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::string plain_json_error(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    const size_t close = what.find("] ");
    if (close != std::string_view::npos)
      what.remove_prefix(close + 2);
  }
  return std::string(what);
}

} // namespace argus::server::detail
