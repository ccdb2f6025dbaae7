// Hover: the innermost name at a position, described from sema's tables.
#include "argus/dsl/hover.h"

#include "../sema/builtins.h"

#include <algorithm>

namespace argus {

namespace {

using ast::Expr;
using ast::ExprKind;

bool contains(const Range &r, Position p) { return !(p < r.begin) && p < r.end; }

// The innermost Name (or dotted intrinsic name) whose range holds `p`.
const Expr *name_at(const Expr &e, Position p) {
  if (!contains(e.range, p))
    return nullptr;
  for (const auto &op : e.operands)
    if (op)
      if (const Expr *inner = name_at(*op, p))
        return inner;
  for (const auto &k : e.keywords)
    if (k.value)
      if (const Expr *inner = name_at(*k.value, p))
        return inner;
  if (e.kind == ExprKind::Name || (e.kind == ExprKind::Attribute && !e.dotted_name().empty()))
    return &e;
  return nullptr;
}

const Expr *name_in_body(const std::vector<ast::StmtPtr> &body, Position p) {
  for (const auto &s : body) {
    if (!contains(s->range, p))
      continue;
    for (const Expr *e : {s->value.get(), s->target.get(), s->annotation.get()})
      if (e)
        if (const Expr *n = name_at(*e, p))
          return n;
    for (const auto &t : s->targets)
      if (const Expr *n = name_at(*t, p))
        return n;
    if (const Expr *n = name_in_body(s->body, p))
      return n;
    if (const Expr *n = name_in_body(s->orelse, p))
      return n;
  }
  return nullptr;
}

const char *kind_name(sema::SymbolKind k) {
  switch (k) {
  case sema::SymbolKind::Constant:
    return "constant";
  case sema::SymbolKind::Parameter:
    return "parameter";
  case sema::SymbolKind::Local:
    return "local";
  case sema::SymbolKind::LoopVariable:
    return "loop variable";
  case sema::SymbolKind::Function:
    return "function";
  case sema::SymbolKind::Builtin:
    return "builtin";
  }
  return "name";
}

// The text of `def NAME(...) -> T` and the docstring after it, if any (the
// AST keeps no docstring: it is not a statement of the body).
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

std::string describe_function(const CheckedFile &file, const sema::Symbol &s) {
  const ast::Function *f = s.function;
  const sema::FunctionInfo *info = f ? file.sema->function_info(f->name) : nullptr;
  const auto [sig, doc] =
      f ? signature_and_doc(*file.source, *f) : std::pair<std::string, std::string>{s.name, ""};
  std::string md = std::string("**") +
                   (info && info->role == sema::FunctionRole::Kernel ? "@kernel" : "@device") +
                   "** function\n\n```python\ndef " + sig + "\n```";
  if (!doc.empty())
    md += "\n\n" + doc;
  if (info && info->role == sema::FunctionRole::Kernel) {
    md += "\n\nblock (" + std::to_string(info->block[0]) + ", " + std::to_string(info->block[1]) +
          ", " + std::to_string(info->block[2]) + ")";
  }
  return md;
}

} // namespace

std::optional<HoverInfo> hover_at(const CheckedFile &file, Position position) {
  if (!file.sema || !file.source)
    return std::nullopt;
  const Expr *name = nullptr;
  for (const auto &c : file.module.constants)
    if (!name && c.value && contains(c.range, position))
      name = name_at(*c.value, position);
  for (const auto &f : file.module.functions) {
    if (name || !contains(f.range, position))
      continue;
    for (const auto &d : f.decorators)
      if (!name && d.expr)
        name = name_at(*d.expr, position);
    for (const auto &p : f.params)
      if (!name && p.annotation)
        name = name_at(*p.annotation, position);
    if (!name)
      name = name_in_body(f.body, position);
  }
  if (!name)
    return std::nullopt;
  const sema::SemaResult &sema = *file.sema;
  HoverInfo hover;
  hover.range = name->range;
  const std::string dotted = name->dotted_name();
  if (name->kind == ExprKind::Attribute) {
    const size_t dot = dotted.find('.');
    const sema::BuiltinSpec *spec =
        dot == std::string::npos
            ? nullptr
            : sema::find_intrinsic(dotted.substr(0, dot), dotted.substr(dot + 1));
    if (!spec)
      return std::nullopt;
    hover.markdown = "**intrinsic** `" + dotted + "`\n\n" + std::string(spec->doc);
    return hover;
  }
  auto ref = sema.references.find(name);
  const sema::Symbol *symbol = ref == sema.references.end() ? nullptr : ref->second;
  if (symbol && symbol->kind == sema::SymbolKind::Function) {
    hover.markdown = describe_function(file, *symbol);
    return hover;
  }
  if (symbol && symbol->kind != sema::SymbolKind::Builtin) {
    const sema::Type *type = sema.type_of(*name);
    const std::string type_text = type ? type->str() : symbol->type.str();
    hover.markdown = "**" + std::string(kind_name(symbol->kind)) + "** `" + symbol->name + "`: `" +
                     type_text + "`";
    if (symbol->value)
      hover.markdown += " = " + std::to_string(*symbol->value);
    else if (auto c = sema.constant_of(*name))
      hover.markdown += " = " + std::to_string(*c);
    if (symbol->is_constexpr)
      hover.markdown += " (constexpr)";
    return hover;
  }
  if (const sema::BuiltinSpec *spec = sema::find_builtin(name->name)) {
    hover.markdown = "**builtin** `" + name->name + "`\n\n" + std::string(spec->doc);
    return hover;
  }
  if (const sema::Type *type = sema.type_of(*name); type && !type->is_unknown()) {
    hover.markdown = "`" + name->name + "`: `" + type->str() + "`";
    return hover;
  }
  return std::nullopt;
}

std::vector<OutlineItem> outline(const CheckedFile &file) {
  std::vector<OutlineItem> items;
  for (const auto &c : file.module.constants) {
    OutlineItem item;
    item.kind = OutlineItem::Kind::Constant;
    item.name = c.name;
    item.range = c.range;
    item.selection = c.name_range;
    if (file.sema && c.value)
      if (auto v = file.sema->constant_of(*c.value))
        item.detail = "= " + std::to_string(*v);
    items.push_back(std::move(item));
  }
  for (const auto &f : file.module.functions) {
    OutlineItem item;
    item.name = f.name;
    item.range = f.range;
    item.selection = f.name_range;
    const sema::FunctionInfo *info = file.sema ? file.sema->function_info(f.name) : nullptr;
    const bool kernel =
        info ? info->role == sema::FunctionRole::Kernel : f.decorator("kernel") != nullptr;
    item.kind = kernel ? OutlineItem::Kind::Kernel : OutlineItem::Kind::Device;
    item.detail = kernel ? "@kernel" : "@device";
    if (kernel && info)
      item.detail += " block (" + std::to_string(info->block[0]) + ", " +
                     std::to_string(info->block[1]) + ", " + std::to_string(info->block[2]) + ")";
    items.push_back(std::move(item));
  }
  std::sort(items.begin(), items.end(), [](const OutlineItem &a, const OutlineItem &b) {
    return a.range.begin < b.range.begin;
  });
  return items;
}

} // namespace argus
