// The expression language of `argus layout`: a lexer, a recursive-descent
// parser into a small tree, and an evaluator over the layout algebra.
//
//   expr    := compose
//   compose := sum ('∘' sum)*
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/' | '%') unary)*
//   unary   := '-' unary | postfix
//   postfix := primary ('(' args ')')*            application: L(i), Sw(x)
//   primary := atom (':' atom)?                   shape:stride
//   atom    := INT | '-' INT | IDENT '(' args ')' | IDENT | '(' args ')'
//   args    := (expr (',' expr)*)?
//
// Parentheses always make a tuple ("(4)" is a rank-1 tuple), as in CuTe
// notation; there are no grouping parentheses.
#include "argus/layout/layout_expr.h"

#include "argus/layout/tv_layouts.h"
#include "checked.h"

#include <algorithm>
#include <array>
#include <memory>

namespace argus::layout::calc {
namespace {

// A failure at a byte range of the text; caught in evaluate_expression.
struct Failure {
  std::string message;
  size_t offset;
  size_t length;
};

[[noreturn]] void fail_at(size_t offset, size_t length, std::string message) {
  throw Failure{std::move(message), offset, std::max<size_t>(length, 1)};
}

// Parser recursion depth (about 8 per level of parentheses) and the length of
// operator and application chains, which make left-deep trees.
constexpr int kMaxDepth = 1000;

// ---------------------------------------------------------------------------
// Lexer.

enum class Tok {
  Int,
  Ident,
  LParen,
  RParen,
  Comma,
  Colon,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Compose,
  End
};

struct Token {
  Tok kind;
  size_t offset;
  size_t length;
  int64_t value = 0;
  std::string_view text;
};

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
// Identifiers may contain dots after their first character: nvvm.mma_m16n8k16_bf16_f32.
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '.'; }

int digit_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return 99;
}

// Bytes in the UTF-8 sequence that starts with `c` (1 for stray bytes).
size_t utf8_length(unsigned char c) {
  if (c >= 0xF0 && c < 0xF8)
    return 4;
  if (c >= 0xE0)
    return c < 0xF0 ? 3 : 1;
  if (c >= 0xC0)
    return 2;
  return 1;
}

std::vector<Token> lex(std::string_view text) {
  static constexpr std::string_view kCompose = "\xE2\x88\x98"; // ∘ U+2218
  std::vector<Token> tokens;
  size_t pos = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos;
      continue;
    }
    const size_t start = pos;
    if (c >= '0' && c <= '9') {
      int base = 10;
      if (c == '0' && pos + 1 < text.size() && (text[pos + 1] == 'x' || text[pos + 1] == 'X')) {
        base = 16;
        pos += 2;
      } else if (c == '0' && pos + 1 < text.size() &&
                 (text[pos + 1] == 'b' || text[pos + 1] == 'B')) {
        base = 2;
        pos += 2;
      }
      const size_t digits_start = pos;
      int64_t value = 0;
      bool overflow = false;
      while (pos < text.size() && (digit_value(text[pos]) < base || text[pos] == '_')) {
        if (text[pos] != '_')
          overflow = overflow || __builtin_mul_overflow(value, base, &value) ||
                     __builtin_add_overflow(value, digit_value(text[pos]), &value);
        ++pos;
      }
      if (pos == digits_start)
        fail_at(start, pos - start,
                "expected digits after '" + std::string(text.substr(start, 2)) + "'");
      if (pos < text.size() && is_ident_char(text[pos]))
        fail_at(start, pos + 1 - start,
                "malformed number '" + std::string(text.substr(start, pos + 1 - start)) + "'");
      if (overflow)
        fail_at(start, pos - start,
                "integer " + std::string(text.substr(start, pos - start)) +
                    " does not fit in int64");
      tokens.push_back({Tok::Int, start, pos - start, value, text.substr(start, pos - start)});
      continue;
    }
    if (is_ident_start(c)) {
      while (pos < text.size() && is_ident_char(text[pos]))
        ++pos;
      tokens.push_back({Tok::Ident, start, pos - start, 0, text.substr(start, pos - start)});
      continue;
    }
    if (text.substr(pos, kCompose.size()) == kCompose) {
      pos += kCompose.size();
      tokens.push_back({Tok::Compose, start, kCompose.size(), 0, kCompose});
      continue;
    }
    Tok kind;
    switch (c) {
    case '(':
      kind = Tok::LParen;
      break;
    case ')':
      kind = Tok::RParen;
      break;
    case ',':
      kind = Tok::Comma;
      break;
    case ':':
      kind = Tok::Colon;
      break;
    case '+':
      kind = Tok::Plus;
      break;
    case '-':
      kind = Tok::Minus;
      break;
    case '*':
      kind = Tok::Star;
      break;
    case '/':
      kind = Tok::Slash;
      break;
    case '%':
      kind = Tok::Percent;
      break;
    default: {
      const size_t n = std::min(utf8_length(static_cast<unsigned char>(c)), text.size() - pos);
      fail_at(pos, n, "unexpected character '" + std::string(text.substr(pos, n)) + "'");
    }
    }
    ++pos;
    tokens.push_back({kind, start, 1, 0, text.substr(start, 1)});
  }
  tokens.push_back({Tok::End, text.size(), 1, 0, {}});
  return tokens;
}

// ---------------------------------------------------------------------------
// Parser.

struct Node {
  enum class Kind { Int, Name, Tuple, Layout, Call, Apply, Binary, Negate };
  Kind kind;
  size_t offset = 0;
  size_t length = 1;
  int64_t value = 0;
  std::string name; // Name, Call: the identifier; Binary: the operator
  size_t name_length = 0;
  std::vector<std::unique_ptr<Node>> children;
};

using NodePtr = std::unique_ptr<Node>;

class Parser {
public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  NodePtr parse() {
    NodePtr n = expr(0);
    if (peek().kind != Tok::End)
      fail_at(peek().offset, peek().length,
              "unexpected '" + std::string(peek().text) + "' after the expression");
    return n;
  }

private:
  const Token &peek() const { return tokens_[pos_]; }
  const Token &next() { return tokens_[pos_++]; }
  bool accept(Tok kind) {
    if (peek().kind != kind)
      return false;
    ++pos_;
    return true;
  }

  static void cover(Node &n, size_t end) { n.length = std::max<size_t>(end - n.offset, 1); }
  size_t end_of_previous() const { return tokens_[pos_ - 1].offset + tokens_[pos_ - 1].length; }

  [[noreturn]] void expected(const std::string &what) const {
    const Token &t = peek();
    if (t.kind == Tok::End)
      fail_at(t.offset, 1, "expected " + what + " but the expression ended");
    fail_at(t.offset, t.length, "expected " + what + " but found '" + std::string(t.text) + "'");
  }

  void enter(int depth) const {
    if (depth > kMaxDepth)
      fail_at(peek().offset, peek().length, "expression nested too deeply");
  }

  NodePtr binary(NodePtr lhs, const Token &op, NodePtr rhs) {
    auto n = std::make_unique<Node>();
    n->kind = Node::Kind::Binary;
    n->offset = lhs->offset;
    n->name = std::string(op.text);
    cover(*n, rhs->offset + rhs->length);
    n->children.push_back(std::move(lhs));
    n->children.push_back(std::move(rhs));
    return n;
  }

  NodePtr expr(int depth) {
    enter(depth);
    NodePtr lhs = sum(depth + 1);
    for (int chain = 1; peek().kind == Tok::Compose; ++chain) {
      enter(depth + chain);
      const Token op = next();
      lhs = binary(std::move(lhs), op, sum(depth + 1));
    }
    return lhs;
  }

  NodePtr sum(int depth) {
    NodePtr lhs = product(depth + 1);
    for (int chain = 1; peek().kind == Tok::Plus || peek().kind == Tok::Minus; ++chain) {
      enter(depth + chain);
      const Token op = next();
      lhs = binary(std::move(lhs), op, product(depth + 1));
    }
    return lhs;
  }

  NodePtr product(int depth) {
    NodePtr lhs = unary(depth + 1);
    for (int chain = 1;
         peek().kind == Tok::Star || peek().kind == Tok::Slash || peek().kind == Tok::Percent;
         ++chain) {
      enter(depth + chain);
      const Token op = next();
      lhs = binary(std::move(lhs), op, unary(depth + 1));
    }
    return lhs;
  }

  NodePtr unary(int depth) {
    enter(depth);
    if (peek().kind == Tok::Minus && tokens_[pos_ + 1].kind != Tok::Int) {
      const Token op = next();
      NodePtr operand = unary(depth + 1);
      auto n = std::make_unique<Node>();
      n->kind = Node::Kind::Negate;
      n->offset = op.offset;
      cover(*n, operand->offset + operand->length);
      n->children.push_back(std::move(operand));
      return n;
    }
    return postfix(depth + 1);
  }

  NodePtr postfix(int depth) {
    NodePtr callee = primary(depth + 1);
    for (int chain = 1; peek().kind == Tok::LParen; ++chain) {
      enter(depth + chain);
      auto n = std::make_unique<Node>();
      n->kind = Node::Kind::Apply;
      n->offset = callee->offset;
      n->children.push_back(std::move(callee));
      next();
      arguments(*n, depth + 1);
      cover(*n, end_of_previous());
      callee = std::move(n);
    }
    return callee;
  }

  NodePtr primary(int depth) {
    NodePtr shape = atom(depth + 1);
    if (peek().kind != Tok::Colon)
      return shape;
    next();
    NodePtr stride = atom(depth + 1);
    auto n = std::make_unique<Node>();
    n->kind = Node::Kind::Layout;
    n->offset = shape->offset;
    cover(*n, stride->offset + stride->length);
    n->children.push_back(std::move(shape));
    n->children.push_back(std::move(stride));
    return n;
  }

  // Parses "args ')'" after a '(' into n.children.
  void arguments(Node &n, int depth) {
    if (accept(Tok::RParen))
      return;
    for (;;) {
      n.children.push_back(expr(depth + 1));
      if (accept(Tok::RParen))
        return;
      if (!accept(Tok::Comma))
        expected("',' or ')'");
    }
  }

  NodePtr atom(int depth) {
    enter(depth);
    const Token &t = peek();
    auto n = std::make_unique<Node>();
    n->offset = t.offset;
    n->length = t.length;
    switch (t.kind) {
    case Tok::Int:
      next();
      n->kind = Node::Kind::Int;
      n->value = t.value;
      return n;
    case Tok::Minus: {
      next();
      if (peek().kind != Tok::Int)
        expected("an integer");
      const Token &digits = next();
      n->kind = Node::Kind::Int;
      n->value = -digits.value; // digits.value >= 0, so this cannot overflow
      cover(*n, digits.offset + digits.length);
      return n;
    }
    case Tok::Ident: {
      const Token &ident = next();
      n->name = std::string(ident.text);
      n->name_length = ident.length;
      if (!accept(Tok::LParen)) {
        n->kind = Node::Kind::Name;
        return n;
      }
      n->kind = Node::Kind::Call;
      arguments(*n, depth + 1);
      cover(*n, end_of_previous());
      return n;
    }
    case Tok::LParen:
      next();
      n->kind = Node::Kind::Tuple;
      arguments(*n, depth + 1);
      cover(*n, end_of_previous());
      return n;
    default:
      expected("an integer, a tuple, a layout or a function call");
    }
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------
// Evaluation.

[[noreturn]] void fail_at(const Node &n, std::string message) {
  fail_at(n.offset, n.length, std::move(message));
}

template <class T> T unwrap(Result<T> r, const Node &n) {
  if (!r.ok())
    fail_at(n, r.error().message);
  return std::move(r).value();
}

Value from_tuple(IntTuple t) {
  if (t.is_leaf())
    return t.value();
  return t;
}

std::string describe(const Value &v) { return std::string(kind_name(v)) + " " + to_string(v); }

int64_t as_int(const Value &v, const Node &n, std::string_view what) {
  if (const int64_t *i = std::get_if<int64_t>(&v))
    return *i;
  fail_at(n, std::string(what) + " must be an integer, not the " + describe(v));
}

IntTuple as_tuple(const Value &v, const Node &n, std::string_view what) {
  if (const int64_t *i = std::get_if<int64_t>(&v))
    return IntTuple(*i);
  if (const IntTuple *t = std::get_if<IntTuple>(&v))
    return *t;
  fail_at(n, std::string(what) + " must be an integer or a tuple, not the " + describe(v));
}

Layout as_layout(const Value &v, const Node &n, std::string_view what) {
  if (const Layout *l = std::get_if<Layout>(&v))
    return *l;
  if (std::holds_alternative<int64_t>(v) || std::holds_alternative<IntTuple>(v))
    fail_at(n, std::string(what) + " must be a layout, not the " + describe(v) +
                   " (write shape:stride, or left(shape) for the compact layout)");
  fail_at(n, std::string(what) + " must be a layout, not the " + describe(v));
}

// A layout, or a shape standing for its compact column-major layout.
Layout as_layout_or_shape(const Value &v, const Node &n, std::string_view what) {
  if (std::holds_alternative<int64_t>(v) || std::holds_alternative<IntTuple>(v))
    return unwrap(make_layout_left(as_tuple(v, n, what)), n);
  return as_layout(v, n, what);
}

Tiler as_tiler(const Value &v, const Node &n, std::string_view what) {
  if (const Layout *l = std::get_if<Layout>(&v))
    return Tiler(*l);
  if (const Tiler *t = std::get_if<Tiler>(&v))
    return *t;
  if (std::holds_alternative<int64_t>(v) || std::holds_alternative<IntTuple>(v)) {
    const IntTuple shape = as_tuple(v, n, what);
    unwrap(make_layout_left(shape), n); // positive extents, size fits
    return Tiler::from_shape(shape);
  }
  fail_at(n, std::string(what) + " must be a layout, a tiler or a shape, not the " + describe(v));
}

const Name &as_name(const Value &v, const Node &n, std::string_view what) {
  if (const Name *name = std::get_if<Name>(&v))
    return *name;
  fail_at(n, std::string(what) + " must be a name, not the " + describe(v));
}

class Evaluator {
public:
  Value eval(const Node &n) {
    switch (n.kind) {
    case Node::Kind::Int:
      return n.value;
    case Node::Kind::Name:
      return Name{n.name};
    case Node::Kind::Tuple:
      return tuple(n);
    case Node::Kind::Layout: {
      const IntTuple shape = as_tuple(eval(*n.children[0]), *n.children[0], "a shape");
      const IntTuple stride = as_tuple(eval(*n.children[1]), *n.children[1], "a stride");
      return unwrap(make_layout(shape, stride), n);
    }
    case Node::Kind::Negate: {
      const int64_t v = as_int(eval(*n.children[0]), *n.children[0], "the operand of '-'");
      return checked(n, [&] { return detail::sub(0, v); });
    }
    case Node::Kind::Binary:
      return binary(n);
    case Node::Kind::Apply:
      return apply(n);
    case Node::Kind::Call:
      return call(n);
    }
    fail_at(n, "unknown expression");
  }

private:
  template <class F> static int64_t checked(const Node &n, F &&f) {
    try {
      return f();
    } catch (const detail::Failure &failure) {
      fail_at(n, failure.message);
    }
  }

  Value tuple(const Node &n) {
    std::vector<Value> values;
    values.reserve(n.children.size());
    bool has_layout = false;
    for (const NodePtr &child : n.children) {
      values.push_back(eval(*child));
      const Value &v = values.back();
      if (std::holds_alternative<Layout>(v) || std::holds_alternative<Tiler>(v))
        has_layout = true;
      else if (!std::holds_alternative<int64_t>(v) && !std::holds_alternative<IntTuple>(v))
        fail_at(*child, "a tuple may hold integers, tuples and layouts, not the " + describe(v));
    }
    if (!has_layout) {
      std::vector<IntTuple> elements;
      for (size_t k = 0; k < values.size(); ++k)
        elements.push_back(as_tuple(values[k], *n.children[k], "a tuple element"));
      return IntTuple::tuple(std::move(elements));
    }
    std::vector<Tiler> modes;
    for (size_t k = 0; k < values.size(); ++k)
      modes.push_back(as_tiler(values[k], *n.children[k], "a tiler mode"));
    return Tiler(std::move(modes));
  }

  Value binary(const Node &n) {
    const Node &lhs_node = *n.children[0];
    const Node &rhs_node = *n.children[1];
    const Value lhs = eval(lhs_node);
    const Value rhs = eval(rhs_node);
    if (n.name == "\xE2\x88\x98")
      return compose(n, lhs, lhs_node, rhs, rhs_node, nullptr, nullptr);
    const std::string what = "an operand of '" + n.name + "'";
    const int64_t a = as_int(lhs, lhs_node, what);
    const int64_t b = as_int(rhs, rhs_node, what);
    return checked(n, [&]() -> int64_t {
      switch (n.name[0]) {
      case '+':
        return detail::add(a, b);
      case '-':
        return detail::sub(a, b);
      case '*':
        return detail::mul(a, b);
      case '/':
        return detail::floor_div(a, b);
      default:
        return detail::floor_mod(a, b);
      }
    });
  }

  // composition(lhs, rhs[, element_bytes]) and lhs ∘ rhs.
  Value compose(const Node &n, const Value &lhs, const Node &lhs_node, const Value &rhs,
                const Node &rhs_node, const Value *bytes, const Node *bytes_node) {
    if (const Swizzle *sw = std::get_if<Swizzle>(&lhs)) {
      const int64_t element_bytes =
          bytes ? as_int(*bytes, *bytes_node, "the element size in bytes") : 1;
      return unwrap(
          composition(*sw, as_layout(rhs, rhs_node, "the layout of a swizzle"), element_bytes), n);
    }
    if (bytes_node)
      fail_at(*bytes_node, "an element size applies only to a swizzle composed with a layout");
    if (const SwizzledLayout *sl = std::get_if<SwizzledLayout>(&lhs)) {
      SwizzledLayout out = *sl;
      out.layout = unwrap(composition(sl->layout, as_tiler(rhs, rhs_node, "B")), n);
      return out;
    }
    const Layout a = as_layout(lhs, lhs_node, "A");
    if (const Layout *b = std::get_if<Layout>(&rhs))
      return unwrap(composition(a, *b), n);
    return unwrap(composition(a, as_tiler(rhs, rhs_node, "B")), n);
  }

  Value apply(const Node &n) {
    const Node &callee_node = *n.children[0];
    const Value callee = eval(callee_node);
    std::vector<Value> args;
    for (size_t k = 1; k < n.children.size(); ++k)
      args.push_back(eval(*n.children[k]));
    const auto arg_node = [&](size_t k) -> const Node & { return *n.children[k + 1]; };
    if (args.empty())
      fail_at(n, "applying the " + describe(callee) + " needs an index or a coordinate");
    // The coordinate: one integer or tuple, or several making a tuple.
    const auto coordinate = [&]() {
      if (args.size() == 1)
        return as_tuple(args[0], arg_node(0), "an index or a coordinate");
      std::vector<IntTuple> parts;
      for (size_t k = 0; k < args.size(); ++k)
        parts.push_back(as_tuple(args[k], arg_node(k), "a coordinate"));
      return IntTuple::tuple(std::move(parts));
    };
    if (const Layout *l = std::get_if<Layout>(&callee))
      return unwrap(evaluate(*l, coordinate()), n);
    if (const Swizzle *sw = std::get_if<Swizzle>(&callee)) {
      if (args.size() != 1)
        fail_at(n, "a swizzle takes one offset");
      return (*sw)(as_int(args[0], arg_node(0), "a swizzle's offset"));
    }
    if (const SwizzledLayout *sl = std::get_if<SwizzledLayout>(&callee)) {
      const IntTuple coord = coordinate();
      const int64_t index =
          coord.is_leaf() ? coord.value() : unwrap(crd2idx(coord, sl->layout.shape()), n);
      return unwrap(evaluate(*sl, index), n);
    }
    fail_at(callee_node, "the " + describe(callee) + " cannot be applied to arguments");
  }

  Value call(const Node &n);

  void arity(const Node &n, size_t min, size_t max) const {
    const size_t got = n.children.size();
    if (got >= min && got <= max)
      return;
    std::string expect = std::to_string(min);
    if (max != min)
      expect +=
          max == SIZE_MAX ? " or more" : (max == min + 1 ? " or " : " to ") + std::to_string(max);
    fail_at(n, n.name + " takes " + expect + " argument" + (max == 1 && min == 1 ? "" : "s") +
                   ", not " + std::to_string(got));
  }
};

// "mma_m16n8k16_bf16 A B C, ..., wgmma_m64nNk16_bf16 A A_reg B C, ...": the
// table's instructions with their operands, wgmma widths written as N.
std::string known_tv_layouts() {
  std::vector<std::pair<std::string, std::vector<std::string_view>>> known;
  for (const TvLayout &entry : all_tv_layouts()) {
    std::string name(entry.instruction);
    const size_t k = name.find('k', 10);
    if (name.rfind("wgmma_m64n", 0) == 0 && k != std::string::npos)
      name = "wgmma_m64nN" + name.substr(k);
    auto it =
        std::find_if(known.begin(), known.end(), [&](const auto &e) { return e.first == name; });
    if (it == known.end())
      it = known.insert(known.end(), {name, {}});
    if (std::find(it->second.begin(), it->second.end(), entry.operand) == it->second.end())
      it->second.push_back(entry.operand);
  }
  std::string out;
  for (const auto &[name, operands] : known) {
    out += (out.empty() ? "" : ", ") + name;
    for (std::string_view operand : operands)
      out += " " + std::string(operand);
  }
  return out;
}

constexpr std::array kFunctions = {
    "blocked_product", "coalesce",     "complement",   "composition",
    "compose",         "cosize",       "crd2idx",      "depth",
    "filter",          "flat_divide",  "flatten",      "get",
    "idx2crd",         "left",         "left_inverse", "logical_divide",
    "logical_product", "make_layout",  "make_swizzle", "mode",
    "raked_product",   "rank",         "right",        "right_inverse",
    "shape",           "size",         "stride",       "swizzle",
    "tile_to_shape",   "tiled_divide", "tv",           "zipped_divide",
};

Value Evaluator::call(const Node &n) {
  const std::string &f = n.name;
  if (std::find(kFunctions.begin(), kFunctions.end(), std::string_view(f)) == kFunctions.end()) {
    std::string known;
    for (const char *name : kFunctions)
      known += std::string(known.empty() ? "" : ", ") + name;
    fail_at(n.offset, n.name_length, "unknown function '" + f + "' (known: " + known + ")");
  }
  std::vector<Value> args;
  for (const NodePtr &child : n.children)
    args.push_back(eval(*child));
  const auto node = [&](size_t k) -> const Node & { return *n.children[k]; };
  const auto layout_arg = [&](size_t k, std::string_view what) {
    return as_layout(args[k], node(k), what);
  };

  if (f == "composition" || f == "compose") {
    arity(n, 2, 3);
    const bool has_bytes = args.size() == 3;
    return compose(n, args[0], node(0), args[1], node(1), has_bytes ? &args[2] : nullptr,
                   has_bytes ? &node(2) : nullptr);
  }
  if (f == "complement") {
    arity(n, 1, 2);
    const Layout a = layout_arg(0, "the layout");
    if (args.size() == 1)
      return unwrap(complement(a), n);
    return unwrap(complement(a, as_int(args[1], node(1), "the cotarget")), n);
  }
  using DivideFn = Result<Layout> (*)(const Layout &, const Tiler &);
  static constexpr std::array<std::pair<std::string_view, DivideFn>, 5> kTiled = {{
      {"logical_divide", &logical_divide},
      {"zipped_divide", &zipped_divide},
      {"tiled_divide", &tiled_divide},
      {"flat_divide", &flat_divide},
      {"logical_product", &logical_product},
  }};
  for (const auto &[name, fn] : kTiled) {
    if (f != name)
      continue;
    arity(n, 2, 2);
    return unwrap(fn(layout_arg(0, "the layout"), as_tiler(args[1], node(1), "the tiler")), n);
  }
  if (f == "blocked_product" || f == "raked_product") {
    arity(n, 2, 2);
    const Layout a = as_layout_or_shape(args[0], node(0), "the block");
    const Layout b = as_layout_or_shape(args[1], node(1), "the tiler");
    return unwrap(f == "blocked_product" ? blocked_product(a, b) : raked_product(a, b), n);
  }
  if (f == "tile_to_shape") {
    arity(n, 2, 3);
    Major order = Major::Left;
    if (args.size() == 3) {
      const Name &name = as_name(args[2], node(2), "the order");
      if (name.text == "right")
        order = Major::Right;
      else if (name.text != "left")
        fail_at(node(2), "the order must be left or right, not " + name.text);
    }
    return unwrap(tile_to_shape(as_layout_or_shape(args[0], node(0), "the block"),
                                as_tuple(args[1], node(1), "the shape"), order),
                  n);
  }
  if (f == "right_inverse" || f == "left_inverse") {
    arity(n, 1, 1);
    const Layout a = layout_arg(0, "the layout");
    return unwrap(f == "right_inverse" ? right_inverse(a) : left_inverse(a), n);
  }
  if (f == "coalesce") {
    arity(n, 1, 2);
    const Layout a = layout_arg(0, "the layout");
    if (args.size() == 1)
      return unwrap(coalesce(a), n);
    return unwrap(coalesce(a, as_tuple(args[1], node(1), "the profile")), n);
  }
  if (f == "filter") {
    arity(n, 1, 1);
    return unwrap(filter(layout_arg(0, "the layout")), n);
  }
  if (f == "flatten") {
    arity(n, 1, 1);
    if (const Layout *l = std::get_if<Layout>(&args[0]))
      return flatten(*l);
    return from_tuple(flatten(as_tuple(args[0], node(0), "the argument")));
  }
  if (f == "size" || f == "rank" || f == "depth") {
    arity(n, 1, 1);
    IntTuple shape;
    if (const Layout *l = std::get_if<Layout>(&args[0]))
      shape = l->shape();
    else
      shape = as_tuple(args[0], node(0), "the argument");
    if (f == "size")
      return unwrap(size(shape), n);
    return static_cast<int64_t>(f == "rank" ? rank(shape) : depth(shape));
  }
  if (f == "cosize") {
    arity(n, 1, 1);
    return unwrap(cosize(layout_arg(0, "the layout")), n);
  }
  if (f == "shape" || f == "stride") {
    arity(n, 1, 1);
    const Layout a = layout_arg(0, "the layout");
    return from_tuple(f == "shape" ? a.shape() : a.stride());
  }
  if (f == "mode" || f == "get") {
    arity(n, 2, SIZE_MAX);
    if (std::holds_alternative<Layout>(args[0])) {
      Layout l = std::get<Layout>(args[0]);
      for (size_t k = 1; k < args.size(); ++k) {
        const int64_t i = as_int(args[k], node(k), "a mode index");
        if (i < 0 || i >= rank(l))
          fail_at(node(k), "mode " + std::to_string(i) + " of " + to_string(l) +
                               " does not exist (rank " + std::to_string(rank(l)) + ")");
        l = unwrap(mode(l, static_cast<int>(i)), node(k));
      }
      return l;
    }
    IntTuple t = as_tuple(args[0], node(0), "the argument");
    for (size_t k = 1; k < args.size(); ++k) {
      const int64_t i = as_int(args[k], node(k), "a mode index");
      if (i < 0 || i >= t.rank())
        fail_at(node(k), "mode " + std::to_string(i) + " of " + layout::to_string(t) +
                             " does not exist (rank " + std::to_string(t.rank()) + ")");
      t = IntTuple(t[static_cast<int>(i)]);
    }
    return from_tuple(t);
  }
  if (f == "idx2crd") {
    arity(n, 2, 2);
    return from_tuple(unwrap(idx2crd(as_tuple(args[0], node(0), "the index or coordinate"),
                                     as_tuple(args[1], node(1), "the shape")),
                             n));
  }
  if (f == "crd2idx") {
    arity(n, 2, 3);
    const IntTuple coord = as_tuple(args[0], node(0), "the coordinate");
    const IntTuple shape = as_tuple(args[1], node(1), "the shape");
    if (args.size() == 2)
      return unwrap(crd2idx(coord, shape), n);
    return unwrap(crd2idx(coord, shape, as_tuple(args[2], node(2), "the stride")), n);
  }
  if (f == "left" || f == "right" || f == "make_layout") {
    arity(n, 1, f == "make_layout" ? 2 : 1);
    const IntTuple shape = as_tuple(args[0], node(0), "the shape");
    if (args.size() == 2)
      return unwrap(make_layout(shape, as_tuple(args[1], node(1), "the stride")), n);
    return unwrap(f == "right" ? make_layout_right(shape) : make_layout_left(shape), n);
  }
  if (f == "swizzle") {
    arity(n, 3, 3);
    const auto small = [&](size_t k, std::string_view what) {
      const int64_t v = as_int(args[k], node(k), what);
      if (v < -64 || v > 64)
        fail_at(node(k), std::string(what) + " " + std::to_string(v) + " is out of range");
      return static_cast<int>(v);
    };
    return unwrap(make_swizzle(small(0, "B"), small(1, "M"), small(2, "S")), n);
  }
  if (f == "make_swizzle") {
    arity(n, 2, 2);
    const int64_t y = as_int(args[0], node(0), "the yyy mask");
    const int64_t z = as_int(args[1], node(1), "the zzz mask");
    if (y < 0 || z < 0)
      fail_at(n, "swizzle masks must be non-negative");
    return unwrap(make_swizzle_from_masks(static_cast<uint64_t>(y), static_cast<uint64_t>(z)), n);
  }
  if (f == "tv") {
    arity(n, 2, 2);
    const Name &instruction = as_name(args[0], node(0), "the instruction");
    const Name &operand = as_name(args[1], node(1), "the operand");
    if (std::optional<Layout> l = find_tv_layout(instruction.text, operand.text))
      return *l;
    fail_at(n, "no thread-value layout for operand " + operand.text + " of instruction " +
                   instruction.text + " (known: " + known_tv_layouts() + ")");
  }
  fail_at(n, "function '" + f + "' is not implemented");
}

} // namespace

// ---------------------------------------------------------------------------

std::string_view kind_name(const Value &v) {
  static constexpr std::array<std::string_view, 7> kNames = {
      "int", "tuple", "layout", "tiler", "swizzle", "swizzled_layout", "name"};
  return kNames[v.index()];
}

std::string to_string(const Value &v) {
  return std::visit(
      [](const auto &x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int64_t>)
          return std::to_string(x);
        else if constexpr (std::is_same_v<T, Name>)
          return x.text;
        else
          return layout::to_string(x);
      },
      v);
}

Evaluation evaluate_expression(std::string_view text) {
  Evaluation out;
  try {
    Parser parser(lex(text));
    const NodePtr root = parser.parse();
    out.value = Evaluator().eval(*root);
  } catch (const Failure &failure) {
    out.error = ExprError{failure.message, failure.offset, failure.length};
  } catch (const std::exception &e) {
    out.error = ExprError{std::string("internal error: ") + e.what(), 0, text.size()};
  }
  return out;
}

size_t column_of(std::string_view text, size_t offset) {
  size_t column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80)
      ++column;
  return column;
}

std::string format_error(std::string_view text, const ExprError &error) {
  const size_t column = column_of(text, error.offset);
  const size_t end_column = column_of(text, error.offset + error.length);
  std::string out = "column " + std::to_string(column) + ": " + error.message + "\n";
  // Tabs and newlines would break the caret's alignment.
  std::string shown(text);
  std::replace_if(
      shown.begin(), shown.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  out += "  " + shown + "\n";
  out += "  " + std::string(column - 1, ' ') + "^";
  if (end_column > column + 1)
    out += std::string(end_column - column - 1, '~');
  return out + "\n";
}

Result<Table> make_table(const Value &v) {
  Layout layout;
  const SwizzledLayout *swizzled = std::get_if<SwizzledLayout>(&v);
  if (swizzled)
    layout = swizzled->layout;
  else if (const Layout *l = std::get_if<Layout>(&v))
    layout = *l;
  else
    return Error{"a table needs a rank-2 layout, not the " + describe(v)};
  if (rank(layout) != 2)
    return Error{"a table needs a rank-2 layout; " + layout::to_string(layout) + " has rank " +
                 std::to_string(rank(layout))};
  const Result<int64_t> rows = size(layout.shape()[0]);
  const Result<int64_t> cols = size(layout.shape()[1]);
  if (!rows.ok())
    return rows.error();
  if (!cols.ok())
    return cols.error();
  if (*rows > kMaxTableCells / std::max<int64_t>(*cols, 1))
    return Error{"the table of " + to_string(v) + " would have " + std::to_string(*rows) + " x " +
                 std::to_string(*cols) + " cells (at most " + std::to_string(kMaxTableCells) + ")"};
  Table table;
  table.title = to_string(v);
  table.cells.assign(static_cast<size_t>(*rows), std::vector<int64_t>(static_cast<size_t>(*cols)));
  for (int64_t m = 0; m < *rows; ++m) {
    for (int64_t c = 0; c < *cols; ++c) {
      const int64_t index = m + *rows * c;
      Result<int64_t> offset = swizzled ? evaluate(*swizzled, index) : evaluate(layout, index);
      if (!offset.ok())
        return offset.error();
      table.cells[m][c] = *offset;
    }
  }
  return table;
}

std::string render_table(const Table &table) {
  const size_t rows = table.cells.size();
  const size_t cols = rows ? table.cells[0].size() : 0;
  size_t width = std::to_string(cols ? cols - 1 : 0).size();
  for (const auto &row : table.cells)
    for (int64_t v : row)
      width = std::max(width, std::to_string(v).size());
  const size_t label = std::to_string(rows ? rows - 1 : 0).size();
  const auto pad = [](const std::string &s, size_t w) {
    return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
  };
  std::string border = std::string(label + 1, ' ');
  for (size_t c = 0; c < cols; ++c)
    border += "+" + std::string(width + 2, '-');
  border += "+\n";

  std::string out = table.title + "\n" + std::string(label + 1, ' ');
  for (size_t c = 0; c < cols; ++c)
    out += "  " + pad(std::to_string(c), width) + " ";
  out += "\n" + border;
  for (size_t m = 0; m < rows; ++m) {
    out += pad(std::to_string(m), label) + " ";
    for (size_t c = 0; c < cols; ++c)
      out += "| " + pad(std::to_string(table.cells[m][c]), width) + " ";
    out += "|\n" + border;
  }
  return out;
}

} // namespace argus::layout::calc
