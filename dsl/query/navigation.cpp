// Definition, references and rename over the name index: a symbol's
// occurrences are the names sema resolved to that very symbol.
#include "argus/dsl/navigation.h"
#include "argus/dsl/codes.h"
#include "argus/dsl/frontend.h"

#include "names.h"

#include <array>

namespace argus {

namespace {

using query::NameOccurrence;
using query::NameRole;

// The occurrence at `p`; a position just past a name (the cursor after the
// last letter) counts when no name contains it.
const NameOccurrence *occurrence_at(const std::vector<NameOccurrence> &names, Position p) {
  const NameOccurrence *touching = nullptr;
  for (const NameOccurrence &o : names) {
    if (query::contains(o.range, p))
      return &o;
    if (o.range.end == p && o.range.begin < p)
      touching = &o;
  }
  return touching;
}

bool is_global(const sema::Symbol &s) {
  return s.kind == sema::SymbolKind::Constant || s.kind == sema::SymbolKind::Function;
}

const char *kind_name(const sema::Symbol &s) {
  switch (s.kind) {
  case sema::SymbolKind::Constant:
    return "module constant";
  case sema::SymbolKind::Function:
    return "function";
  case sema::SymbolKind::Parameter:
    return "parameter";
  case sema::SymbolKind::Local:
    return "local";
  case sema::SymbolKind::LoopVariable:
    return "loop variable";
  case sema::SymbolKind::Builtin:
    return "builtin";
  }
  return "name";
}

// Why the name at `o` cannot be renamed; empty when it can.
std::string not_renamable(const NameOccurrence &o) {
  const std::string name(o.name);
  switch (o.role) {
  case NameRole::Symbol:
    return o.symbol->kind == sema::SymbolKind::Builtin
               ? "'" + name + "' is a builtin and cannot be renamed"
               : "";
  case NameRole::Builtin:
  case NameRole::Constant:
  case NameRole::Method:
    return "'" + name + "' is a builtin of Argus and cannot be renamed";
  case NameRole::Intrinsic:
    return "'" + name + "' is a hardware intrinsic and cannot be renamed";
  case NameRole::Namespace:
    return "'" + name + "' is the intrinsic namespace and cannot be renamed";
  case NameRole::Dtype:
  case NameRole::Qualifier:
    return "'" + name + "' is a builtin type and cannot be renamed";
  case NameRole::Decorator:
    return "'@" + name + "' is a decorator and cannot be renamed";
  case NameRole::TagField:
    return "tag field names are strings; renaming them is not supported";
  case NameRole::LambdaParam:
    return "renaming the parameters of a tag function is not supported";
  }
  return "this name cannot be renamed";
}

// What the front end accepts as a name: ASCII at once; a name with other
// characters (`lané`) is parsed as `name = 0`, so rename agrees with the
// grammar's Unicode identifiers instead of keeping a second rule.
bool is_identifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9'))
    return false;
  bool ascii = true;
  for (const char c : name) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  }
  if (ascii)
    return true;
  const CheckedFile probe = analyze_source("rename", std::string(name) + " = 0\n");
  for (const Diagnostic &d : probe.diagnostics)
    if (d.code != codes::kEmptyFile) // the probe has no kernel, and needs none
      return false;
  return probe.module.constants.size() == 1 && probe.module.constants[0].name == name;
}

// Why `name` cannot name a constant, function or variable; empty when it can.
std::string bad_new_name(std::string_view name) {
  static constexpr std::array<std::string_view, 35> kKeywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  const std::string quoted = "'" + std::string(name) + "'";
  if (!is_identifier(name))
    return quoted + " is not an identifier: use letters, digits and _, not starting with a digit";
  for (std::string_view keyword : kKeywords)
    if (name == keyword)
      return quoted + " is a Python keyword";
  if (sema::scalar_from_name(name))
    return quoted + " is a builtin type";
  if (sema::find_builtin(name) || name == "range" || name == "inf" || name == "constexpr" ||
      name == "nvvm" || name == "amdgpu" || name == "kernel" || name == "device" || name == "bench")
    return quoted + " is a builtin name of Argus";
  return "";
}

// The function each parameter, local and loop variable belongs to.
const ast::Function *owner_of(const std::vector<NameOccurrence> &names, const sema::Symbol &s) {
  for (const NameOccurrence &o : names)
    if (o.symbol == &s)
      return o.function;
  return nullptr;
}

// A name called `new_name` visible where `target` is defined or used.
std::string clash(const CheckedFile &file, const std::vector<NameOccurrence> &names,
                  const sema::Symbol &target, std::string_view new_name) {
  const ast::Function *scope = is_global(target) ? nullptr : owner_of(names, target);
  const auto visible = [&](const ast::Function *owner) {
    return is_global(target) || owner == scope;
  };
  for (const sema::Symbol &s : file.sema->symbols) {
    if (&s == &target || s.name != new_name)
      continue;
    if (is_global(s) || visible(owner_of(names, s)))
      return "'" + s.name + "' is already the " + kind_name(s) + " defined on line " +
             std::to_string(s.definition.begin.line + 1);
  }
  for (const NameOccurrence &o : names)
    if (o.role == NameRole::LambdaParam && o.is_definition && o.name == new_name &&
        visible(o.function))
      return "'" + std::string(new_name) + "' is a tag-function parameter on line " +
             std::to_string(o.range.begin.line + 1);
  return "";
}

} // namespace

std::optional<Range> definition_at(const CheckedFile &file, Position position) {
  const std::vector<NameOccurrence> names = query::name_occurrences(file);
  const NameOccurrence *o = occurrence_at(names, position);
  if (!o || !o->symbol || o->symbol->kind == sema::SymbolKind::Builtin)
    return std::nullopt;
  return o->symbol->definition;
}

std::vector<NameReference> references_at(const CheckedFile &file, Position position,
                                         bool include_declaration) {
  const std::vector<NameOccurrence> names = query::name_occurrences(file);
  const NameOccurrence *at = occurrence_at(names, position);
  std::vector<NameReference> out;
  if (!at || !at->symbol)
    return out;
  for (const NameOccurrence &o : names)
    if (o.symbol == at->symbol && (include_declaration || !o.is_definition))
      out.push_back(NameReference{o.range, o.is_definition});
  return out;
}

RenamePreparation prepare_rename_at(const CheckedFile &file, Position position) {
  const std::vector<NameOccurrence> names = query::name_occurrences(file);
  RenamePreparation result;
  const NameOccurrence *o = occurrence_at(names, position);
  if (!o)
    return result;
  result.error = not_renamable(*o);
  if (result.error.empty()) {
    result.range = o->range;
    result.placeholder = o->symbol->name;
  }
  return result;
}

RenameResult rename_at(const CheckedFile &file, Position position, std::string_view new_name) {
  const std::vector<NameOccurrence> names = query::name_occurrences(file);
  RenameResult result;
  const NameOccurrence *at = occurrence_at(names, position);
  if (!at) {
    result.error = "there is no name to rename at this position";
    return result;
  }
  if (result.error = not_renamable(*at); !result.error.empty())
    return result;
  const sema::Symbol &target = *at->symbol;
  const std::string prefix =
      "cannot rename '" + target.name + "' to '" + std::string(new_name) + "': ";
  if (new_name == target.name) {
    for (const NameOccurrence &o : names)
      if (o.symbol == &target)
        result.ranges.push_back(o.range);
    return result;
  }
  if (std::string problem = bad_new_name(new_name); !problem.empty()) {
    result.error = prefix + problem;
    return result;
  }
  if (std::string problem = clash(file, names, target, new_name); !problem.empty()) {
    result.error = prefix + problem;
    return result;
  }
  for (const NameOccurrence &o : names)
    if (o.symbol == &target)
      result.ranges.push_back(o.range);
  return result;
}

} // namespace argus
