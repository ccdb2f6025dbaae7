// Syntax tree → AST: expressions and assignment targets.
#include "lower_internal.h"

#include <cstdint>
#include <limits>

namespace argus::lower_detail {
namespace {

constexpr Construct kList{"list", "lists are", "use a tuple"};
constexpr Construct kSet{"set", "sets are", nullptr};
constexpr Construct kListComprehension{"list comprehension", "list comprehensions are", nullptr};
constexpr Construct kSetComprehension{"set comprehension", "set comprehensions are", nullptr};
constexpr Construct kDictComprehension{"dict comprehension", "dict comprehensions are", nullptr};
constexpr Construct kGenerator{"generator expression", "generator expressions are", nullptr};
constexpr Construct kAwait{"await expression", "await expressions are", nullptr};
constexpr Construct kYield{"yield expression", "yield expressions are", nullptr};
constexpr Construct kWalrus{"assignment expression", "assignment expressions (:=) are", nullptr};
constexpr Construct kEllipsis{"ellipsis", "ellipsis literals (...) are", nullptr};
constexpr Construct kNone{"None", "None is", nullptr};
constexpr Construct kStarred{"starred expression", "starred expressions (*x) are", nullptr};
constexpr Construct kDoubleStarred{"double-starred expression",
                                   "double-starred expressions (**x) are", nullptr};
constexpr Construct kConcatenated{"concatenated string", "implicitly concatenated strings are",
                                  "write one string literal"};
constexpr Construct kFString{"f-string", "f-strings are", nullptr};
constexpr Construct kBytes{"byte string", "byte strings are", nullptr};
constexpr Construct kTripleQuoted{"triple-quoted string",
                                  "triple-quoted strings (other than docstrings) are", nullptr};
constexpr Construct kComplex{"complex number", "complex numbers are", nullptr};
constexpr Construct kSlice{"slice", "slices are",
                           "use subview(t, offsets, sizes) for a part of a tensor"};
constexpr Construct kMatMul{"'@' operator", "the matrix multiplication operator '@' is", nullptr};
constexpr Construct kIs{"'is' comparison", "'is' comparisons are", "use == or !="};
constexpr Construct kIsNot{"'is not' comparison", "'is not' comparisons are", "use == or !="};
constexpr Construct kIn{"'in' comparison", "'in' comparisons are", nullptr};
constexpr Construct kNotIn{"'not in' comparison", "'not in' comparisons are", nullptr};
constexpr Construct kLtGt{"'<>' comparison", "the Python 2 operator '<>' is", "use !="};
constexpr Construct kLambdaParameter{"lambda parameter",
                                     "lambda parameters other than plain names are", nullptr};
constexpr Construct kGeneratorArgument{"generator argument", "generator expressions are",
                                       "only assume(fact for i in range(n)) takes one"};
constexpr Construct kGeneratorFact{
    "generator fact", "generator expressions other than (fact for i in range(n)) are", nullptr};
constexpr Construct kListTarget{"list target", "list unpacking targets ([a, b] = ...) are",
                                "use a tuple: a, b = ..."};
constexpr Construct kStarredTarget{"starred target", "starred assignment targets (*x) are",
                                   nullptr};
constexpr Construct kUnionType{"union type", "union types (a | b) are", nullptr};
constexpr Construct kSplatType{"splat type", "starred annotations are", nullptr};
constexpr Construct kConstrainedType{"constrained type", "constrained types are", nullptr};
constexpr Construct kMemberType{"member type", "annotations of this form are", nullptr};

std::optional<ast::BinaryOp> binary_op(Tok tok) {
  switch (tok) {
  case Tok::Plus:
    return ast::BinaryOp::Add;
  case Tok::Minus:
    return ast::BinaryOp::Sub;
  case Tok::Star:
    return ast::BinaryOp::Mul;
  case Tok::Slash:
    return ast::BinaryOp::Div;
  case Tok::SlashSlash:
    return ast::BinaryOp::FloorDiv;
  case Tok::Percent:
    return ast::BinaryOp::Mod;
  case Tok::StarStar:
    return ast::BinaryOp::Pow;
  case Tok::LtLt:
    return ast::BinaryOp::Shl;
  case Tok::GtGt:
    return ast::BinaryOp::Shr;
  case Tok::Amp:
    return ast::BinaryOp::BitAnd;
  case Tok::Pipe:
    return ast::BinaryOp::BitOr;
  case Tok::Caret:
    return ast::BinaryOp::BitXor;
  default:
    return std::nullopt;
  }
}

std::optional<ast::CompareOp> compare_op(Tok tok) {
  switch (tok) {
  case Tok::Lt:
    return ast::CompareOp::Lt;
  case Tok::Le:
    return ast::CompareOp::Le;
  case Tok::Gt:
    return ast::CompareOp::Gt;
  case Tok::Ge:
    return ast::CompareOp::Ge;
  case Tok::EqEq:
    return ast::CompareOp::Eq;
  case Tok::NotEq:
    return ast::CompareOp::Ne;
  default:
    return std::nullopt;
  }
}

const Construct *unsupported_compare(Tok tok) {
  switch (tok) {
  case Tok::Is:
    return &kIs;
  case Tok::IsNot:
    return &kIsNot;
  case Tok::In:
    return &kIn;
  case Tok::NotIn:
    return &kNotIn;
  case Tok::LtGt:
    return &kLtGt;
  default:
    return nullptr;
  }
}

// A construct rejected wherever it appears as an expression.
const Construct *unsupported_expression(Sym sym) {
  switch (sym) {
  case Sym::List:
    return &kList;
  case Sym::Set:
    return &kSet;
  case Sym::ListComprehension:
    return &kListComprehension;
  case Sym::SetComprehension:
    return &kSetComprehension;
  case Sym::DictionaryComprehension:
    return &kDictComprehension;
  case Sym::GeneratorExpression:
    return &kGenerator;
  case Sym::Await:
    return &kAwait;
  case Sym::Yield:
    return &kYield;
  case Sym::NamedExpression:
    return &kWalrus;
  case Sym::Ellipsis:
    return &kEllipsis;
  case Sym::None:
    return &kNone;
  case Sym::ListSplat:
  case Sym::ParenthesizedListSplat:
  case Sym::ListSplatPattern:
    return &kStarred;
  case Sym::DictionarySplat:
  case Sym::DictionarySplatPattern:
    return &kDoubleStarred;
  case Sym::ConcatenatedString:
    return &kConcatenated;
  case Sym::Slice:
    return &kSlice;
  case Sym::ListPattern:
    return &kListTarget;
  case Sym::UnionType:
    return &kUnionType;
  case Sym::SplatType:
    return &kSplatType;
  case Sym::ConstrainedType:
    return &kConstrainedType;
  case Sym::MemberType:
    return &kMemberType;
  default:
    return nullptr;
  }
}

// Keeps the expression depth balanced on every return path.
class DepthGuard {
public:
  DepthGuard(int &depth, int amount) : depth_(depth), amount_(amount) { depth_ += amount_; }
  ~DepthGuard() { depth_ -= amount_; }
  DepthGuard(const DepthGuard &) = delete;
  DepthGuard &operator=(const DepthGuard &) = delete;

private:
  int &depth_;
  int amount_;
};

} // namespace

ast::ExprPtr Lowerer::error_expr(Range range) { return make_expr(ast::ExprKind::Error, range); }

ast::ExprPtr Lowerer::reject_expr(TSNode node, const Construct &construct) {
  const Range range = range_of(node);
  unsupported(codes::kUnsupportedExpression, range, construct);
  return error_expr(range);
}

ast::ExprPtr Lowerer::too_deep(TSNode node) {
  const Range range = range_of(node);
  if (!depth_reported_) {
    depth_reported_ = true;
    error(codes::kNestingTooDeep, range,
          "expression is nested too deeply (the limit is " +
              std::to_string(options_.max_expression_depth) + " levels)");
  }
  return error_expr(range);
}

ast::ExprPtr Lowerer::lower_expr(TSNode node) {
  if (ts_node_is_null(node))
    return error_expr(Range{});
  // Parentheses leave no node in the AST but count towards the depth: unwrap them in a loop,
  // so 10,000 of them cost no stack.
  int parentheses = 0;
  while (sym(node) == Sym::ParenthesizedExpression) {
    if (depth_ + parentheses >= options_.max_expression_depth)
      return too_deep(node);
    TSNode inner{};
    const uint32_t count = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < count; ++i) {
      const TSNode child = ts_node_named_child(node, i);
      if (sym(child) != Sym::Comment) {
        inner = child;
        break;
      }
    }
    if (ts_node_is_null(inner))
      return error_expr(range_of(node));
    node = inner;
    ++parentheses;
  }
  if (depth_ + parentheses >= options_.max_expression_depth)
    return too_deep(node);
  DepthGuard guard(depth_, parentheses + 1);
  return lower_expr_node(node);
}

ast::ExprPtr Lowerer::lower_expr_node(TSNode node) {
  const Range range = range_of(node);
  switch (sym(node)) {
  case Sym::Identifier: {
    auto expr = make_expr(ast::ExprKind::Name, range);
    expr->name = identifier(node);
    return expr;
  }
  case Sym::Integer:
    return lower_integer(node, false);
  case Sym::Float:
    return lower_float(node);
  case Sym::True:
  case Sym::False: {
    auto expr = make_expr(ast::ExprKind::Bool, range);
    expr->int_value = sym(node) == Sym::True ? 1 : 0;
    return expr;
  }
  case Sym::String:
    return lower_string(node);
  case Sym::Attribute:
    return lower_attribute(node);
  case Sym::Call:
    return lower_call(node);
  case Sym::Subscript:
    return lower_subscript(node);
  case Sym::Tuple:
  case Sym::ExpressionList:
    return lower_sequence(node, ast::ExprKind::Tuple, false);
  case Sym::PatternList:
  case Sym::TuplePattern:
    return lower_target(node);
  case Sym::Dictionary:
    return lower_dictionary(node);
  case Sym::UnaryOperator:
  case Sym::NotOperator:
    return lower_unary(node);
  case Sym::BinaryOperator:
    return lower_binary(node);
  case Sym::ComparisonOperator:
    return lower_comparison(node);
  case Sym::BooleanOperator:
    return lower_boolean(node);
  case Sym::ConditionalExpression:
    return lower_conditional(node);
  case Sym::Lambda:
    return lower_lambda(node);
  case Sym::GenericType:
    return lower_generic_type(node);
  case Sym::Type:
    return lower_type(node);
  default:
    break;
  }
  if (const Construct *construct = unsupported_expression(sym(node)))
    return reject_expr(node, *construct);
  const std::string type = ts_node_type(node);
  error(codes::kUnsupportedExpression, range,
        type + " expressions are not supported in Argus kernels")
      .data = nlohmann::json{{"construct", type}};
  return error_expr(range);
}

ast::ExprPtr Lowerer::lower_type(TSNode type) {
  // `type` wraps the annotation's expression (or a generic_type for `list[int]`).
  for (const Child &c : named_children(type))
    return lower_expr(c.node);
  return error_expr(range_of(type));
}

ast::ExprPtr Lowerer::lower_target(TSNode node) {
  if (ts_node_is_null(node))
    return error_expr(Range{});
  const Sym s = sym(node);
  if (s == Sym::PatternList || s == Sym::TuplePattern) {
    if (depth_ >= options_.max_expression_depth)
      return too_deep(node);
    DepthGuard guard(depth_, 1);
    if (s == Sym::TuplePattern) {
      // `(a) = v` parses as a tuple_pattern without a comma: it is just `a`.
      bool has_comma = false;
      for (const Child &c : children(node))
        has_comma = has_comma || c.tok == Tok::Comma;
      if (!has_comma) {
        const std::vector<Child> kids = named_children(node);
        if (kids.size() == 1)
          return lower_target(kids[0].node);
      }
    }
    return lower_sequence(node, ast::ExprKind::Tuple, true);
  }
  if (s == Sym::ListSplatPattern || s == Sym::ListSplat)
    return reject_expr(node, kStarredTarget);
  return lower_expr(node);
}

ast::ExprPtr Lowerer::lower_sequence(TSNode node, ast::ExprKind kind, bool targets) {
  auto expr = make_expr(kind, range_of(node));
  for (const Child &c : named_children(node))
    expr->operands.push_back(targets ? lower_target(c.node) : lower_expr(c.node));
  return expr;
}

ast::ExprPtr Lowerer::lower_integer(TSNode node, bool negated) {
  const Range range = range_of(node);
  IntLiteral literal;
  const std::string message = parse_int_literal(text(node), literal);
  if (!message.empty()) {
    error(codes::kBadLiteral, range, message);
    return error_expr(range);
  }
  if (literal.complex)
    return reject_expr(node, kComplex);
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (literal.magnitude > kMax && !(negated && literal.magnitude == kMax + 1)) {
    error(codes::kBadLiteral, range,
          "integer literal " + std::string(text(node)) + " does not fit in 64 bits (i64)");
    return error_expr(range);
  }
  auto expr = make_expr(ast::ExprKind::Int, range);
  expr->int_value = literal.magnitude > kMax ? std::numeric_limits<int64_t>::min()
                                             : static_cast<int64_t>(literal.magnitude);
  return expr;
}

ast::ExprPtr Lowerer::lower_float(TSNode node) {
  const Range range = range_of(node);
  double value = 0.0;
  bool complex = false;
  const std::string message = parse_float_literal(text(node), value, complex);
  if (!message.empty()) {
    error(codes::kBadLiteral, range, message);
    return error_expr(range);
  }
  if (complex)
    return reject_expr(node, kComplex);
  auto expr = make_expr(ast::ExprKind::Float, range);
  expr->float_value = value;
  return expr;
}

ast::ExprPtr Lowerer::lower_string(TSNode node) {
  const Range range = range_of(node);
  const std::vector<Child> kids = children(node);
  if (kids.size() < 2 || kids.front().sym != Sym::StringStart || kids.back().sym != Sym::StringEnd)
    return error_expr(range); // a broken string is a syntax error, reported already
  const std::string_view start = text(kids.front().node);
  const size_t quote = start.find_first_of("\"'");
  const std::string_view prefix = start.substr(0, quote);
  bool raw = false;
  for (const char c : prefix) {
    switch (c) {
    case 'f':
    case 'F':
    case 't':
    case 'T':
      return reject_expr(node, kFString);
    case 'b':
    case 'B':
      return reject_expr(node, kBytes);
    case 'r':
    case 'R':
      raw = true;
      break;
    default:
      break;
    }
  }
  if (quote != std::string_view::npos && start.size() - quote == 3)
    return reject_expr(node, kTripleQuoted);
  const uint32_t body_begin = ts_node_end_byte(kids.front().node);
  const uint32_t body_end = ts_node_start_byte(kids.back().node);
  const std::string_view body =
      std::string_view(source_.text()).substr(body_begin, body_end - body_begin);
  auto expr = make_expr(ast::ExprKind::String, range);
  if (raw) {
    expr->name = std::string(body);
    return expr;
  }
  size_t bad_offset = 0;
  size_t bad_length = 0;
  const std::string message = unescape_string(body, expr->name, bad_offset, bad_length);
  if (!message.empty()) {
    // Reported, but the value stays what Python reads (the text as written), so a string
    // used as a name causes no second error.
    const Position begin = source_.position(body_begin + bad_offset);
    const Position end = source_.position(body_begin + bad_offset + bad_length);
    error(codes::kBadLiteral, Range{begin, end}, message);
    expr->name = std::string(body);
  }
  return expr;
}

ast::ExprPtr Lowerer::lower_attribute(TSNode node) {
  const Fields &f = g_.fields;
  auto expr = make_expr(ast::ExprKind::Attribute, range_of(node));
  expr->operands.push_back(lower_expr(field(node, f.object)));
  const TSNode attribute = field(node, f.attribute);
  if (!ts_node_is_null(attribute)) {
    expr->name = identifier(attribute);
    expr->name_range = range_of(attribute);
  }
  return expr;
}

ast::ExprPtr Lowerer::lower_call(TSNode node) {
  const Fields &f = g_.fields;
  const Range range = range_of(node);
  auto expr = make_expr(ast::ExprKind::Call, range);
  expr->operands.push_back(lower_expr(field(node, f.function)));
  const TSNode arguments = field(node, f.arguments);
  if (ts_node_is_null(arguments))
    return error_expr(range);
  // Facts over tensor contents: assume(fact for i in range(n)).
  const bool takes_generator =
      expr->operands[0]->kind == ast::ExprKind::Name && expr->operands[0]->name == "assume";
  if (sym(arguments) == Sym::GeneratorExpression) {
    if (!takes_generator) {
      reject_expr(arguments, kGeneratorArgument);
      return error_expr(range);
    }
    // assume(x for i in r): the generator is the only argument.
    ast::ExprPtr generator = lower_generator(arguments);
    if (generator->kind == ast::ExprKind::Error)
      return error_expr(range);
    expr->operands.push_back(std::move(generator));
    return expr;
  }
  // Argument unpacking changes the call's arity, so a call with it becomes an Error as a
  // whole: sema must not count its arguments.
  bool failed = false;
  // tree-sitter accepts `f(,)` and `f(a,,b)`; Python does not.
  bool expect_argument = true;
  for (const Child &c : children(arguments)) {
    if (!c.named) {
      if (c.tok == Tok::Comma) {
        if (expect_argument) {
          error(codes::kSyntaxError, range_of(c.node), "syntax error: unexpected ','");
          return error_expr(range);
        }
        expect_argument = true;
      }
      continue;
    }
    expect_argument = false;
    switch (c.sym) {
    case Sym::KeywordArgument: {
      const TSNode name = field(c.node, f.name);
      ast::Keyword keyword;
      keyword.name = identifier(name);
      keyword.name_range = range_of(name);
      if (expr->keyword(keyword.name) != nullptr) {
        error(codes::kSyntaxError, range_of(c.node),
              "syntax error: keyword argument '" + keyword.name + "' repeated");
        failed = true;
      }
      keyword.value = lower_expr(field(c.node, f.value));
      expr->keywords.push_back(std::move(keyword));
      break;
    }
    case Sym::ListSplat:
    case Sym::ParenthesizedListSplat:
    case Sym::DictionarySplat:
      reject_expr(c.node, c.sym == Sym::DictionarySplat ? kDoubleStarred : kStarred);
      failed = true;
      break;
    case Sym::GeneratorExpression: {
      if (!takes_generator) {
        reject_expr(c.node, kGeneratorArgument);
        failed = true;
        break;
      }
      ast::ExprPtr generator = lower_generator(c.node);
      failed = failed || generator->kind == ast::ExprKind::Error;
      expr->operands.push_back(std::move(generator));
      break;
    }
    default:
      if (!expr->keywords.empty() && !failed) {
        error(codes::kSyntaxError, range_of(c.node),
              "syntax error: positional argument follows keyword argument");
        failed = true;
      }
      expr->operands.push_back(lower_expr(c.node));
      break;
    }
  }
  if (failed)
    return error_expr(range);
  return expr;
}

ast::ExprPtr Lowerer::lower_subscript(TSNode node) {
  const Fields &f = g_.fields;
  auto expr = make_expr(ast::ExprKind::Subscript, range_of(node));
  expr->operands.push_back(lower_expr(field(node, f.value)));
  std::vector<TSNode> indices;
  for (const Child &c : children(node)) {
    if (c.field == f.subscript)
      indices.push_back(c.node);
  }
  // `t[(i, j)]` is `t[i, j]`: a single tuple index is flattened like the bare one.
  if (indices.size() == 1 && sym(indices[0]) == Sym::Tuple) {
    const TSNode tuple = indices[0];
    indices.clear();
    for (const Child &c : named_children(tuple))
      indices.push_back(c.node);
  }
  for (const TSNode index : indices)
    expr->operands.push_back(lower_expr(index));
  return expr;
}

ast::ExprPtr Lowerer::lower_generic_type(TSNode node) {
  // `list[int]` in an annotation: lowered as the subscript Python evaluates.
  auto expr = make_expr(ast::ExprKind::Subscript, range_of(node));
  for (const Child &c : named_children(node)) {
    if (c.sym == Sym::TypeParameter) {
      for (const Child &t : named_children(c.node))
        expr->operands.push_back(lower_expr(t.node));
    } else if (expr->operands.empty()) {
      expr->operands.push_back(lower_expr(c.node));
    }
  }
  if (expr->operands.empty())
    return error_expr(range_of(node));
  return expr;
}

ast::ExprPtr Lowerer::lower_dictionary(TSNode node) {
  const Fields &f = g_.fields;
  auto expr = make_expr(ast::ExprKind::Dict, range_of(node));
  bool failed = false;
  for (const Child &c : named_children(node)) {
    if (c.sym == Sym::Pair) {
      expr->operands.push_back(lower_expr(field(c.node, f.key)));
      expr->operands.push_back(lower_expr(field(c.node, f.value)));
    } else {
      // `{**a}`: unpacking makes the keys unknown.
      lower_expr(c.node);
      failed = true;
    }
  }
  if (failed)
    return error_expr(range_of(node));
  return expr;
}

ast::ExprPtr Lowerer::lower_unary(TSNode node) {
  const Fields &f = g_.fields;
  const Range range = range_of(node);
  auto expr = make_expr(ast::ExprKind::Unary, range);
  const TSNode argument = field(node, f.argument);
  if (sym(node) == Sym::NotOperator) {
    expr->unary_op = ast::UnaryOp::Not;
  } else {
    const Tok op = tok(field(node, f.operator_));
    expr->unary_op = op == Tok::Minus  ? ast::UnaryOp::Neg
                     : op == Tok::Plus ? ast::UnaryOp::Pos
                                       : ast::UnaryOp::Invert;
    // -9223372036854775808 is the one literal whose magnitude only fits negated.
    if (op == Tok::Minus && !ts_node_is_null(argument) && sym(argument) == Sym::Integer) {
      IntLiteral literal;
      if (parse_int_literal(text(argument), literal).empty() && !literal.complex &&
          literal.magnitude == uint64_t{1} << 63) {
        auto value = lower_integer(argument, true);
        value->range = range;
        return value;
      }
    }
  }
  expr->operands.push_back(lower_expr(argument));
  return expr;
}

ast::ExprPtr Lowerer::lower_binary(TSNode node) {
  const Fields &f = g_.fields;
  const TSNode op = field(node, f.operator_);
  const std::optional<ast::BinaryOp> binary = binary_op(tok(op));
  if (!binary) {
    const Range range = range_of(op);
    if (tok(op) == Tok::At) {
      unsupported(codes::kUnsupportedExpression, range, kMatMul);
    } else {
      error(codes::kUnsupportedExpression, range,
            "the '" + std::string(text(op)) + "' operator is not supported in Argus kernels")
          .data = nlohmann::json{{"construct", std::string(text(op))}};
    }
    return error_expr(range_of(node));
  }
  auto expr = make_expr(ast::ExprKind::Binary, range_of(node));
  expr->binary_op = *binary;
  expr->operands.push_back(lower_expr(field(node, f.left)));
  expr->operands.push_back(lower_expr(field(node, f.right)));
  return expr;
}

ast::ExprPtr Lowerer::lower_comparison(TSNode node) {
  const Fields &f = g_.fields;
  auto expr = make_expr(ast::ExprKind::Compare, range_of(node));
  bool failed = false;
  for (const Child &c : children(node)) {
    if (c.field == f.operators) {
      if (const std::optional<ast::CompareOp> op = compare_op(c.tok)) {
        expr->compare_ops.push_back(*op);
      } else {
        const Construct *construct = unsupported_compare(c.tok);
        if (construct != nullptr) {
          unsupported(codes::kUnsupportedExpression, range_of(c.node), *construct);
        } else {
          error(codes::kUnsupportedExpression, range_of(c.node),
                "the '" + std::string(text(c.node)) +
                    "' comparison is not supported in Argus kernels")
              .data = nlohmann::json{{"construct", std::string(text(c.node))}};
        }
        failed = true;
      }
    } else if (c.named) {
      expr->operands.push_back(lower_expr(c.node));
    }
  }
  if (failed || expr->operands.size() != expr->compare_ops.size() + 1)
    return error_expr(range_of(node));
  return expr;
}

ast::ExprPtr Lowerer::lower_boolean(TSNode node) {
  const Fields &f = g_.fields;
  auto expr = make_expr(ast::ExprKind::BoolOp, range_of(node));
  expr->bool_op =
      tok(field(node, f.operator_)) == Tok::Or ? ast::BoolOpKind::Or : ast::BoolOpKind::And;
  expr->operands.push_back(lower_expr(field(node, f.left)));
  expr->operands.push_back(lower_expr(field(node, f.right)));
  return expr;
}

ast::ExprPtr Lowerer::lower_conditional(TSNode node) {
  // Python's `a if c else b`: the named children are then, condition, else.
  const std::vector<Child> kids = named_children(node);
  if (kids.size() != 3)
    return error_expr(range_of(node));
  auto expr = make_expr(ast::ExprKind::Conditional, range_of(node));
  expr->operands.push_back(lower_expr(kids[1].node));
  expr->operands.push_back(lower_expr(kids[0].node));
  expr->operands.push_back(lower_expr(kids[2].node));
  return expr;
}

ast::ExprPtr Lowerer::lower_lambda(TSNode node) {
  const Fields &f = g_.fields;
  auto expr = make_expr(ast::ExprKind::Lambda, range_of(node));
  bool failed = false;
  if (const TSNode parameters = field(node, f.parameters); !ts_node_is_null(parameters)) {
    for (const Child &c : named_children(parameters)) {
      if (c.sym != Sym::Identifier) {
        reject_expr(c.node, kLambdaParameter);
        failed = true;
        continue;
      }
      expr->lambda_params.push_back(ast::LambdaParam{identifier(c.node), range_of(c.node)});
    }
  }
  expr->operands.push_back(lower_expr(field(node, f.body)));
  if (failed)
    return error_expr(range_of(node));
  return expr;
}

// `(element for name in iterable)` with one for clause and no if clause: a
// fact for every value of name (assume over tensor contents). It lowers to a
// Lambda with a second operand: lambda_params[0] ranges over operands[1] and
// operands[0] is the element (a lambda proper has one operand).
ast::ExprPtr Lowerer::lower_generator(TSNode node) {
  const Fields &f = g_.fields;
  const Range range = range_of(node);
  std::vector<TSNode> clauses;
  for (const Child &c : named_children(node))
    if (c.field != f.body)
      clauses.push_back(c.node);
  if (clauses.size() != 1 || sym(clauses[0]) != Sym::ForInClause)
    return reject_expr(node, kGeneratorFact);
  const TSNode clause = clauses[0];
  const TSNode target = field(clause, f.left);
  const TSNode iterable = field(clause, f.right);
  if (ts_node_is_null(target) || sym(target) != Sym::Identifier || ts_node_is_null(iterable))
    return reject_expr(node, kGeneratorFact);
  auto expr = make_expr(ast::ExprKind::Lambda, range);
  expr->lambda_params.push_back(ast::LambdaParam{identifier(target), range_of(target)});
  expr->operands.push_back(lower_expr(field(node, f.body)));
  expr->operands.push_back(lower_expr(iterable));
  return expr;
}

} // namespace argus::lower_detail
