// Hover: the innermost name at a position, described from sema's tables.
#include "argus/dsl/hover.h"

#include "query_support.h"

#include "argus/dsl/layout_svg.h"
#include "argus/layout/tv_layouts.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace argus {

namespace {

using ast::Expr;
using ast::ExprKind;

using query::contains;

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

std::string describe_function(const CheckedFile &file, const ast::Function *f,
                              const std::string &name) {
  const sema::FunctionInfo *info = f ? file.sema->function_info(f->name) : nullptr;
  const auto [sig, doc] = f ? query::signature_and_doc(*file.source, *f)
                            : std::pair<std::string, std::string>{name, ""};
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

// "A 16×16" for an operand of a thread–value table entry.
std::string operand_matrix(const layout::TvLayout &tv) {
  return std::string(tv.operand.substr(0, 1)) + " " + std::to_string(tv.rows) + "×" +
         std::to_string(tv.cols);
}

// The matrix element (row, column) that value `v` of `thread` holds:
// the TV layout gives the column-major index in the rows × cols operand.
std::pair<int64_t, int64_t> element_of(const layout::TvLayout &tv, int thread, int value) {
  const int64_t index =
      layout::evaluate(tv.layout, thread + int64_t{tv.threads} * value).value_or(-1);
  return {index % tv.rows, index / tv.rows};
}

// The operand layouts of a matrix instruction (its a, b, c parameters).
std::string operand_layouts(const sema::BuiltinSpec &spec, std::vector<std::string> &pictures) {
  const std::string instruction = std::string(spec.ns) + "." + std::string(spec.name);
  std::string md;
  std::string_view citation;
  for (const auto &p : spec.params) {
    std::string operand(p.name);
    for (char &c : operand)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const layout::TvLayout *tv = layout::find_tv_entry(instruction, operand);
    if (!tv)
      return "";
    md += "\n- `" + std::string(p.name) + "`: " + operand_matrix(*tv) + ", `" +
          layout::to_string(tv->layout) + "` (" + std::to_string(tv->threads) + " threads × " +
          std::to_string(layout::values_per_thread(*tv)) + " values)";
    citation = tv->citation;
    pictures.push_back("tv(" + instruction + ", " + operand + ")");
  }
  if (md.empty())
    return "";
  return "\n\n**operand thread–value layouts** ((thread, value) → column-major index in the "
         "operand):" +
         md + "\n\nSource: " + std::string(citation);
}

// Which lane and value hold each element of a fragment's operand matrix.
std::string ownership(const layout::TvLayout &tv, const std::string &parameter,
                      const std::string &instruction) {
  const int values = layout::values_per_thread(tv);
  const std::string letter(tv.operand.substr(0, 1));
  std::string md = "\n\noperand `" + parameter + "` of `" + instruction +
                   "`: " + operand_matrix(tv) + ", thread–value layout `" +
                   layout::to_string(tv.layout) +
                   "` (value v: element v of the fragment)\n\n```text\n";
  for (int lane = 0; lane < std::min(tv.threads, 4); ++lane) {
    md += "lane " + std::to_string(lane) + ":";
    for (int v = 0; v < values; ++v) {
      const auto [r, c] = element_of(tv, lane, v);
      md += " " + letter + "[" + std::to_string(r) + "," + std::to_string(c) + "]";
    }
    md += "\n";
  }
  md += "…\n```";
  if (tv.rows * tv.cols <= 256) {
    // The owner (lane.value) of each element, row by row.
    std::vector<std::string> owner(static_cast<size_t>(tv.rows * tv.cols));
    for (int lane = 0; lane < tv.threads; ++lane)
      for (int v = 0; v < values; ++v) {
        const auto [r, c] = element_of(tv, lane, v);
        if (r >= 0 && r < tv.rows && c >= 0 && c < tv.cols)
          owner[static_cast<size_t>(r * tv.cols + c)] =
              std::to_string(lane) + "." + std::to_string(v);
      }
    md += "\n\nowner (lane.value) of " + letter + "[row, col]:\n\n```text\n";
    for (int r = 0; r < tv.rows; ++r) {
      for (int c = 0; c < tv.cols; ++c) {
        std::string cell = owner[static_cast<size_t>(r * tv.cols + c)];
        md += std::string(cell.size() < 5 ? 5 - cell.size() : 0, ' ') + cell + " ";
      }
      md.back() = '\n';
    }
    md += "```";
  }
  return md;
}

const Expr *base_name(const Expr &e) {
  if (e.kind == ExprKind::Name)
    return &e;
  if (e.kind == ExprKind::Subscript)
    return base_name(*e.operands[0]);
  return nullptr;
}

// The first matrix instruction of the function that takes `symbol` (or an
// element view of it) as an operand, with that operand's thread–value layout.
// The intrinsic a dotted name ("nvvm.mma_m16n8k16_bf16") names, or null.
const sema::BuiltinSpec *intrinsic_named(const std::string &dotted) {
  const size_t dot = dotted.find('.');
  return dot == std::string::npos
             ? nullptr
             : sema::find_intrinsic(dotted.substr(0, dot), dotted.substr(dot + 1));
}

std::string fragment_layout(const CheckedFile &file, const ast::Function &f,
                            const sema::Symbol &symbol, std::vector<std::string> &pictures) {
  std::string md;
  query::for_each_expr(f.body, [&](const Expr &e) {
    if (!md.empty() || e.kind != ExprKind::Call || e.callee().kind != ExprKind::Attribute)
      return;
    const std::string dotted = e.callee().dotted_name();
    const sema::BuiltinSpec *spec = intrinsic_named(dotted);
    if (!spec)
      return;
    for (size_t i = 0; i < e.arg_count() && i < spec->params.size(); ++i) {
      const Expr *base = base_name(e.arg(i));
      auto ref = base ? file.sema->references.find(base) : file.sema->references.end();
      if (ref == file.sema->references.end() || ref->second != &symbol)
        continue;
      std::string operand(spec->params[i].name);
      for (char &c : operand)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (const layout::TvLayout *tv = layout::find_tv_entry(dotted, operand)) {
        md = ownership(*tv, std::string(spec->params[i].name), dotted);
        pictures.push_back("tv(" + dotted + ", " + operand + ")");
      }
      return;
    }
  });
  return md;
}

// The tags `tag(T, ...)` gives a tensor in the function, as T[i, j] ↦ record.
std::string tag_records(const CheckedFile &file, const ast::Function &f,
                        const sema::Symbol &symbol) {
  std::string md;
  query::for_each_expr(f.body, [&](const Expr &e) {
    if (e.kind != ExprKind::Call || e.callee().dotted_name() != "tag" || e.arg_count() != 2 ||
        e.arg(0).kind != ExprKind::Name)
      return;
    auto ref = file.sema->references.find(&e.arg(0));
    if (ref == file.sema->references.end() || ref->second != &symbol)
      return;
    const Expr &fields = e.arg(1);
    std::string index, record;
    if (fields.kind == ExprKind::Lambda) {
      for (size_t i = 0; i < fields.lambda_params.size(); ++i)
        index += (i ? ", " : "") + fields.lambda_params[i].name;
      record = std::string(file.source->text_in(fields.operands[0]->range));
    } else {
      std::vector<const Expr *> names;
      if (fields.kind == ExprKind::Tuple)
        for (const auto &op : fields.operands)
          names.push_back(op.get());
      else
        names.push_back(&fields);
      for (size_t i = 0; i < names.size(); ++i) {
        const std::string coordinate = "i" + std::to_string(i);
        index += (i ? ", " : "") + coordinate;
        record += (i ? ", " : "") + names[i]->name + ": " + coordinate;
      }
      record = "{" + record + "}";
    }
    md += "\n\ntag `" + symbol.name + "[" + index + "]` ↦ `" + record + "`";
  });
  return md;
}

} // namespace

std::optional<HoverInfo> hover_at(const CheckedFile &file, Position position) {
  if (!file.sema || !file.source)
    return std::nullopt;
  // The name of a definition: as a call of it would show (the server adds a
  // kernel's verification summary).
  for (const auto &f : file.module.functions)
    if (contains(f.name_range, position))
      return HoverInfo{f.name_range, describe_function(file, &f, f.name), {}};
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
    const sema::BuiltinSpec *spec = intrinsic_named(dotted);
    if (!spec)
      return std::nullopt;
    hover.markdown = "**intrinsic** `" + dotted + "`\n\n" + query::builtin_documentation(*spec) +
                     operand_layouts(*spec, hover.pictures);
    return hover;
  }
  auto ref = sema.references.find(name);
  const sema::Symbol *symbol = ref == sema.references.end() ? nullptr : ref->second;
  if (symbol && symbol->kind == sema::SymbolKind::Function) {
    hover.markdown = describe_function(file, symbol->function, symbol->name);
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
    else if (symbol->float_value) { // the folded value, as it round-trips
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", *symbol->float_value);
      hover.markdown += std::string(" = ") + text;
    }
    if (symbol->is_constexpr)
      hover.markdown += " (constexpr)";
    const ast::Function *function = query::function_at(file.module, position);
    if (symbol->type.is_tensor()) {
      if (auto layout = query::layout_of_symbol(file, function, *symbol)) {
        hover.markdown += "\n\nlayout `" + layout->str() + "`";
        // A picture of a grid: rank 2 or more, no swizzle (a rank-1 layout is its text).
        if (layout->element_bytes <= 1 && layout->str().starts_with("(") &&
            layout_drawable(layout->str()))
          hover.pictures.push_back(layout->str());
        if (layout->element_bytes > 1)
          hover.markdown += " (the swizzle acts on byte addresses of " +
                            std::to_string(layout->element_bytes) + "-byte elements)";
      }
      if (function) {
        hover.markdown += tag_records(file, *function, *symbol);
        hover.markdown += fragment_layout(file, *function, *symbol, hover.pictures);
      }
    }
    return hover;
  }
  if (const sema::BuiltinSpec *spec = sema::find_builtin(name->name)) {
    hover.markdown = "**builtin** `" + name->name + "`\n\n" + query::builtin_documentation(*spec);
    return hover;
  }
  if (const query::LanguageName *n = query::find_language_name(name->name); n && !n->doc.empty()) {
    hover.markdown = "`" + n->name + "`" +
                     (n->signature.empty() ? "" : ": `" + n->signature + "`") + "\n\n" + n->doc;
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
