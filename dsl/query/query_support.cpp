// Shared pieces of the editor queries: documentation, signatures, scopes.
#include "query_support.h"

#include <algorithm>
#include <map>

namespace argus::query {

bool contains(const Range &r, Position p) { return !(p < r.begin) && p < r.end; }

// The AST keeps no docstring (it is not a statement of the body), so it is
// read from the text between the signature's ':' and the first statement.
std::pair<std::string, std::string> signature_and_doc(const SourceFile &source,
                                                      const ast::Function &f) {
  const std::string &text = source.text();
  const size_t begin = source.offset(f.name_range.begin);
  const size_t body = source.offset(f.body.empty() ? f.range.end : f.body.front()->range.begin);
  size_t after_params =
      source.offset(f.params.empty() ? f.name_range.end : f.params.back().range.end);
  if (f.return_annotation)
    after_params = source.offset(f.return_annotation->range.end);
  const size_t colon = text.find(':', after_params);
  if (colon == std::string::npos || colon >= body)
    return {text.substr(begin, body > begin ? body - begin : 0), ""};
  std::string doc;
  const size_t open = text.find_first_not_of(" \t\r\n", colon + 1);
  if (open != std::string::npos && open < body && (text[open] == '"' || text[open] == '\'')) {
    const std::string quote = text.compare(open, 3, "\"\"\"") == 0 ? "\"\"\""
                              : text.compare(open, 3, "'''") == 0  ? "'''"
                                                                   : std::string(1, text[open]);
    const size_t close = text.find(quote, open + quote.size());
    if (close != std::string::npos && close < body)
      doc = text.substr(open + quote.size(), close - open - quote.size());
  }
  return {text.substr(begin, colon - begin), doc};
}

std::string builtin_signature(const sema::BuiltinSpec &spec) {
  std::string out = spec.ns.empty() ? "" : std::string(spec.ns) + ".";
  out += std::string(spec.name) + "(";
  for (size_t i = 0; i < spec.params.size(); ++i) {
    out += (i ? ", " : "") + std::string(spec.params[i].name);
    if (spec.params[i].optional)
      out += "=…";
  }
  if (spec.variadic)
    out += ", …";
  return out + ")";
}

std::string builtin_documentation(const sema::BuiltinSpec &spec) {
  return "```python\n" + builtin_signature(spec) + "\n```\n\n" + std::string(spec.doc);
}

namespace {

std::vector<LanguageName> make_language_names() {
  using K = LanguageName::Kind;
  std::vector<LanguageName> names;
  for (int k = static_cast<int>(sema::ScalarKind::I8);
       k <= static_cast<int>(sema::ScalarKind::Bool); ++k) {
    const auto kind = static_cast<sema::ScalarKind>(k);
    const std::string name = sema::to_string(kind);
    names.push_back({name,
                     K::Dtype,
                     name + "(x)",
                     {"x"},
                     "The scalar type " + name + " (" + std::to_string(sema::bit_width(kind)) +
                         " bits); called, it converts x to " + name + "."});
  }
  names.push_back({"range",
                   K::Iterable,
                   "range(start, stop, step, unroll=…)",
                   {"start", "stop", "step", "unroll"},
                   "Only as a for-loop iterable: range(stop), range(start, stop) or range(start, "
                   "stop, step); integer bounds; unroll=N (compile-time) unrolls N iterations."});
  names.push_back({"inf", K::Constant, "", {}, "+∞, a float literal (-inf is the lowest value)."});
  names.push_back(
      {"nvvm", K::Namespace, "", {}, "NVIDIA sm90 intrinsics: nvvm.mma_…, ldmatrix, cp.async."});
  names.push_back({"amdgpu",
                   K::Namespace,
                   "",
                   {},
                   "AMD gfx942 intrinsics: amdgpu.mfma_…, buffer loads, s_waitcnt."});
  names.push_back(
      {"constexpr",
       K::Keyword,
       "",
       {},
       "A compile-time kernel parameter (`STAGES: constexpr = 2`) or module constant."});
  for (const char *keyword : {"for", "in", "if", "elif", "else", "while", "return", "pass", "and",
                              "or", "not", "True", "False", "lambda", "def"})
    names.push_back({keyword, K::Keyword, "", {}, ""});
  return names;
}

} // namespace

std::span<const LanguageName> language_names() {
  static const std::vector<LanguageName> names = make_language_names();
  return names;
}

const LanguageName *find_language_name(std::string_view name) {
  for (const LanguageName &n : language_names())
    if (n.name == name)
      return &n;
  return nullptr;
}

const LanguageName &tile_method() {
  static const LanguageName tile{
      "tile",
      LanguageName::Kind::Method,
      "tile(tile_shape)",
      {"tile_shape"},
      "The tensor cut into tiles of tile_shape: t.tile(s)[i, j] is tile (i, j), a view of shape "
      "s; never copies."};
  return tile;
}

const ast::Function *function_at(const ast::Module &module, Position p) {
  for (const auto &f : module.functions)
    if (contains(f.range, p))
      return &f;
  return nullptr;
}

std::vector<const sema::Symbol *> visible_symbols(const CheckedFile &file, Position p) {
  std::vector<const sema::Symbol *> out;
  if (!file.sema)
    return out;
  const sema::SemaResult &sema = *file.sema;
  const ast::Function *enclosing = function_at(file.module, p);
  std::map<std::string, const sema::Symbol *> locals; // the latest definition before p
  // A loop variable's scope is its loop (sema ends it there): the For
  // statements around p, by the range of their target.
  std::vector<Range> loops_around;
  if (enclosing) {
    auto visit = [&](const std::vector<ast::StmtPtr> &body, auto &self) -> void {
      for (const auto &s : body) {
        if (!contains(s->range, p))
          continue;
        if (s->kind == ast::StmtKind::For && s->target)
          loops_around.push_back(s->target->range);
        self(s->body, self);
        self(s->orelse, self);
      }
    };
    visit(enclosing->body, visit);
  }
  for (const sema::Symbol &s : sema.symbols) {
    switch (s.kind) {
    case sema::SymbolKind::Constant:
      out.push_back(&s);
      break;
    case sema::SymbolKind::Function:
      if (const auto *info = sema.function_info(s.name);
          info && info->role == sema::FunctionRole::Device)
        out.push_back(&s);
      break;
    case sema::SymbolKind::Parameter:
    case sema::SymbolKind::Local:
    case sema::SymbolKind::LoopVariable:
      if (s.kind == sema::SymbolKind::LoopVariable &&
          std::find(loops_around.begin(), loops_around.end(), s.definition) == loops_around.end())
        break;
      if (enclosing && contains(enclosing->range, s.definition.begin) &&
          (s.kind == sema::SymbolKind::Parameter || s.definition.end < p ||
           s.definition.end == p)) {
        auto &slot = locals[s.name];
        if (!slot || slot->definition.begin < s.definition.begin)
          slot = &s;
      }
      break;
    case sema::SymbolKind::Builtin:
      break;
    }
  }
  for (const auto &[name, symbol] : locals)
    out.push_back(symbol);
  return out;
}

const ast::Expr *defining_value(const ast::Function &function, const sema::Symbol &symbol) {
  const ast::Expr *found = nullptr;
  auto visit = [&](const std::vector<ast::StmtPtr> &body, auto &self) -> void {
    for (const auto &s : body) {
      if (found)
        return;
      if (s->kind == ast::StmtKind::Assign && s->value) {
        for (const auto &t : s->targets) {
          if (t->kind == ast::ExprKind::Name && t->range == symbol.definition)
            found = s->value.get();
          else if (t->kind == ast::ExprKind::Tuple && s->value->kind == ast::ExprKind::Tuple &&
                   t->operands.size() == s->value->operands.size())
            for (size_t i = 0; i < t->operands.size(); ++i)
              if (t->operands[i]->range == symbol.definition)
                found = s->value->operands[i].get();
        }
      }
      if (s->kind == ast::StmtKind::AnnAssign && s->value && s->target &&
          s->target->range == symbol.definition)
        found = s->value.get();
      self(s->body, self);
      self(s->orelse, self);
    }
  };
  visit(function.body, visit);
  return found;
}

} // namespace argus::query
