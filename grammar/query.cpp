#include "argus/grammar/query.h"

#include "argus/grammar/language.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

namespace argus::grammar {

namespace {

enum class Op { kEq, kMatch, kAnyOf };

// One text predicate of a pattern, e.g. (#any-of? @function.builtin "min" "max").
struct Predicate {
  Op op = Op::kEq;
  bool negated = false;
  uint32_t capture = 0;
  std::optional<uint32_t> other_capture; // #eq? @a @b
  std::vector<std::string> values;       // the string arguments
  std::optional<std::regex> regex;       // #match?
};

// Where in `source` byte `offset` lies, 1-based.
void locate(std::string_view source, uint32_t offset, uint32_t &line, uint32_t &column) {
  line = 1;
  column = 1;
  for (uint32_t i = 0; i < offset && i < source.size(); ++i) {
    if (source[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}

QueryError make_error(std::string_view source, std::string_view label, uint32_t offset,
                      TSQueryError type, std::string_view what) {
  QueryError error;
  error.offset = offset;
  error.type = type;
  locate(source, offset, error.line, error.column);
  std::ostringstream out;
  out << label << ':' << error.line << ':' << error.column << ": " << what;
  error.message = out.str();
  return error;
}

// The token at `offset` in a query source, to quote in an error message.
std::string token_at(std::string_view source, uint32_t offset) {
  if (offset >= source.size()) {
    return "end of input";
  }
  size_t end = offset;
  while (end < source.size() && end - offset < 40 && source[end] != ' ' && source[end] != '\n' &&
         source[end] != ')' && source[end] != '(') {
    ++end;
  }
  if (end == offset) {
    end = offset + 1;
  }
  return "`" + std::string(source.substr(offset, end - offset)) + "`";
}

} // namespace

struct Query::Impl {
  TSQuery *query = nullptr;
  std::string source;
  std::vector<std::vector<Predicate>> predicates;                           // per pattern
  std::vector<std::vector<std::pair<std::string, std::string>>> properties; // per pattern

  ~Impl() {
    if (query != nullptr) {
      ts_query_delete(query);
    }
  }
};

std::string_view query_file_name(QueryKind kind) {
  switch (kind) {
  case QueryKind::kHighlights:
    return "highlights.scm";
  case QueryKind::kLocals:
    return "locals.scm";
  case QueryKind::kFolds:
    return "folds.scm";
  }
  return "";
}

std::filesystem::path query_dir() { return std::filesystem::path(ARGUS_GRAMMAR_QUERY_DIR); }

std::string_view query_error_name(TSQueryError type) {
  switch (type) {
  case TSQueryErrorNone:
    return "none";
  case TSQueryErrorSyntax:
    return "syntax";
  case TSQueryErrorNodeType:
    return "node type";
  case TSQueryErrorField:
    return "field";
  case TSQueryErrorCapture:
    return "capture";
  case TSQueryErrorStructure:
    return "structure";
  case TSQueryErrorLanguage:
    return "language";
  }
  return "unknown";
}

Query::Query(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Query::Query(Query &&) noexcept = default;
Query &Query::operator=(Query &&) noexcept = default;
Query::~Query() = default;

const TSQuery *Query::get() const { return impl_->query; }
const std::string &Query::source() const { return impl_->source; }
uint32_t Query::pattern_count() const { return ts_query_pattern_count(impl_->query); }
uint32_t Query::capture_count() const { return ts_query_capture_count(impl_->query); }

std::string_view Query::capture_name(uint32_t capture_id) const {
  uint32_t length = 0;
  const char *name = ts_query_capture_name_for_id(impl_->query, capture_id, &length);
  return {name, length};
}

std::optional<Query> Query::compile(std::string source, std::string_view label, QueryError *error) {
  auto impl = std::make_unique<Impl>();
  impl->source = std::move(source);
  const std::string &src = impl->source;
  uint32_t offset = 0;
  TSQueryError type = TSQueryErrorNone;
  impl->query =
      ts_query_new(language(), src.data(), static_cast<uint32_t>(src.size()), &offset, &type);
  if (impl->query == nullptr) {
    if (error != nullptr) {
      *error = make_error(src, label, offset, type,
                          "query error (" + std::string(query_error_name(type)) + ") at " +
                              token_at(src, offset));
    }
    return std::nullopt;
  }

  const uint32_t patterns = ts_query_pattern_count(impl->query);
  impl->predicates.resize(patterns);
  impl->properties.resize(patterns);
  for (uint32_t pattern = 0; pattern < patterns; ++pattern) {
    const uint32_t start = ts_query_start_byte_for_pattern(impl->query, pattern);
    auto fail = [&](const std::string &what) {
      if (error != nullptr) {
        *error = make_error(src, label, start, TSQueryErrorNone, what);
      }
    };
    uint32_t count = 0;
    const TSQueryPredicateStep *steps =
        ts_query_predicates_for_pattern(impl->query, pattern, &count);
    uint32_t i = 0;
    while (i < count) {
      // One predicate: a name, its arguments, a Done step.
      std::vector<TSQueryPredicateStep> args;
      const uint32_t first = i;
      for (; i < count && steps[i].type != TSQueryPredicateStepTypeDone; ++i) {
        args.push_back(steps[i]);
      }
      ++i; // the Done step
      if (args.empty() || steps[first].type != TSQueryPredicateStepTypeString) {
        fail("predicate without a name");
        return std::nullopt;
      }
      uint32_t length = 0;
      const char *raw = ts_query_string_value_for_id(impl->query, args[0].value_id, &length);
      const std::string name(raw, length);
      auto string_arg = [&](size_t k) {
        uint32_t n = 0;
        const char *s = ts_query_string_value_for_id(impl->query, args[k].value_id, &n);
        return std::string(s, n);
      };

      if (name == "set!") {
        if (args.size() < 2 || args.size() > 3 || args[1].type != TSQueryPredicateStepTypeString ||
            (args.size() == 3 && args[2].type != TSQueryPredicateStepTypeString)) {
          fail("#set! takes a key and an optional value");
          return std::nullopt;
        }
        impl->properties[pattern].emplace_back(string_arg(1),
                                               args.size() == 3 ? string_arg(2) : "");
        continue;
      }

      Predicate predicate;
      std::string base = name;
      if (base.starts_with("not-")) {
        predicate.negated = true;
        base = base.substr(4);
      }
      if (base == "eq?") {
        predicate.op = Op::kEq;
      } else if (base == "match?") {
        predicate.op = Op::kMatch;
      } else if (base == "any-of?") {
        predicate.op = Op::kAnyOf;
      } else {
        fail("unsupported predicate #" + name +
             " (supported: #eq? #match? #any-of?, their #not- forms, #set!)");
        return std::nullopt;
      }
      if (args.size() < 3 || args[1].type != TSQueryPredicateStepTypeCapture) {
        fail("#" + name + " needs a capture and at least one argument");
        return std::nullopt;
      }
      predicate.capture = args[1].value_id;
      if (predicate.op == Op::kEq && args.size() == 3 &&
          args[2].type == TSQueryPredicateStepTypeCapture) {
        predicate.other_capture = args[2].value_id;
      } else {
        for (size_t k = 2; k < args.size(); ++k) {
          if (args[k].type != TSQueryPredicateStepTypeString) {
            fail("#" + name + " expects string arguments after the capture");
            return std::nullopt;
          }
          predicate.values.push_back(string_arg(k));
        }
        if (predicate.op != Op::kAnyOf && predicate.values.size() != 1) {
          fail("#" + name + " takes exactly one string");
          return std::nullopt;
        }
      }
      if (predicate.op == Op::kMatch) {
        try {
          predicate.regex.emplace(predicate.values[0], std::regex::ECMAScript);
        } catch (const std::regex_error &e) {
          fail("#" + name + ": invalid regex \"" + predicate.values[0] + "\": " + e.what());
          return std::nullopt;
        }
      }
      impl->predicates[pattern].push_back(std::move(predicate));
    }
  }
  return Query(std::move(impl));
}

std::optional<Query> Query::load(QueryKind kind, QueryError *error) {
  const std::filesystem::path path = query_dir() / query_file_name(kind);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error != nullptr) {
      *error = QueryError{};
      error->message = path.string() + ": cannot read the query file";
    }
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return compile(text.str(), query_file_name(kind), error);
}

std::string_view node_text(TSNode node, std::string_view text) {
  const uint32_t start = ts_node_start_byte(node);
  const uint32_t end = ts_node_end_byte(node);
  if (start > text.size() || end > text.size() || end < start) {
    return {};
  }
  return text.substr(start, end - start);
}

std::vector<QueryMatch> Query::matches(TSNode node, std::string_view text) const {
  std::vector<QueryMatch> result;
  TSQueryCursor *cursor = ts_query_cursor_new();
  ts_query_cursor_exec(cursor, impl_->query, node);
  TSQueryMatch match;
  while (ts_query_cursor_next_match(cursor, &match)) {
    auto nodes_of = [&](uint32_t capture) {
      std::vector<TSNode> nodes;
      for (uint16_t k = 0; k < match.capture_count; ++k) {
        if (match.captures[k].index == capture) {
          nodes.push_back(match.captures[k].node);
        }
      }
      return nodes;
    };
    bool holds = true;
    for (const Predicate &predicate : impl_->predicates[match.pattern_index]) {
      for (TSNode captured : nodes_of(predicate.capture)) {
        const std::string_view value = node_text(captured, text);
        bool ok = false;
        switch (predicate.op) {
        case Op::kEq:
          if (predicate.other_capture) {
            const std::vector<TSNode> others = nodes_of(*predicate.other_capture);
            ok = !others.empty() && node_text(others.front(), text) == value;
          } else {
            ok = value == predicate.values[0];
          }
          break;
        case Op::kMatch:
          ok = std::regex_search(value.begin(), value.end(), *predicate.regex);
          break;
        case Op::kAnyOf:
          ok = std::find(predicate.values.begin(), predicate.values.end(), value) !=
               predicate.values.end();
          break;
        }
        if (ok == predicate.negated) {
          holds = false;
          break;
        }
      }
      if (!holds) {
        break;
      }
    }
    if (!holds) {
      continue;
    }
    QueryMatch out;
    out.pattern_index = match.pattern_index;
    out.properties = impl_->properties[match.pattern_index];
    for (uint16_t k = 0; k < match.capture_count; ++k) {
      out.captures.push_back(QueryCapture{capture_name(match.captures[k].index),
                                          match.captures[k].node, match.pattern_index});
    }
    result.push_back(std::move(out));
  }
  ts_query_cursor_delete(cursor);
  return result;
}

std::vector<QueryCapture> Query::captures(TSNode node, std::string_view text) const {
  // (capture, position in match order): the position breaks ties, so the order is total and
  // std::sort gives the stable order.
  std::vector<std::pair<QueryCapture, size_t>> ordered;
  for (QueryMatch &match : matches(node, text)) {
    for (QueryCapture &capture : match.captures) {
      ordered.emplace_back(capture, ordered.size());
    }
  }
  std::sort(ordered.begin(), ordered.end(), [](const auto &x, const auto &y) {
    const QueryCapture &a = x.first;
    const QueryCapture &b = y.first;
    const uint32_t sa = ts_node_start_byte(a.node);
    const uint32_t sb = ts_node_start_byte(b.node);
    if (sa != sb) {
      return sa < sb;
    }
    const uint32_t ea = ts_node_end_byte(a.node);
    const uint32_t eb = ts_node_end_byte(b.node);
    if (ea != eb) {
      return ea > eb; // outer nodes first
    }
    if (a.pattern_index != b.pattern_index) {
      return a.pattern_index < b.pattern_index;
    }
    return x.second < y.second;
  });
  std::vector<QueryCapture> result;
  result.reserve(ordered.size());
  for (auto &[capture, position] : ordered) {
    result.push_back(capture);
  }
  return result;
}

} // namespace argus::grammar
