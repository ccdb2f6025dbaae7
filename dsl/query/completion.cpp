// Completion and signature help: the context from the text before the
// position, the candidates from the builtin table, the language names and
// the symbols sema resolved.
#include "argus/dsl/completion.h"

#include "query_support.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace argus {

namespace {

using query::LanguageName;

bool is_name_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || u >= 0x80;
}

// Whether the end of `before` (the line up to the cursor) lies in a comment
// or an open string literal.
bool in_comment_or_string(std::string_view before) {
  char quote = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    const char c = before[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return true;
    }
  }
  return quote != 0;
}

std::string snippet_of(const std::string &name, const std::vector<std::string> &required,
                       bool has_optional) {
  std::string s = name + "(";
  for (size_t i = 0; i < required.size(); ++i)
    s += (i ? ", " : "") + std::string("${") + std::to_string(i + 1) + ":" + required[i] + "}";
  if (required.empty() && has_optional)
    s += "$1";
  return s + ")";
}

CompletionItem builtin_item(const sema::BuiltinSpec &spec) {
  CompletionItem item;
  item.label = std::string(spec.name);
  item.kind = spec.ns.empty() ? CompletionItem::Kind::Builtin : CompletionItem::Kind::Intrinsic;
  item.detail = query::builtin_signature(spec);
  item.documentation = query::builtin_documentation(spec);
  item.insert_text = item.label;
  std::vector<std::string> required;
  bool optional = false;
  for (const auto &p : spec.params) {
    if (p.optional)
      optional = true;
    else
      required.emplace_back(p.name);
  }
  item.snippet = snippet_of(item.label, required, optional);
  return item;
}

CompletionItem language_item(const LanguageName &n) {
  CompletionItem item;
  item.label = n.name;
  switch (n.kind) {
  case LanguageName::Kind::Dtype:
    item.kind = CompletionItem::Kind::Dtype;
    break;
  case LanguageName::Kind::Namespace:
    item.kind = CompletionItem::Kind::Namespace;
    break;
  case LanguageName::Kind::Constant:
    item.kind = CompletionItem::Kind::Constant;
    break;
  case LanguageName::Kind::Method:
    item.kind = CompletionItem::Kind::Method;
    break;
  case LanguageName::Kind::Iterable:
    item.kind = CompletionItem::Kind::Builtin;
    break;
  case LanguageName::Kind::Keyword:
    item.kind = CompletionItem::Kind::Keyword;
    break;
  }
  item.detail =
      n.signature.empty() ? (n.kind == LanguageName::Kind::Keyword ? "keyword" : "") : n.signature;
  if (!n.doc.empty())
    item.documentation =
        n.signature.empty() ? n.doc : "```python\n" + n.signature + "\n```\n\n" + n.doc;
  item.insert_text = n.name;
  if (!n.signature.empty()) {
    // range and the dtypes: the first parameter is the one always written.
    const std::string first = n.name == "range" ? "stop" : n.params.empty() ? "" : n.params[0];
    item.snippet = snippet_of(
        n.name, first.empty() ? std::vector<std::string>{} : std::vector<std::string>{first},
        false);
  }
  return item;
}

CompletionItem symbol_item(const CheckedFile &file, const ast::Function *enclosing,
                           const sema::Symbol &s) {
  CompletionItem item;
  item.label = s.name;
  item.insert_text = s.name;
  switch (s.kind) {
  case sema::SymbolKind::Constant:
    item.kind = CompletionItem::Kind::Constant;
    break;
  case sema::SymbolKind::Parameter:
    item.kind = CompletionItem::Kind::Parameter;
    break;
  case sema::SymbolKind::LoopVariable:
    item.kind = CompletionItem::Kind::LoopVariable;
    break;
  case sema::SymbolKind::Function:
    item.kind = CompletionItem::Kind::Function;
    break;
  default:
    item.kind = CompletionItem::Kind::Local;
  }
  if (s.kind == sema::SymbolKind::Function && s.function) {
    const auto [sig, doc] = query::signature_and_doc(*file.source, *s.function);
    item.detail = "def " + sig;
    item.documentation = "```python\ndef " + sig + "\n```" + (doc.empty() ? "" : "\n\n" + doc);
    std::vector<std::string> params;
    for (const auto &p : s.function->params)
      params.push_back(p.name);
    item.snippet = snippet_of(s.name, params, false);
    return item;
  }
  item.detail = s.type.str();
  if (s.value)
    item.detail += " = " + std::to_string(*s.value);
  if (s.is_constexpr)
    item.detail += " (constexpr)";
  if (auto layout = query::layout_of_symbol(file, enclosing, s))
    item.documentation = "layout `" + layout->str() + "`";
  return item;
}

// The @kernel decorator whose parentheses hold `p`, if any.
const ast::Decorator *kernel_decorator_at(const ast::Module &module, Position p) {
  for (const auto &f : module.functions)
    for (const auto &d : f.decorators)
      if (d.name == "kernel" && d.expr && d.expr->kind == ast::ExprKind::Call &&
          query::contains(d.range, p) && d.expr->callee().range.end < p)
        return &d;
  return nullptr;
}

} // namespace

std::vector<CompletionItem> complete_at(const CheckedFile &file, Position position) {
  std::vector<CompletionItem> items;
  if (!file.source || !file.sema || position.line >= file.source->line_count())
    return items;
  const std::string_view line = file.source->line(position.line);
  const std::string_view before = line.substr(0, std::min<size_t>(position.column, line.size()));
  if (in_comment_or_string(before))
    return items;
  size_t start = before.size();
  while (start > 0 && is_name_byte(before[start - 1]))
    --start;
  const ast::Function *enclosing = query::function_at(file.module, position);
  const auto symbols = query::visible_symbols(file, position);

  if (start > 0 && before[start - 1] == '.') {
    size_t object_start = start - 1;
    while (object_start > 0 && is_name_byte(before[object_start - 1]))
      --object_start;
    const std::string object(before.substr(object_start, start - 1 - object_start));
    const sema::Symbol *symbol = nullptr;
    for (const sema::Symbol *s : symbols)
      if (s->name == object)
        symbol = s;
    if (!symbol && (object == "nvvm" || object == "amdgpu")) {
      for (const sema::BuiltinSpec &spec : sema::all_builtins())
        if (spec.ns == object)
          items.push_back(builtin_item(spec));
    } else if (symbol && symbol->type.is_tensor()) {
      CompletionItem tile = language_item(query::tile_method());
      tile.detail = symbol->type.str() + "." + query::tile_method().signature;
      items.push_back(std::move(tile));
    }
    return items;
  }
  if (start > 0 && before[start - 1] == '@') {
    const std::pair<const char *, const char *> decorators[] = {
        {"kernel", "@kernel(grid=..., block=..., **policies): a kernel launched from the host."},
        {"device", "@device: a function inlined into its callers."},
        {"bench", "@bench(SIZE=..., reference=..., flops=... or bytes=...): sizes to time the "
                  "kernel below at."}};
    for (const auto &[name, doc] : decorators) {
      CompletionItem item;
      item.label = name;
      item.kind = CompletionItem::Kind::Keyword;
      item.detail = "decorator";
      item.documentation = doc;
      item.insert_text = name;
      items.push_back(std::move(item));
    }
    return items;
  }
  if (kernel_decorator_at(file.module, position)) {
    std::vector<std::string> keys = {"grid", "block"};
    for (std::string_view policy : sema::known_policies())
      keys.emplace_back(policy);
    for (const std::string &key : keys) {
      CompletionItem item;
      item.label = key;
      item.kind = CompletionItem::Kind::Policy;
      item.detail = key == "grid" || key == "block" ? "launch geometry" : "kernel policy";
      item.insert_text = key + "=";
      item.snippet = key + "=$1";
      items.push_back(std::move(item));
    }
    // Values of the geometry are expressions: constants and builtins follow.
  }
  std::set<std::string> seen;
  for (const sema::Symbol *s : symbols) {
    seen.insert(s->name);
    items.push_back(symbol_item(file, enclosing, *s));
  }
  const bool in_kernel = enclosing && enclosing->decorator("kernel");
  for (const sema::BuiltinSpec &spec : sema::all_builtins())
    if (spec.ns.empty() && (!spec.kernel_only || in_kernel) && !seen.count(std::string(spec.name)))
      items.push_back(builtin_item(spec));
  for (const LanguageName &n : query::language_names())
    if (!seen.count(n.name))
      items.push_back(language_item(n));
  return items;
}

namespace {

// One open bracket of the text before the position.
struct Open {
  char bracket = '(';
  size_t offset = 0;
  int commas = 0;
  std::string keyword; // `name=` of the current argument
  size_t argument_start = 0;
};

} // namespace

std::optional<SignatureInfo> signature_help_at(const CheckedFile &file, Position position) {
  if (!file.source || !file.sema)
    return std::nullopt;
  const std::string &text = file.source->text();
  const size_t end = file.source->offset(position);
  // Start at the enclosing top-level item (a call never spans two), else at
  // most 16 KiB back on a line start.
  size_t begin = end > 16384 ? text.rfind('\n', end - 16384) : 0;
  begin = begin == std::string::npos ? 0 : begin;
  for (const auto &f : file.module.functions) {
    Position first = f.range.begin;
    for (const auto &d : f.decorators)
      first = std::min(first, d.range.begin);
    const size_t at = file.source->offset(first);
    if (at <= end && at > begin)
      begin = at > 0 ? at - 1 : 0; // include the '@'
  }
  std::vector<Open> stack;
  for (size_t i = begin; i < end; ++i) {
    const char c = text[i];
    if (c == '#') {
      while (i < end && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      const bool triple = text.compare(i, 3, std::string(3, c)) == 0;
      const std::string quote = triple ? std::string(3, c) : std::string(1, c);
      const size_t close = text.find(quote, i + quote.size());
      if (close == std::string::npos || close >= end)
        return std::nullopt; // inside a string
      i = close + quote.size() - 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      stack.push_back({c, i, 0, "", i + 1});
    } else if (c == ')' || c == ']' || c == '}') {
      if (!stack.empty())
        stack.pop_back();
    } else if (c == ',' && !stack.empty()) {
      ++stack.back().commas;
      stack.back().keyword.clear();
      stack.back().argument_start = i + 1;
    } else if (c == '=' && !stack.empty() && stack.back().bracket == '(') {
      const char prev = i > 0 ? text[i - 1] : ' ';
      const char next = i + 1 < text.size() ? text[i + 1] : ' ';
      if (prev != '=' && prev != '!' && prev != '<' && prev != '>' && next != '=') {
        std::string name(text.substr(stack.back().argument_start, i - stack.back().argument_start));
        name.erase(
            std::remove_if(name.begin(), name.end(),
                           [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); }),
            name.end());
        stack.back().keyword = name;
      }
    }
  }
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    if (it->bracket != '(')
      continue;
    size_t callee_end = it->offset;
    while (callee_end > begin && (text[callee_end - 1] == ' ' || text[callee_end - 1] == '\t'))
      --callee_end;
    size_t callee_start = callee_end;
    while (callee_start > begin &&
           (is_name_byte(text[callee_start - 1]) || text[callee_start - 1] == '.'))
      --callee_start;
    const std::string callee = text.substr(callee_start, callee_end - callee_start);
    if (callee.empty())
      continue; // a parenthesised expression or tuple: look further out
    SignatureInfo info;
    std::vector<std::string> names; // parameter names, to match keywords
    bool variadic = false;
    const size_t dot = callee.find('.');
    const sema::BuiltinSpec *spec =
        dot == std::string::npos
            ? sema::find_builtin(callee)
            : sema::find_intrinsic(callee.substr(0, dot), callee.substr(dot + 1));
    const sema::Symbol *function = nullptr;
    for (const sema::Symbol *s : query::visible_symbols(file, position))
      if (s->kind == sema::SymbolKind::Function && s->name == callee)
        function = s;
    if (function && function->function) {
      const auto [sig, doc] = query::signature_and_doc(*file.source, *function->function);
      info.label = sig;
      info.documentation = doc;
      for (const auto &p : function->function->params) {
        names.push_back(p.name);
        info.parameters.emplace_back(file.source->text_in(p.range));
      }
    } else if (spec) {
      info.label = query::builtin_signature(*spec);
      info.documentation = std::string(spec->doc);
      for (const auto &p : spec->params) {
        names.emplace_back(p.name);
        info.parameters.push_back(std::string(p.name) + (p.optional ? "=…" : ""));
      }
      variadic = spec->variadic;
    } else if (const LanguageName *n = query::find_language_name(callee);
               n && !n->signature.empty()) {
      info.label = n->signature;
      info.documentation = n->doc;
      names = n->params;
      for (const std::string &p : n->params)
        info.parameters.push_back(p == "unroll" ? "unroll=…" : p);
    } else {
      return std::nullopt; // an unknown callee, or the tile method: no table entry
    }
    int active = it->commas;
    if (!it->keyword.empty()) {
      const auto k = std::find(names.begin(), names.end(), it->keyword);
      active =
          k == names.end() ? static_cast<int>(names.size()) : static_cast<int>(k - names.begin());
    } else if (variadic && !names.empty()) {
      active = std::min(active, static_cast<int>(names.size()) - 1);
    }
    info.active_parameter = active;
    return info;
  }
  return std::nullopt;
}

} // namespace argus
