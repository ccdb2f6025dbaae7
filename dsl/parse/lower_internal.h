// Internals of the lowering (syntax tree → AST), shared by dsl/parse/lower*.cpp.
//
// Node types are resolved once per language into small enums (`Sym` for
// named nodes, `Tok` for anonymous tokens) so the hot paths compare integers,
// not strings. Children are visited with a TSTreeCursor: `ts_node_child(n, i)`
// and `ts_node_next_sibling` are linear in tree-sitter, and a 500-line kernel
// must lower in well under a millisecond.
//
// Recursion is bounded: expressions by `LowerOptions::max_expression_depth`
// (parenthesized chains are unwrapped in a loop), blocks by the same limit;
// error scans are iterative.
#pragma once

#include "argus/dsl/ast.h"
#include "argus/dsl/codes.h"
#include "argus/dsl/diagnostic.h"
#include "argus/dsl/lower.h"
#include "argus/dsl/source.h"

#include <tree_sitter/api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus::lower_detail {

// Named node types the lowering distinguishes (X-macro: enumerator, tree-sitter name).
#define ARGUS_LOWER_NAMED_SYMBOLS(X)                                                               \
  X(Module, "module")                                                                              \
  X(Comment, "comment")                                                                            \
  X(LineContinuation, "line_continuation")                                                         \
  X(Block, "block")                                                                                \
  X(ExpressionStatement, "expression_statement")                                                   \
  X(Assignment, "assignment")                                                                      \
  X(AugmentedAssignment, "augmented_assignment")                                                   \
  X(IfStatement, "if_statement")                                                                   \
  X(ElifClause, "elif_clause")                                                                     \
  X(ElseClause, "else_clause")                                                                     \
  X(ForStatement, "for_statement")                                                                 \
  X(WhileStatement, "while_statement")                                                             \
  X(ReturnStatement, "return_statement")                                                           \
  X(PassStatement, "pass_statement")                                                               \
  X(FunctionDefinition, "function_definition")                                                     \
  X(DecoratedDefinition, "decorated_definition")                                                   \
  X(Decorator, "decorator")                                                                        \
  X(Parameters, "parameters")                                                                      \
  X(LambdaParameters, "lambda_parameters")                                                         \
  X(TypedParameter, "typed_parameter")                                                             \
  X(DefaultParameter, "default_parameter")                                                         \
  X(TypedDefaultParameter, "typed_default_parameter")                                              \
  X(ListSplatPattern, "list_splat_pattern")                                                        \
  X(DictionarySplatPattern, "dictionary_splat_pattern")                                            \
  X(PositionalSeparator, "positional_separator")                                                   \
  X(KeywordSeparator, "keyword_separator")                                                         \
  X(TuplePattern, "tuple_pattern")                                                                 \
  X(ListPattern, "list_pattern")                                                                   \
  X(PatternList, "pattern_list")                                                                   \
  X(Type, "type")                                                                                  \
  X(GenericType, "generic_type")                                                                   \
  X(TypeParameter, "type_parameter")                                                               \
  X(UnionType, "union_type")                                                                       \
  X(SplatType, "splat_type")                                                                       \
  X(ConstrainedType, "constrained_type")                                                           \
  X(MemberType, "member_type")                                                                     \
  X(ClassDefinition, "class_definition")                                                           \
  X(ImportStatement, "import_statement")                                                           \
  X(ImportFromStatement, "import_from_statement")                                                  \
  X(FutureImportStatement, "future_import_statement")                                              \
  X(BreakStatement, "break_statement")                                                             \
  X(ContinueStatement, "continue_statement")                                                       \
  X(TryStatement, "try_statement")                                                                 \
  X(WithStatement, "with_statement")                                                               \
  X(DeleteStatement, "delete_statement")                                                           \
  X(GlobalStatement, "global_statement")                                                           \
  X(NonlocalStatement, "nonlocal_statement")                                                       \
  X(AssertStatement, "assert_statement")                                                           \
  X(RaiseStatement, "raise_statement")                                                             \
  X(MatchStatement, "match_statement")                                                             \
  X(PrintStatement, "print_statement")                                                             \
  X(ExecStatement, "exec_statement")                                                               \
  X(TypeAliasStatement, "type_alias_statement")                                                    \
  X(Identifier, "identifier")                                                                      \
  X(Integer, "integer")                                                                            \
  X(Float, "float")                                                                                \
  X(True, "true")                                                                                  \
  X(False, "false")                                                                                \
  X(None, "none")                                                                                  \
  X(String, "string")                                                                              \
  X(StringStart, "string_start")                                                                   \
  X(StringEnd, "string_end")                                                                       \
  X(Interpolation, "interpolation")                                                                \
  X(ConcatenatedString, "concatenated_string")                                                     \
  X(Attribute, "attribute")                                                                        \
  X(Call, "call")                                                                                  \
  X(ArgumentList, "argument_list")                                                                 \
  X(KeywordArgument, "keyword_argument")                                                           \
  X(ListSplat, "list_splat")                                                                       \
  X(DictionarySplat, "dictionary_splat")                                                           \
  X(ParenthesizedListSplat, "parenthesized_list_splat")                                            \
  X(Subscript, "subscript")                                                                        \
  X(Slice, "slice")                                                                                \
  X(Tuple, "tuple")                                                                                \
  X(ExpressionList, "expression_list")                                                             \
  X(ParenthesizedExpression, "parenthesized_expression")                                           \
  X(Dictionary, "dictionary")                                                                      \
  X(Pair, "pair")                                                                                  \
  X(UnaryOperator, "unary_operator")                                                               \
  X(NotOperator, "not_operator")                                                                   \
  X(BinaryOperator, "binary_operator")                                                             \
  X(ComparisonOperator, "comparison_operator")                                                     \
  X(BooleanOperator, "boolean_operator")                                                           \
  X(ConditionalExpression, "conditional_expression")                                               \
  X(Lambda, "lambda")                                                                              \
  X(List, "list")                                                                                  \
  X(Set, "set")                                                                                    \
  X(ListComprehension, "list_comprehension")                                                       \
  X(SetComprehension, "set_comprehension")                                                         \
  X(DictionaryComprehension, "dictionary_comprehension")                                           \
  X(GeneratorExpression, "generator_expression")                                                   \
  X(ForInClause, "for_in_clause")                                                                  \
  X(Await, "await")                                                                                \
  X(Yield, "yield")                                                                                \
  X(NamedExpression, "named_expression")                                                           \
  X(Ellipsis, "ellipsis")                                                                          \
  X(AsPattern, "as_pattern")

// Anonymous tokens the lowering distinguishes.
#define ARGUS_LOWER_TOKENS(X)                                                                      \
  X(Plus, "+")                                                                                     \
  X(Minus, "-")                                                                                    \
  X(Star, "*")                                                                                     \
  X(Slash, "/")                                                                                    \
  X(SlashSlash, "//")                                                                              \
  X(Percent, "%")                                                                                  \
  X(StarStar, "**")                                                                                \
  X(LtLt, "<<")                                                                                    \
  X(GtGt, ">>")                                                                                    \
  X(Amp, "&")                                                                                      \
  X(Pipe, "|")                                                                                     \
  X(Caret, "^")                                                                                    \
  X(At, "@")                                                                                       \
  X(Tilde, "~")                                                                                    \
  X(PlusEq, "+=")                                                                                  \
  X(MinusEq, "-=")                                                                                 \
  X(StarEq, "*=")                                                                                  \
  X(SlashEq, "/=")                                                                                 \
  X(SlashSlashEq, "//=")                                                                           \
  X(PercentEq, "%=")                                                                               \
  X(StarStarEq, "**=")                                                                             \
  X(LtLtEq, "<<=")                                                                                 \
  X(GtGtEq, ">>=")                                                                                 \
  X(AmpEq, "&=")                                                                                   \
  X(PipeEq, "|=")                                                                                  \
  X(CaretEq, "^=")                                                                                 \
  X(AtEq, "@=")                                                                                    \
  X(Lt, "<")                                                                                       \
  X(Le, "<=")                                                                                      \
  X(Gt, ">")                                                                                       \
  X(Ge, ">=")                                                                                      \
  X(EqEq, "==")                                                                                    \
  X(NotEq, "!=")                                                                                   \
  X(LtGt, "<>")                                                                                    \
  X(In, "in")                                                                                      \
  X(NotIn, "not in")                                                                               \
  X(Is, "is")                                                                                      \
  X(IsNot, "is not")                                                                               \
  X(And, "and")                                                                                    \
  X(Or, "or")                                                                                      \
  X(Async, "async")                                                                                \
  X(Comma, ",")                                                                                    \
  X(LParen, "(")                                                                                   \
  X(RParen, ")")                                                                                   \
  X(LBracket, "[")                                                                                 \
  X(RBracket, "]")                                                                                 \
  X(LBrace, "{")                                                                                   \
  X(RBrace, "}")

enum class Sym : uint8_t {
  Other,
  Error, // tree-sitter's ERROR node
#define ARGUS_LOWER_ENUM(name, text) name,
  ARGUS_LOWER_NAMED_SYMBOLS(ARGUS_LOWER_ENUM)
};

enum class Tok : uint8_t {
  Other,
  ARGUS_LOWER_TOKENS(ARGUS_LOWER_ENUM)
#undef ARGUS_LOWER_ENUM
};

// Field ids of the grammar, resolved once.
struct Fields {
  TSFieldId left = 0, right = 0, type = 0, operator_ = 0, name = 0, value = 0, body = 0,
            condition = 0, consequence = 0, alternative = 0, function = 0, arguments = 0,
            object = 0, attribute = 0, subscript = 0, parameters = 0, return_type = 0,
            definition = 0, argument = 0, operators = 0, key = 0, type_parameters = 0;
};

// The grammar's symbol and field tables (built once; immutable afterwards).
struct Grammar {
  std::vector<Sym> named;  // by symbol id; Other for anonymous symbols
  std::vector<Tok> tokens; // by symbol id; Other for named symbols
  Fields fields;

  Sym sym(TSNode node) const {
    const TSSymbol id = ts_node_symbol(node);
    if (id == static_cast<TSSymbol>(-1))
      return Sym::Error;
    return id < named.size() ? named[id] : Sym::Other;
  }
  Tok tok(TSNode node) const {
    const TSSymbol id = ts_node_symbol(node);
    return id < tokens.size() ? tokens[id] : Tok::Other;
  }
};

const Grammar &grammar_tables();

// One child of a node, extras (comments) left out.
struct Child {
  TSNode node;
  TSFieldId field;
  Sym sym;
  Tok tok;
  bool named;
};

inline Position to_position(TSPoint point) { return Position{point.row, point.column}; }
inline Range range_of(TSNode node) {
  return Range{to_position(ts_node_start_point(node)), to_position(ts_node_end_point(node))};
}
inline Range span(Range first, Range last) { return Range{first.begin, last.end}; }

// What an unsupported construct is called in messages and in `data.construct`.
struct Construct {
  const char *name;    // singular, also the data's "construct": "break statement"
  const char *subject; // the message's subject: "break statements"
  const char *hint;    // appended after "; " when not null
};

// Literal parsing (lower_literal.cpp). Each returns an error message, empty on success.
struct IntLiteral {
  uint64_t magnitude = 0; // up to 2^63 (so `-9223372036854775808` can be lowered)
  bool complex = false;   // a `j` suffix: not an integer at all
};
std::string parse_int_literal(std::string_view text, IntLiteral &out);
std::string parse_float_literal(std::string_view text, double &out, bool &complex);
// Unescapes the body of a (non-raw) string; on a bad escape returns its message and sets
// `bad_offset`/`bad_length` to the escape's bytes within `body`.
std::string unescape_string(std::string_view body, std::string &out, size_t &bad_offset,
                            size_t &bad_length);

class Lowerer {
public:
  Lowerer(const SyntaxTree &tree, const SourceFile &source, DiagnosticSink &sink,
          const LowerOptions &options);
  ~Lowerer();
  Lowerer(const Lowerer &) = delete;
  Lowerer &operator=(const Lowerer &) = delete;

  ast::Module lower_module();

private:
  // --- tree access -------------------------------------------------------------------------
  std::vector<Child> children(TSNode node);
  std::vector<Child> named_children(TSNode node);
  TSNode field(TSNode node, TSFieldId id) const { return ts_node_child_by_field_id(node, id); }
  std::string_view text(TSNode node) const;
  // The text of an identifier; a Python keyword there (tree-sitter is lenient) is reported.
  std::string identifier(TSNode node);
  Sym sym(TSNode node) const { return g_.sym(node); }
  Tok tok(TSNode node) const { return g_.tok(node); }

  // --- diagnostics -------------------------------------------------------------------------
  Diagnostic &error(std::string_view code, Range range, std::string message);
  void unsupported(std::string_view code, Range range, const Construct &construct,
                   const char *where = "in Argus kernels");
  // Reports every ERROR (once, not its insides) and MISSING node under `node`. Returns true
  // when the subtree cannot be lowered: it holds an ERROR node or a missing named node.
  bool report_syntax_errors(TSNode node);
  void report_error_node(TSNode node);
  void report_missing_node(TSNode node);
  void begin_statement() { depth_reported_ = false; }

  // --- module and functions (lower.cpp) ----------------------------------------------------
  void lower_top_level(TSNode node);
  void lower_constant(TSNode statement, TSNode assignment);
  std::optional<ast::Function> lower_function(TSNode definition, TSNode decorated);
  bool lower_decorator(TSNode node, ast::Decorator &out);
  void lower_parameters(TSNode parameters, std::vector<ast::Param> &out);
  ast::ExprPtr lower_type(TSNode type);

  // --- statements (lower.cpp) --------------------------------------------------------------
  void lower_block(TSNode block, TSNode owner, std::vector<ast::StmtPtr> &out, bool function_body);
  void lower_statement(TSNode node, std::vector<ast::StmtPtr> &out);
  // A depth-0 line break inside a simple statement (lower.cpp): its byte.
  std::optional<size_t> line_break_inside(TSNode node) const;
  // Reports it and lowers what can be kept; false when there is none.
  bool split_at_line_break(TSNode node, std::vector<ast::StmtPtr> &out);
  ast::StmtPtr lower_expression_statement(TSNode node);
  ast::StmtPtr lower_assignment(TSNode statement, TSNode assignment);
  ast::StmtPtr lower_augmented_assignment(TSNode statement, TSNode assignment);
  ast::StmtPtr lower_if(TSNode node);
  ast::StmtPtr lower_for(TSNode node);
  ast::StmtPtr lower_while(TSNode node);
  ast::StmtPtr lower_return(TSNode node);
  void reject_statement(TSNode node, const Construct &construct);
  Range header_range(TSNode node);
  bool starts_line(TSNode node) const;
  void check_indentation(TSNode node, uint32_t indent);
  bool header_has_errors(TSNode node);
  bool header_has_errors(const std::vector<Child> &kids);
  void reject_loop_else(TSNode else_clause, const Construct &construct);
  bool enter_block(TSNode node);
  bool is_docstring(TSNode statement);

  // --- expressions (lower_expr.cpp) --------------------------------------------------------
  ast::ExprPtr lower_expr(TSNode node);
  ast::ExprPtr lower_expr_node(TSNode node);
  ast::ExprPtr lower_target(TSNode node);
  ast::ExprPtr lower_sequence(TSNode node, ast::ExprKind kind, bool targets);
  ast::ExprPtr lower_integer(TSNode node, bool negated);
  ast::ExprPtr lower_float(TSNode node);
  ast::ExprPtr lower_string(TSNode node);
  ast::ExprPtr lower_attribute(TSNode node);
  ast::ExprPtr lower_call(TSNode node);
  ast::ExprPtr lower_subscript(TSNode node);
  ast::ExprPtr lower_generic_type(TSNode node);
  ast::ExprPtr lower_dictionary(TSNode node);
  ast::ExprPtr lower_unary(TSNode node);
  ast::ExprPtr lower_binary(TSNode node);
  ast::ExprPtr lower_comparison(TSNode node);
  ast::ExprPtr lower_boolean(TSNode node);
  ast::ExprPtr lower_conditional(TSNode node);
  ast::ExprPtr lower_lambda(TSNode node);
  ast::ExprPtr lower_generator(TSNode node);
  ast::ExprPtr reject_expr(TSNode node, const Construct &construct);
  ast::ExprPtr error_expr(Range range);
  ast::ExprPtr too_deep(TSNode node);

  const SourceFile &source_;
  DiagnosticSink &sink_;
  const LowerOptions &options_;
  const Grammar &g_;
  TSNode root_;
  TSTreeCursor cursor_;
  ast::Module *module_ = nullptr;
  bool tree_has_error_ = false; // the tree holds ERROR or MISSING nodes somewhere
  bool in_function_ = false;    // lowering a function body
  bool hoisted_ = false;        // the current function's body held misparsed top-level code
  std::vector<TSNode> pending_; // top-level code found inside a function body, lowered next
  int depth_ = 0;               // current expression depth
  int block_depth_ = 0;         // current statement nesting
  bool depth_reported_ = false; // E0004 already reported for this statement
};

// Helpers shared by the lowering files.
ast::ExprPtr make_expr(ast::ExprKind kind, Range range);

} // namespace argus::lower_detail
