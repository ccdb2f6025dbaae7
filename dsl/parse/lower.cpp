// Syntax tree → AST: the module, functions, statements and syntax errors.
// Expressions are in lower_expr.cpp, literal parsing in lower_literal.cpp.
#include "argus/dsl/lower.h"

#include "argus/grammar/language.h"
#include "lower_internal.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string_view>
#include <unordered_map>

namespace argus {
namespace lower_detail {
namespace {

// Statements outside the subset, by node type: E0201 inside a function, E0203 at top level.
constexpr Construct kBreak{"break statement", "break statements are", nullptr};
constexpr Construct kContinue{"continue statement", "continue statements are", nullptr};
constexpr Construct kClass{"class", "classes are", nullptr};
constexpr Construct kImport{"import", "imports are", nullptr};
constexpr Construct kTry{"try statement", "try statements are", nullptr};
constexpr Construct kWith{"with statement", "with statements are", nullptr};
constexpr Construct kDel{"del statement", "del statements are", nullptr};
constexpr Construct kGlobal{"global declaration", "global declarations are", nullptr};
constexpr Construct kNonlocal{"nonlocal declaration", "nonlocal declarations are", nullptr};
constexpr Construct kAssert{"assert statement", "assert statements are",
                            "state preconditions with assume(...)"};
constexpr Construct kRaise{"raise statement", "raise statements are", nullptr};
constexpr Construct kMatch{"match statement", "match statements are", nullptr};
constexpr Construct kPrint{"print statement", "print statements are", nullptr};
constexpr Construct kExec{"exec statement", "exec statements are", nullptr};
constexpr Construct kTypeAlias{"type alias", "type aliases are", nullptr};
constexpr Construct kNestedFunction{"nested function", "nested functions are",
                                    "define it at top level with @device"};
constexpr Construct kAsyncFunction{"async function", "async functions are", nullptr};
constexpr Construct kAsyncFor{"async for loop", "async for loops are", nullptr};
constexpr Construct kForElse{"for-else clause", "else clauses on for loops are", nullptr};
constexpr Construct kWhileElse{"while-else clause", "else clauses on while loops are", nullptr};
constexpr Construct kAugmentedMatMul{"'@=' operator", "the '@=' operator is", nullptr};
// Only at top level.
constexpr Construct kExpressionStatement{"expression statement", "expression statements are",
                                         nullptr};
constexpr Construct kAssignmentStatement{"augmented assignment", "augmented assignments are",
                                         nullptr};
constexpr Construct kIfStatement{"if statement", "if statements are", nullptr};
constexpr Construct kForStatement{"for loop", "for loops are", nullptr};
constexpr Construct kWhileStatement{"while loop", "while loops are", nullptr};
constexpr Construct kReturnStatement{"return statement", "return statements are", nullptr};
constexpr Construct kPassStatement{"pass statement", "pass statements are", nullptr};
constexpr Construct kComplexConstant{"assignment to a non-name",
                                     "assignments to anything but a single name are",
                                     "a module constant is `NAME = value`"};
constexpr Construct kChainedConstant{"chained assignment", "chained assignments are",
                                     "define one constant per line"};
constexpr Construct kConstantWithoutValue{"constant without a value",
                                          "annotations without a value are",
                                          "a module constant is `NAME: type = value`"};
constexpr Construct kDecoratorExpression{"decorator expression",
                                         "decorators other than a name or a call are", nullptr};
// Parameters (E0204).
constexpr Construct kStarArgs{"*args parameter", "*args parameters are", nullptr};
constexpr Construct kStarStarKwargs{"**kwargs parameter", "**kwargs parameters are", nullptr};
constexpr Construct kPositionalSeparator{"positional-only marker",
                                         "positional-only parameter markers ('/') are", nullptr};
constexpr Construct kKeywordSeparator{"keyword-only marker",
                                      "keyword-only parameter markers ('*') are", nullptr};
constexpr Construct kTupleParameter{"tuple parameter", "tuple parameters are", nullptr};
constexpr Construct kTypeParameters{"type parameters", "type parameters (def f[T]) are", nullptr};

const Construct *statement_construct(Sym sym) {
  switch (sym) {
  case Sym::BreakStatement:
    return &kBreak;
  case Sym::ContinueStatement:
    return &kContinue;
  case Sym::ClassDefinition:
    return &kClass;
  case Sym::ImportStatement:
  case Sym::ImportFromStatement:
  case Sym::FutureImportStatement:
    return &kImport;
  case Sym::TryStatement:
    return &kTry;
  case Sym::WithStatement:
    return &kWith;
  case Sym::DeleteStatement:
    return &kDel;
  case Sym::GlobalStatement:
    return &kGlobal;
  case Sym::NonlocalStatement:
    return &kNonlocal;
  case Sym::AssertStatement:
    return &kAssert;
  case Sym::RaiseStatement:
    return &kRaise;
  case Sym::MatchStatement:
    return &kMatch;
  case Sym::PrintStatement:
    return &kPrint;
  case Sym::ExecStatement:
    return &kExec;
  case Sym::TypeAliasStatement:
    return &kTypeAlias;
  case Sym::FunctionDefinition:
  case Sym::DecoratedDefinition:
    return &kNestedFunction;
  case Sym::IfStatement:
    return &kIfStatement;
  case Sym::ForStatement:
    return &kForStatement;
  case Sym::WhileStatement:
    return &kWhileStatement;
  case Sym::ReturnStatement:
    return &kReturnStatement;
  case Sym::PassStatement:
    return &kPassStatement;
  case Sym::ExpressionStatement:
    return &kExpressionStatement;
  default:
    return nullptr;
  }
}

bool is_compound(Sym sym) {
  switch (sym) {
  case Sym::ClassDefinition:
  case Sym::TryStatement:
  case Sym::WithStatement:
  case Sym::MatchStatement:
  case Sym::FunctionDefinition:
  case Sym::DecoratedDefinition:
  case Sym::IfStatement:
  case Sym::ForStatement:
  case Sym::WhileStatement:
    return true;
  default:
    return false;
  }
}

std::optional<ast::BinaryOp> augmented_op(Tok tok) {
  switch (tok) {
  case Tok::PlusEq:
    return ast::BinaryOp::Add;
  case Tok::MinusEq:
    return ast::BinaryOp::Sub;
  case Tok::StarEq:
    return ast::BinaryOp::Mul;
  case Tok::SlashEq:
    return ast::BinaryOp::Div;
  case Tok::SlashSlashEq:
    return ast::BinaryOp::FloorDiv;
  case Tok::PercentEq:
    return ast::BinaryOp::Mod;
  case Tok::StarStarEq:
    return ast::BinaryOp::Pow;
  case Tok::LtLtEq:
    return ast::BinaryOp::Shl;
  case Tok::GtGtEq:
    return ast::BinaryOp::Shr;
  case Tok::AmpEq:
    return ast::BinaryOp::BitAnd;
  case Tok::PipeEq:
    return ast::BinaryOp::BitOr;
  case Tok::CaretEq:
    return ast::BinaryOp::BitXor;
  default:
    return std::nullopt;
  }
}

ast::StmtPtr make_stmt(ast::StmtKind kind, Range range) {
  auto stmt = std::make_unique<ast::Stmt>();
  stmt->kind = kind;
  stmt->range = range;
  return stmt;
}

// How MISSING nodes of hidden or named symbols read in messages.
std::string missing_description(std::string_view type) {
  if (type == "_newline")
    return "missing newline";
  if (type == "_indent")
    return "missing indented block";
  if (type == "_dedent")
    return "missing dedent";
  if (type == "string_end")
    return "missing closing quote";
  if (type == "identifier")
    return "missing name";
  if (!type.empty() && (type[0] == '_' || (type[0] >= 'a' && type[0] <= 'z')))
    return "missing " + std::string(type);
  return "missing '" + std::string(type) + "'";
}

} // namespace

const Grammar &grammar_tables() {
  static const Grammar tables = [] {
    const TSLanguage *language = grammar::language();
    Grammar g;
    const std::unordered_map<std::string_view, Sym> named = {
#define ARGUS_LOWER_ENTRY(name, text) {text, Sym::name},
        ARGUS_LOWER_NAMED_SYMBOLS(ARGUS_LOWER_ENTRY)};
    const std::unordered_map<std::string_view, Tok> tokens = {
#undef ARGUS_LOWER_ENTRY
#define ARGUS_LOWER_ENTRY(name, text) {text, Tok::name},
        ARGUS_LOWER_TOKENS(ARGUS_LOWER_ENTRY)
#undef ARGUS_LOWER_ENTRY
    };
    const uint32_t count = ts_language_symbol_count(language);
    g.named.assign(count, Sym::Other);
    g.tokens.assign(count, Tok::Other);
    for (uint32_t id = 0; id < count; ++id) {
      const auto symbol = static_cast<TSSymbol>(id);
      const char *name = ts_language_symbol_name(language, symbol);
      if (name == nullptr)
        continue;
      const TSSymbolType type = ts_language_symbol_type(language, symbol);
      if (type == TSSymbolTypeRegular) {
        if (const auto it = named.find(name); it != named.end())
          g.named[id] = it->second;
      } else if (type == TSSymbolTypeAnonymous) {
        if (const auto it = tokens.find(name); it != tokens.end())
          g.tokens[id] = it->second;
      }
    }
    const auto field_id = [language](const char *name) {
      return ts_language_field_id_for_name(language, name,
                                           static_cast<uint32_t>(std::strlen(name)));
    };
    Fields &f = g.fields;
    f.left = field_id("left");
    f.right = field_id("right");
    f.type = field_id("type");
    f.operator_ = field_id("operator");
    f.name = field_id("name");
    f.value = field_id("value");
    f.body = field_id("body");
    f.condition = field_id("condition");
    f.consequence = field_id("consequence");
    f.alternative = field_id("alternative");
    f.function = field_id("function");
    f.arguments = field_id("arguments");
    f.object = field_id("object");
    f.attribute = field_id("attribute");
    f.subscript = field_id("subscript");
    f.parameters = field_id("parameters");
    f.return_type = field_id("return_type");
    f.definition = field_id("definition");
    f.argument = field_id("argument");
    f.operators = field_id("operators");
    f.key = field_id("key");
    f.type_parameters = field_id("type_parameters");
    return g;
  }();
  return tables;
}

ast::ExprPtr make_expr(ast::ExprKind kind, Range range) {
  auto expr = std::make_unique<ast::Expr>();
  expr->kind = kind;
  expr->range = range;
  return expr;
}

// --- Lowerer: setup and tree access ---------------------------------------------------------

Lowerer::Lowerer(const SyntaxTree &tree, const SourceFile &source, DiagnosticSink &sink,
                 const LowerOptions &options)
    : source_(source), sink_(sink), options_(options), g_(grammar_tables()), root_(tree.root()),
      cursor_(ts_tree_cursor_new(root_)) {}

Lowerer::~Lowerer() { ts_tree_cursor_delete(&cursor_); }

std::vector<Child> Lowerer::children(TSNode node) {
  std::vector<Child> out;
  ts_tree_cursor_reset(&cursor_, node);
  if (!ts_tree_cursor_goto_first_child(&cursor_))
    return out;
  do {
    const TSNode child = ts_tree_cursor_current_node(&cursor_);
    const Sym s = g_.sym(child);
    if (s == Sym::Comment || s == Sym::LineContinuation)
      continue;
    out.push_back(Child{child, ts_tree_cursor_current_field_id(&cursor_), s, g_.tok(child),
                        ts_node_is_named(child)});
  } while (ts_tree_cursor_goto_next_sibling(&cursor_));
  return out;
}

std::vector<Child> Lowerer::named_children(TSNode node) {
  std::vector<Child> out = children(node);
  std::erase_if(out, [](const Child &c) { return !c.named; });
  return out;
}

std::string_view Lowerer::text(TSNode node) const {
  const std::string &text = source_.text();
  const uint32_t begin = std::min<uint32_t>(ts_node_start_byte(node), text.size());
  const uint32_t end = std::min<uint32_t>(ts_node_end_byte(node), text.size());
  return std::string_view(text).substr(begin, end > begin ? end - begin : 0);
}

std::string Lowerer::identifier(TSNode node) {
  std::string name(text(node));
  // Python's hard keywords; tree-sitter's grammar reads some of them as names in broken code
  // (`else:` alone parses as an annotated name).
  static constexpr std::string_view kKeywords[] = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  if (name.size() >= 2 && name.size() <= 8) {
    for (const std::string_view keyword : kKeywords) {
      if (name == keyword) {
        error(codes::kSyntaxError, range_of(node),
              "syntax error: unexpected keyword '" + name + "'");
        break;
      }
    }
  }
  return name;
}

// --- diagnostics ----------------------------------------------------------------------------

Diagnostic &Lowerer::error(std::string_view code, Range range, std::string message) {
  return sink_.error(std::string(code), range, std::move(message));
}

void Lowerer::unsupported(std::string_view code, Range range, const Construct &construct,
                          const char *where) {
  std::string message = std::string(construct.subject) + " not supported " + where;
  if (construct.hint != nullptr)
    message += std::string("; ") + construct.hint;
  Diagnostic &d = error(code, range, std::move(message));
  d.data = nlohmann::json{{"construct", construct.name}};
}

bool Lowerer::report_syntax_errors(TSNode node) {
  bool fatal = false;
  const auto visit = [&](TSNode n) {
    // Returns true when the walk should descend into `n`.
    if (g_.sym(n) == Sym::Error) {
      report_error_node(n);
      fatal = true;
      return false;
    }
    if (ts_node_is_missing(n)) {
      report_missing_node(n);
      if (ts_node_is_named(n))
        fatal = true;
      return false;
    }
    return ts_node_has_error(n);
  };
  if (!visit(node))
    return fatal;
  // Iterative pre-order walk of the subtrees that hold errors (no recursion: the tree may be
  // arbitrarily deep).
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  bool descend = true;
  while (true) {
    if (descend && ts_tree_cursor_goto_first_child(&cursor)) {
      descend = visit(ts_tree_cursor_current_node(&cursor));
      continue;
    }
    bool moved = false;
    while (!moved) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        moved = true;
      } else if (!ts_tree_cursor_goto_parent(&cursor)) {
        break;
      }
    }
    if (!moved)
      break;
    descend = visit(ts_tree_cursor_current_node(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return fatal;
}

void Lowerer::report_error_node(TSNode node) {
  // Name what went wrong where the tokens directly under the ERROR make it plain: an
  // unbalanced bracket or an unterminated string; otherwise point at the whole ERROR.
  const std::vector<Child> kids = children(node);
  std::vector<const Child *> open;
  bool string_start = false;
  for (const Child &c : kids) {
    switch (c.tok) {
    case Tok::LParen:
    case Tok::LBracket:
    case Tok::LBrace:
      if (!c.named)
        open.push_back(&c);
      break;
    case Tok::RParen:
    case Tok::RBracket:
    case Tok::RBrace: {
      if (c.named)
        break;
      const Tok expected = c.tok == Tok::RParen     ? Tok::LParen
                           : c.tok == Tok::RBracket ? Tok::LBracket
                                                    : Tok::LBrace;
      if (!open.empty() && open.back()->tok == expected) {
        open.pop_back();
        break;
      }
      error(codes::kSyntaxError, range_of(c.node),
            "syntax error: unexpected '" + std::string(text(c.node)) + "'");
      return;
    }
    default:
      if (c.sym == Sym::StringStart)
        string_start = true;
      else if (c.sym == Sym::StringEnd)
        string_start = false;
      break;
    }
  }
  if (string_start) {
    error(codes::kSyntaxError, range_of(node), "syntax error: unterminated string literal");
    return;
  }
  if (!open.empty()) {
    const Child &bracket = *open.front(); // the outermost: Python names that one too
    error(codes::kSyntaxError, range_of(bracket.node),
          "syntax error: '" + std::string(text(bracket.node)) + "' was never closed");
    return;
  }
  // A leading operator or punctuation token is what the parser could not use ("x = 1 +" then
  // "= 2" on the next line). A leading keyword says less: the problem may come after it.
  if (!kids.empty() && !kids[0].named) {
    const std::string_view token = text(kids[0].node);
    const bool punctuation = !token.empty() && std::none_of(token.begin(), token.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    });
    if (punctuation) {
      error(codes::kSyntaxError, range_of(kids[0].node),
            "syntax error: unexpected '" + std::string(token) + "'");
      return;
    }
  }
  error(codes::kSyntaxError, range_of(node), "syntax error");
}

void Lowerer::report_missing_node(TSNode node) {
  const Position at = to_position(ts_node_start_point(node));
  error(codes::kMissingToken, Range{at, at}, missing_description(ts_node_type(node)));
}

// --- module ---------------------------------------------------------------------------------

ast::Module Lowerer::lower_module() {
  ast::Module module;
  module_ = &module;
  if (ts_node_is_null(root_))
    return module;
  tree_has_error_ = ts_node_has_error(root_);
  if (sym(root_) != Sym::Module) {
    // The whole file is one ERROR (or something else unexpected): report it and lower nothing.
    report_syntax_errors(root_);
    return module;
  }
  for (const Child &c : named_children(root_)) {
    check_indentation(c.node, 0);
    lower_top_level(c.node);
    // A queue, not recursion: each hoisted function may hold the next one.
    for (size_t i = 0; i < pending_.size(); ++i)
      lower_top_level(pending_[i]);
    pending_.clear();
  }
  return module;
}

void Lowerer::lower_top_level(TSNode node) {
  begin_statement();
  block_depth_ = 0;
  const Sym s = sym(node);
  switch (s) {
  case Sym::Error:
    report_error_node(node);
    return;
  case Sym::FunctionDefinition:
  case Sym::DecoratedDefinition: {
    const TSNode definition =
        s == Sym::DecoratedDefinition ? field(node, g_.fields.definition) : node;
    if (!ts_node_is_null(definition) && sym(definition) == Sym::ClassDefinition) {
      if (!ts_node_has_error(node) || !report_syntax_errors(node))
        unsupported(codes::kUnsupportedTopLevel, header_range(node), kClass);
      return;
    }
    if (ts_node_is_null(definition)) {
      report_syntax_errors(node);
      return;
    }
    if (auto function = lower_function(definition, s == Sym::DecoratedDefinition ? node : TSNode{}))
      module_->functions.push_back(std::move(*function));
    return;
  }
  default:
    break;
  }
  if (ts_node_has_error(node) && report_syntax_errors(node))
    return;
  if (ts_node_is_missing(node))
    return;
  if (s == Sym::ExpressionStatement) {
    const std::vector<Child> kids = named_children(node);
    if (kids.size() == 1 && (kids[0].sym == Sym::String || kids[0].sym == Sym::ConcatenatedString))
      return; // a docstring or a string used as a comment
    if (kids.size() == 1 && kids[0].sym == Sym::Assignment) {
      lower_constant(node, kids[0].node);
      return;
    }
    const Construct &construct = kids.size() == 1 && kids[0].sym == Sym::AugmentedAssignment
                                     ? kAssignmentStatement
                                     : kExpressionStatement;
    unsupported(codes::kUnsupportedTopLevel, range_of(node), construct,
                "at the top level of an Argus file, which holds only constants and functions");
    return;
  }
  if (s == Sym::ImportStatement || s == Sym::ImportFromStatement ||
      s == Sym::FutureImportStatement) {
    unsupported(codes::kUnsupportedTopLevel, range_of(node), kImport, "in Argus files");
    return;
  }
  const Range range = header_range(node);
  if (s == Sym::ClassDefinition) {
    unsupported(codes::kUnsupportedTopLevel, range, kClass);
    return;
  }
  if (const Construct *construct = statement_construct(s)) {
    unsupported(codes::kUnsupportedTopLevel, range, *construct,
                "at the top level of an Argus file, which holds only constants and functions");
    return;
  }
  const std::string type = ts_node_type(node);
  error(codes::kUnsupportedTopLevel, range,
        "top-level statements other than constants and functions are not supported (found " + type +
            ")")
      .data = nlohmann::json{{"construct", type}};
}

void Lowerer::lower_constant(TSNode statement, TSNode assignment) {
  const TSNode left = field(assignment, g_.fields.left);
  const TSNode type = field(assignment, g_.fields.type);
  const TSNode right = field(assignment, g_.fields.right);
  constexpr const char *kWhere = "at the top level of an Argus file";
  if (ts_node_is_null(left) || sym(left) != Sym::Identifier) {
    unsupported(codes::kUnsupportedTopLevel, range_of(statement), kComplexConstant, kWhere);
    return;
  }
  if (ts_node_is_null(right)) {
    unsupported(codes::kUnsupportedTopLevel, range_of(statement), kConstantWithoutValue, kWhere);
    return;
  }
  if (sym(right) == Sym::Assignment) {
    unsupported(codes::kUnsupportedTopLevel, range_of(statement), kChainedConstant, kWhere);
    return;
  }
  ast::Constant constant;
  constant.name = identifier(left);
  constant.range = range_of(statement);
  constant.name_range = range_of(left);
  if (!ts_node_is_null(type))
    constant.annotation = lower_type(type);
  constant.value = lower_expr(right);
  module_->constants.push_back(std::move(constant));
}

// --- functions ------------------------------------------------------------------------------

std::optional<ast::Function> Lowerer::lower_function(TSNode definition, TSNode decorated) {
  const bool has_decorators = !ts_node_is_null(decorated);
  const TSNode whole = has_decorators ? decorated : definition;
  const Fields &f = g_.fields;
  bool fatal = false;
  ast::Function function;
  function.range = range_of(whole);

  // Syntax errors in the signature make the function unusable; ERROR nodes elsewhere in the
  // definition (tree-sitter puts a broken first statement there) are reported and skipped.
  std::vector<Child> kids = children(definition);
  bool is_async = false;
  for (const Child &c : kids) {
    if (c.tok == Tok::Async && !c.named)
      is_async = true;
    if (c.field == f.body)
      continue;
    if (c.sym == Sym::Error || ts_node_is_missing(c.node) || ts_node_has_error(c.node)) {
      const bool broken = report_syntax_errors(c.node);
      if (c.field == f.name || c.field == f.parameters || c.field == f.return_type ||
          c.field == f.type_parameters)
        fatal = fatal || broken;
    }
  }
  if (has_decorators) {
    for (const Child &c : named_children(decorated)) {
      if (c.sym != Sym::Decorator)
        continue;
      begin_statement();
      if (ts_node_has_error(c.node) || ts_node_is_missing(c.node)) {
        fatal = report_syntax_errors(c.node) || fatal;
        continue;
      }
      ast::Decorator decorator;
      if (lower_decorator(c.node, decorator))
        function.decorators.push_back(std::move(decorator));
      else
        fatal = true;
    }
  }
  if (is_async && !fatal) {
    Range range = range_of(definition);
    const TSNode name = field(definition, f.name);
    if (!ts_node_is_null(name))
      range.end = range_of(name).end;
    unsupported(codes::kUnsupportedTopLevel, range, kAsyncFunction);
    fatal = true;
  }

  const TSNode name = field(definition, f.name);
  if (!ts_node_is_null(name)) {
    function.name = identifier(name);
    function.name_range = range_of(name);
  }
  begin_statement();
  const TSNode type_parameters = field(definition, f.type_parameters);
  if (!ts_node_is_null(type_parameters) && !ts_node_has_error(type_parameters))
    unsupported(codes::kUnsupportedParameter, range_of(type_parameters), kTypeParameters);
  const TSNode parameters = field(definition, f.parameters);
  if (!fatal && !ts_node_is_null(parameters))
    lower_parameters(parameters, function.params);
  const TSNode return_type = field(definition, f.return_type);
  if (!fatal && !ts_node_is_null(return_type))
    function.return_annotation = lower_type(return_type);

  const TSNode body = field(definition, f.body);
  block_depth_ = 0;
  const bool saved_in_function = in_function_;
  const bool saved_hoisted = hoisted_;
  in_function_ = true;
  hoisted_ = false;
  if (!ts_node_is_null(body))
    lower_block(body, definition, function.body, /*function_body=*/true);
  if (hoisted_) {
    // The function ends where its own statements end, not after the code hoisted out of it.
    function.range.end = function.body.empty()
                             ? range_of(ts_node_is_null(parameters) ? name : parameters).end
                             : function.body.back()->range.end;
  }
  in_function_ = saved_in_function;
  hoisted_ = saved_hoisted;
  if (fatal)
    return std::nullopt;
  return function;
}

bool Lowerer::lower_decorator(TSNode node, ast::Decorator &out) {
  TSNode expression{};
  for (const Child &c : named_children(node)) {
    expression = c.node;
    break;
  }
  if (ts_node_is_null(expression))
    return false;
  out.range = range_of(expression);
  out.expr = lower_expr(expression);
  const ast::Expr *named = out.expr.get();
  if (named->kind == ast::ExprKind::Call)
    named = &named->callee();
  out.name = named->dotted_name();
  out.name_range = named->range;
  if (out.name.empty() && out.expr->kind != ast::ExprKind::Error) {
    unsupported(codes::kUnsupportedExpression, out.range, kDecoratorExpression);
    return false;
  }
  return !out.name.empty();
}

void Lowerer::lower_parameters(TSNode parameters, std::vector<ast::Param> &out) {
  const Fields &f = g_.fields;
  for (const Child &c : named_children(parameters)) {
    const Range range = range_of(c.node);
    ast::Param param;
    param.range = range;
    TSNode name{};
    TSNode type{};
    TSNode value{};
    switch (c.sym) {
    case Sym::Identifier:
      name = c.node;
      break;
    case Sym::TypedParameter:
      for (const Child &k : named_children(c.node)) {
        if (k.field == f.type)
          type = k.node;
        else if (ts_node_is_null(name))
          name = k.node;
      }
      break;
    case Sym::DefaultParameter:
    case Sym::TypedDefaultParameter:
      name = field(c.node, f.name);
      type = field(c.node, f.type);
      value = field(c.node, f.value);
      break;
    case Sym::ListSplatPattern:
      unsupported(codes::kUnsupportedParameter, range, kStarArgs);
      continue;
    case Sym::DictionarySplatPattern:
      unsupported(codes::kUnsupportedParameter, range, kStarStarKwargs);
      continue;
    case Sym::PositionalSeparator:
      unsupported(codes::kUnsupportedParameter, range, kPositionalSeparator);
      continue;
    case Sym::KeywordSeparator:
      unsupported(codes::kUnsupportedParameter, range, kKeywordSeparator);
      continue;
    default:
      unsupported(codes::kUnsupportedParameter, range, kTupleParameter);
      continue;
    }
    if (ts_node_is_null(name))
      continue;
    switch (sym(name)) {
    case Sym::Identifier:
      break;
    case Sym::ListSplatPattern:
      unsupported(codes::kUnsupportedParameter, range, kStarArgs);
      continue;
    case Sym::DictionarySplatPattern:
      unsupported(codes::kUnsupportedParameter, range, kStarStarKwargs);
      continue;
    default:
      unsupported(codes::kUnsupportedParameter, range, kTupleParameter);
      continue;
    }
    param.name = identifier(name);
    param.name_range = range_of(name);
    if (!ts_node_is_null(type))
      param.annotation = lower_type(type);
    if (!ts_node_is_null(value))
      param.default_value = lower_expr(value);
    out.push_back(std::move(param));
  }
}

// --- statements -----------------------------------------------------------------------------

bool Lowerer::is_docstring(TSNode statement) {
  if (sym(statement) != Sym::ExpressionStatement || ts_node_has_error(statement))
    return false;
  const std::vector<Child> kids = named_children(statement);
  return kids.size() == 1 && kids[0].sym == Sym::String;
}

bool Lowerer::enter_block(TSNode node) {
  if (block_depth_ < options_.max_expression_depth)
    return true;
  if (!depth_reported_) {
    depth_reported_ = true;
    Range range = range_of(node);
    range.end = range.begin;
    const std::vector<Child> kids = children(node);
    if (!kids.empty())
      range.end = range_of(kids.front().node).end;
    error(codes::kNestingTooDeep, range,
          "statements are nested too deeply (the limit is " +
              std::to_string(options_.max_expression_depth) + " levels)");
  }
  return false;
}

void Lowerer::lower_block(TSNode block, TSNode owner, std::vector<ast::StmtPtr> &out,
                          bool function_body) {
  const std::vector<Child> kids = named_children(block);
  if (kids.empty()) {
    // tree-sitter accepts `if x:` followed by nothing; Python does not. Report it unless the
    // block's parent already shows why (an ERROR swallowed the body).
    if (!ts_node_has_error(owner)) {
      const Position at = to_position(ts_node_start_point(block));
      error(codes::kMissingToken, Range{at, at}, "missing indented block");
    }
    return;
  }
  out.reserve(out.size() + kids.size());
  bool first = true;
  uint32_t indent = UINT32_MAX;
  for (const Child &c : kids) {
    const uint32_t column = ts_node_start_point(c.node).column;
    if (indent == UINT32_MAX && c.sym != Sym::Error && starts_line(c.node))
      indent = column;
    else if (!(in_function_ && tree_has_error_ && column == 0)) // hoisted: see lower_statement
      check_indentation(c.node, indent);
    if (function_body && first && is_docstring(c.node)) {
      first = false;
      continue;
    }
    first = false;
    lower_statement(c.node, out);
  }
}

bool Lowerer::starts_line(TSNode node) const {
  const Position at = to_position(ts_node_start_point(node));
  const std::string_view line = source_.line(at.line);
  const std::string_view before = line.substr(0, std::min<size_t>(at.column, line.size()));
  if (before.find_first_not_of(" \t\f") != std::string_view::npos)
    return false;
  // After a backslash continuation the line continues the previous one.
  if (at.line == 0)
    return true;
  const std::string_view previous = source_.line(at.line - 1);
  return previous.empty() || previous.back() != '\\';
}

void Lowerer::check_indentation(TSNode node, uint32_t indent) {
  // tree-sitter's scanner is lenient about indentation; Python is not.
  if (indent == UINT32_MAX || sym(node) == Sym::Error || !starts_line(node))
    return;
  const Position at = to_position(ts_node_start_point(node));
  if (at.column == indent)
    return;
  error(codes::kSyntaxError, Range{Position{at.line, 0}, at},
        at.column > indent ? "syntax error: unexpected indent"
                           : "syntax error: unindent does not match any outer indentation level");
}

Range Lowerer::header_range(TSNode node) {
  Range range = range_of(node);
  if (!is_compound(sym(node)))
    return range;
  // The header: from the keyword to the name when there is one ("class Foo", "def helper"),
  // else the keyword ("try", "with").
  TSNode definition = node;
  if (sym(node) == Sym::DecoratedDefinition) {
    definition = field(node, g_.fields.definition);
    if (ts_node_is_null(definition))
      definition = node;
  }
  const TSNode name = field(definition, g_.fields.name);
  if (!ts_node_is_null(name)) {
    range.end = range_of(name).end;
  } else {
    const std::vector<Child> kids = children(node);
    if (!kids.empty())
      range.end = range_of(kids.front().node).end;
  }
  return range;
}

void Lowerer::reject_statement(TSNode node, const Construct &construct) {
  unsupported(codes::kUnsupportedStatement, header_range(node), construct);
}

void Lowerer::lower_statement(TSNode node, std::vector<ast::StmtPtr> &out) {
  // A statement of a function body never starts in column 0. When one does, tree-sitter's error
  // recovery lost a dedent and put the following top-level code inside the function: lower it
  // as the top-level code it is, so one syntax error does not swallow the rest of the file.
  if (in_function_ && tree_has_error_ && ts_node_start_point(node).column == 0) {
    hoisted_ = true;
    pending_.push_back(node);
    return;
  }
  begin_statement();
  const Sym s = sym(node);
  if (s == Sym::Error) {
    report_error_node(node);
    return;
  }
  if (ts_node_is_missing(node)) {
    report_missing_node(node);
    return;
  }
  ast::StmtPtr stmt;
  switch (s) {
  case Sym::IfStatement:
    stmt = lower_if(node);
    break;
  case Sym::ForStatement:
    stmt = lower_for(node);
    break;
  case Sym::WhileStatement:
    stmt = lower_while(node);
    break;
  case Sym::BreakStatement:
    stmt = make_stmt(ast::StmtKind::Break, range_of(node));
    break;
  case Sym::ContinueStatement:
    stmt = make_stmt(ast::StmtKind::Continue, range_of(node));
    break;
  case Sym::ExpressionStatement:
  case Sym::ReturnStatement:
  case Sym::PassStatement:
    if (ts_node_has_error(node) && report_syntax_errors(node))
      return;
    if (s == Sym::ExpressionStatement && split_at_line_break(node, out))
      return;
    stmt = s == Sym::ExpressionStatement ? lower_expression_statement(node)
           : s == Sym::ReturnStatement   ? lower_return(node)
                                         : make_stmt(ast::StmtKind::Pass, range_of(node));
    break;
  default: {
    if (ts_node_has_error(node)) {
      report_syntax_errors(node);
      return;
    }
    const Construct *construct = statement_construct(s);
    if (construct != nullptr) {
      reject_statement(node, *construct);
    } else {
      const std::string type = ts_node_type(node);
      error(codes::kUnsupportedStatement, range_of(node),
            type + " is not supported in Argus kernels")
          .data = nlohmann::json{{"construct", type}};
    }
    stmt = make_stmt(ast::StmtKind::Error, range_of(node));
    break;
  }
  }
  if (stmt)
    out.push_back(std::move(stmt));
}

// tree-sitter-python's scanner emits a newline only where the grammar can
// take one, so a half-typed `x =` followed by the next line's `y = f(z)`
// parses, without an error, as the chained `x = y = f(z)` (and `x = a +`
// followed by `g(b)` as `x = a + g(b)`). Python joins lines only inside
// brackets or after a backslash: a statement that goes on past the end of a
// line otherwise is the line being typed. Its error stays on that line and
// the statement that follows is lowered on its own (issue 12: an edit's
// errors stay at the edit).
std::optional<size_t> Lowerer::line_break_inside(TSNode node) const {
  // Consecutive tokens on different lines with no bracket open between them
  // and no backslash in the gap. Tokens, not characters: a string (even a
  // triple-quoted one over several lines) is tokens that touch.
  const std::string &text = source_.text();
  int depth = 0;
  std::optional<TSNode> previous;
  std::optional<size_t> found;
  const std::function<void(TSNode)> walk = [&](TSNode n) {
    if (found)
      return;
    const uint32_t count = ts_node_child_count(n);
    const std::string_view type = ts_node_type(n);
    if (count == 0 || type == "string") {
      if (previous && depth == 0 && ts_node_start_point(n).row > ts_node_end_point(*previous).row) {
        const size_t from = ts_node_end_byte(*previous), to = ts_node_start_byte(n);
        const std::string_view gap = std::string_view(text).substr(from, to - from);
        if (gap.find('\\') == std::string_view::npos &&
            ts_node_type(*previous) != std::string_view("comment")) {
          found = from + gap.find('\n');
          return;
        }
      }
      if (type == "(" || type == "[" || type == "{")
        ++depth;
      else if ((type == ")" || type == "]" || type == "}") && depth > 0)
        --depth;
      previous = n;
      return;
    }
    for (uint32_t i = 0; i < count; ++i)
      walk(ts_node_child(n, i));
  };
  walk(node);
  return found;
}

bool Lowerer::split_at_line_break(TSNode node, std::vector<ast::StmtPtr> &out) {
  const std::optional<size_t> cut = line_break_inside(node);
  if (!cut)
    return false;
  // The error at the end of the line being typed.
  const TSPoint start = ts_node_start_point(node);
  const std::string_view line = source_.line(start.row);
  size_t column = line.size();
  while (column > 0 &&
         (line[column - 1] == ' ' || line[column - 1] == '\t' || line[column - 1] == '\r'))
    --column;
  const Position at{start.row, static_cast<uint32_t>(column)};
  error(codes::kSyntaxError, Range{at, at},
        "the statement stops at the end of this line (Python joins lines only inside brackets "
        "or after a backslash)");
  // `x =` then `y = f(z)`: `x` is assigned an error, and `y = f(z)` is the
  // statement it is. Anything else that runs on is dropped whole.
  const std::vector<Child> kids = named_children(node);
  if (kids.size() == 1 && kids[0].sym == Sym::Assignment &&
      ts_node_is_null(field(kids[0].node, g_.fields.type))) {
    const Fields &f = g_.fields;
    auto stmt = make_stmt(ast::StmtKind::Assign, Range{range_of(node).begin, at});
    TSNode current = kids[0].node;
    for (;;) {
      stmt->targets.push_back(lower_target(field(current, f.left)));
      const TSNode right = field(current, f.right);
      if (ts_node_is_null(right) || ts_node_start_byte(right) < *cut) {
        stmt->range = range_of(node); // what ran on is dropped with it
        stmt->value = make_expr(ast::ExprKind::Error, Range{at, at});
        out.push_back(std::move(stmt));
        return true;
      }
      if (sym(right) != Sym::Assignment || !ts_node_is_null(field(right, f.type))) {
        stmt->value = make_expr(ast::ExprKind::Error, Range{at, at});
        out.push_back(std::move(stmt));
        auto rest = make_stmt(ast::StmtKind::Expr, range_of(right));
        rest->value = lower_expr(right);
        out.push_back(std::move(rest));
        return true;
      }
      if (ts_node_start_byte(right) > *cut) {
        stmt->value = make_expr(ast::ExprKind::Error, Range{at, at});
        out.push_back(std::move(stmt));
        out.push_back(lower_assignment(right, right));
        return true;
      }
      current = right;
    }
  }
  out.push_back(make_stmt(ast::StmtKind::Error, range_of(node)));
  return true;
}

ast::StmtPtr Lowerer::lower_expression_statement(TSNode node) {
  const std::vector<Child> kids = named_children(node);
  const Range range = range_of(node);
  if (kids.size() == 1) {
    switch (kids[0].sym) {
    case Sym::Assignment:
      return lower_assignment(node, kids[0].node);
    case Sym::AugmentedAssignment:
      return lower_augmented_assignment(node, kids[0].node);
    case Sym::Ellipsis:
      return make_stmt(ast::StmtKind::Pass, range); // `...` as a placeholder body
    default: {
      auto stmt = make_stmt(ast::StmtKind::Expr, range);
      stmt->value = lower_expr(kids[0].node);
      return stmt;
    }
    }
  }
  // `a, b` as a statement: a tuple expression.
  auto stmt = make_stmt(ast::StmtKind::Expr, range);
  auto tuple = make_expr(ast::ExprKind::Tuple, range);
  for (const Child &c : kids)
    tuple->operands.push_back(lower_expr(c.node));
  stmt->value = std::move(tuple);
  return stmt;
}

ast::StmtPtr Lowerer::lower_assignment(TSNode statement, TSNode assignment) {
  const Fields &f = g_.fields;
  const Range range = range_of(statement);
  const TSNode left = field(assignment, f.left);
  const TSNode type = field(assignment, f.type);
  TSNode right = field(assignment, f.right);
  if (!ts_node_is_null(type)) {
    auto stmt = make_stmt(ast::StmtKind::AnnAssign, range);
    stmt->target = lower_target(left);
    stmt->annotation = lower_type(type);
    if (!ts_node_is_null(right))
      stmt->value = lower_expr(right);
    return stmt;
  }
  auto stmt = make_stmt(ast::StmtKind::Assign, range);
  stmt->targets.push_back(lower_target(left));
  // `a = b = v` nests to the right: a loop, so a long chain cannot exhaust the stack.
  while (!ts_node_is_null(right) && sym(right) == Sym::Assignment &&
         ts_node_is_null(field(right, f.type))) {
    stmt->targets.push_back(lower_target(field(right, f.left)));
    right = field(right, f.right);
  }
  stmt->value = ts_node_is_null(right) ? error_expr(range) : lower_expr(right);
  return stmt;
}

ast::StmtPtr Lowerer::lower_augmented_assignment(TSNode statement, TSNode assignment) {
  const Fields &f = g_.fields;
  const TSNode op = field(assignment, f.operator_);
  const std::optional<ast::BinaryOp> binary = augmented_op(tok(op));
  if (!binary) {
    if (tok(op) == Tok::AtEq)
      unsupported(codes::kUnsupportedExpression, range_of(op), kAugmentedMatMul);
    else
      error(codes::kUnsupportedExpression, range_of(op),
            "the '" + std::string(text(op)) + "' operator is not supported in Argus kernels")
          .data = nlohmann::json{{"construct", std::string(text(op))}};
    return make_stmt(ast::StmtKind::Error, range_of(statement));
  }
  auto stmt = make_stmt(ast::StmtKind::AugAssign, range_of(statement));
  stmt->aug_op = *binary;
  stmt->target = lower_target(field(assignment, f.left));
  stmt->value = lower_expr(field(assignment, f.right));
  return stmt;
}

bool Lowerer::header_has_errors(TSNode node) {
  if (!ts_node_has_error(node))
    return false;
  return header_has_errors(children(node));
}

bool Lowerer::header_has_errors(const std::vector<Child> &kids) {
  bool fatal = false;
  for (const Child &c : kids) {
    if (c.sym == Sym::Block || c.sym == Sym::ElifClause || c.sym == Sym::ElseClause)
      continue;
    if (c.sym == Sym::Error || ts_node_is_missing(c.node) || ts_node_has_error(c.node))
      fatal = report_syntax_errors(c.node) || fatal;
  }
  return fatal;
}

ast::StmtPtr Lowerer::lower_if(TSNode node) {
  const Fields &f = g_.fields;
  if (!enter_block(node))
    return nullptr;
  const Range whole = range_of(node);
  const bool broken = header_has_errors(node);
  auto stmt = make_stmt(ast::StmtKind::If, whole);
  if (!broken)
    stmt->value = lower_expr(field(node, f.condition));
  ++block_depth_;
  const int saved_depth = block_depth_;
  if (const TSNode body = field(node, f.consequence); !ts_node_is_null(body))
    lower_block(body, node, stmt->body, false);
  // elif clauses nest: each is an If in the previous one's orelse.
  ast::Stmt *current = stmt.get();
  bool chain_broken = broken;
  for (const Child &c : children(node)) {
    if (c.field != f.alternative)
      continue;
    begin_statement();
    if (c.sym == Sym::ElifClause) {
      if (!enter_block(c.node))
        break;
      ++block_depth_;
      const bool elif_broken = header_has_errors(c.node);
      chain_broken = chain_broken || elif_broken;
      auto elif = make_stmt(ast::StmtKind::If, Range{range_of(c.node).begin, whole.end});
      if (!elif_broken)
        elif->value = lower_expr(field(c.node, f.condition));
      if (const TSNode body = field(c.node, f.consequence); !ts_node_is_null(body))
        lower_block(body, c.node, elif->body, false);
      ast::Stmt *next = elif.get();
      current->orelse.push_back(std::move(elif));
      current = next;
    } else if (c.sym == Sym::ElseClause) {
      chain_broken = header_has_errors(c.node) || chain_broken;
      if (const TSNode body = field(c.node, f.body); !ts_node_is_null(body))
        lower_block(body, c.node, current->orelse, false);
    }
  }
  block_depth_ = saved_depth - 1;
  if (chain_broken)
    return nullptr;
  return stmt;
}

void Lowerer::reject_loop_else(TSNode else_clause, const Construct &construct) {
  const TSNode keyword = ts_node_child(else_clause, 0);
  unsupported(codes::kUnsupportedStatement,
              range_of(ts_node_is_null(keyword) ? else_clause : keyword), construct);
}

ast::StmtPtr Lowerer::lower_for(TSNode node) {
  const Fields &f = g_.fields;
  if (!enter_block(node))
    return nullptr;
  // One pass over the children: the fields, `async`, and syntax errors in the header.
  const std::vector<Child> kids = children(node);
  const bool broken = ts_node_has_error(node) && header_has_errors(kids);
  TSNode left{}, right{}, body{};
  bool is_async = false;
  for (const Child &c : kids) {
    if (c.field == f.left)
      left = c.node;
    else if (c.field == f.right)
      right = c.node;
    else if (c.field == f.body)
      body = c.node;
    else if (c.field == f.alternative && c.sym == Sym::ElseClause)
      reject_loop_else(c.node, kForElse);
    else if (c.tok == Tok::Async && !c.named)
      is_async = true;
  }
  auto stmt = make_stmt(ast::StmtKind::For, range_of(node));
  if (!broken) {
    stmt->target = lower_target(left);
    begin_statement();
    stmt->value = lower_expr(right);
  }
  ++block_depth_;
  if (!ts_node_is_null(body))
    lower_block(body, node, stmt->body, false);
  --block_depth_;
  if (is_async && !broken) {
    Range range = range_of(node);
    range.end = range_of(left).begin;
    unsupported(codes::kUnsupportedStatement, range, kAsyncFor);
    return make_stmt(ast::StmtKind::Error, range_of(node));
  }
  if (broken)
    return nullptr;
  return stmt;
}

ast::StmtPtr Lowerer::lower_while(TSNode node) {
  const Fields &f = g_.fields;
  if (!enter_block(node))
    return nullptr;
  const std::vector<Child> kids = children(node);
  const bool broken = ts_node_has_error(node) && header_has_errors(kids);
  TSNode condition{}, body{};
  for (const Child &c : kids) {
    if (c.field == f.condition)
      condition = c.node;
    else if (c.field == f.body)
      body = c.node;
    else if (c.field == f.alternative && c.sym == Sym::ElseClause)
      reject_loop_else(c.node, kWhileElse);
  }
  auto stmt = make_stmt(ast::StmtKind::While, range_of(node));
  if (!broken)
    stmt->value = lower_expr(condition);
  ++block_depth_;
  if (!ts_node_is_null(body))
    lower_block(body, node, stmt->body, false);
  --block_depth_;
  if (broken)
    return nullptr;
  return stmt;
}

ast::StmtPtr Lowerer::lower_return(TSNode node) {
  auto stmt = make_stmt(ast::StmtKind::Return, range_of(node));
  for (const Child &c : named_children(node)) {
    stmt->value = lower_expr(c.node);
    break;
  }
  return stmt;
}

} // namespace lower_detail

ast::Module lower_module(const SyntaxTree &tree, const SourceFile &source, DiagnosticSink &sink,
                         const LowerOptions &options) {
  if (!tree)
    return {};
  lower_detail::Lowerer lowerer(tree, source, sink, options);
  return lowerer.lower_module();
}

} // namespace argus
