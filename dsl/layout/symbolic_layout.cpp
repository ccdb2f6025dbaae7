// Symbolic layouts: the layout function built as expressions.
#include "argus/layout/symbolic_layout.h"

#include <cctype>

namespace argus::layout {

// ---------------------------------------------------------------------------
// ExprTuple.

ExprTuple ExprTuple::tuple(std::vector<ExprTuple> elements) {
  ExprTuple t;
  t.is_tuple_ = true;
  t.elements_ = std::move(elements);
  return t;
}

bool operator==(const ExprTuple &a, const ExprTuple &b) {
  if (a.is_tuple_ != b.is_tuple_)
    return false;
  if (a.is_leaf())
    return a.leaf_ == b.leaf_;
  return a.elements_ == b.elements_;
}

ExprTuple to_expr_tuple(ExprContext &ctx, const IntTuple &t) {
  if (t.is_leaf())
    return ExprTuple(ctx.constant(t.value()));
  std::vector<ExprTuple> elements;
  elements.reserve(t.elements().size());
  for (const IntTuple &e : t.elements())
    elements.push_back(to_expr_tuple(ctx, e));
  return ExprTuple::tuple(std::move(elements));
}

std::optional<IntTuple> to_int_tuple(const ExprTuple &t) {
  if (t.is_leaf()) {
    if (t.value().is_null() || !t.value().is_constant())
      return std::nullopt;
    return IntTuple(t.value().constant());
  }
  std::vector<IntTuple> elements;
  for (const ExprTuple &e : t.elements()) {
    std::optional<IntTuple> c = to_int_tuple(e);
    if (!c)
      return std::nullopt;
    elements.push_back(std::move(*c));
  }
  return IntTuple::tuple(std::move(elements));
}

int leaf_count(const ExprTuple &t) {
  if (t.is_leaf())
    return 1;
  int n = 0;
  for (const ExprTuple &e : t.elements())
    n += leaf_count(e);
  return n;
}

bool congruent(const ExprTuple &a, const ExprTuple &b) {
  if (a.is_leaf() || b.is_leaf())
    return a.is_leaf() && b.is_leaf();
  if (a.rank() != b.rank())
    return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (!congruent(a[i], b[i]))
      return false;
  }
  return true;
}

namespace {

void flatten_into(const ExprTuple &t, std::vector<ExprTuple> &out) {
  if (t.is_leaf()) {
    out.push_back(t);
    return;
  }
  for (const ExprTuple &e : t.elements())
    flatten_into(e, out);
}

bool has_null_leaf(const ExprTuple &t) {
  if (t.is_leaf())
    return t.value().is_null();
  for (const ExprTuple &e : t.elements()) {
    if (has_null_leaf(e))
      return true;
  }
  return false;
}

// Replaces the leaves of `shape`, in order, by `leaves`.
ExprTuple with_leaves(const ExprTuple &shape, const std::vector<ExprRef> &leaves, size_t &next) {
  if (shape.is_leaf())
    return ExprTuple(leaves[next++]);
  std::vector<ExprTuple> elements;
  for (const ExprTuple &e : shape.elements())
    elements.push_back(with_leaves(e, leaves, next));
  return ExprTuple::tuple(std::move(elements));
}

} // namespace

ExprTuple flatten(const ExprTuple &t) {
  if (t.is_leaf())
    return t;
  std::vector<ExprTuple> leaves;
  flatten_into(t, leaves);
  return ExprTuple::tuple(std::move(leaves));
}

ExprRef size(ExprContext &ctx, const ExprTuple &shape) {
  if (shape.is_leaf())
    return shape.value();
  ExprRef p = ctx.constant(1);
  for (const ExprTuple &e : shape.elements())
    p = ctx.mul(p, size(ctx, e));
  return p;
}

std::string to_string(const ExprTuple &t) {
  if (t.is_leaf())
    return to_string(t.value());
  std::string out = "(";
  for (size_t i = 0; i < t.elements().size(); ++i) {
    if (i > 0)
      out += ',';
    out += to_string(t.elements()[i]);
  }
  return out + ")";
}

// ---------------------------------------------------------------------------
// SymbolicLayout.

Result<SymbolicLayout> make_symbolic_layout(ExprTuple shape, ExprTuple stride) {
  if (!congruent(shape, stride)) {
    return Error{"shape " + to_string(shape) + " and stride " + to_string(stride) +
                 " are not congruent"};
  }
  if (has_null_leaf(shape) || has_null_leaf(stride))
    return Error{"a symbolic layout has a null leaf"};
  return SymbolicLayout{std::move(shape), std::move(stride)};
}

SymbolicLayout to_symbolic(ExprContext &ctx, const Layout &layout) {
  return {to_expr_tuple(ctx, layout.shape()), to_expr_tuple(ctx, layout.stride())};
}

std::optional<Layout> to_layout(const SymbolicLayout &layout) {
  std::optional<IntTuple> shape = to_int_tuple(layout.shape);
  std::optional<IntTuple> stride = to_int_tuple(layout.stride);
  if (!shape || !stride)
    return std::nullopt;
  Result<Layout> l = make_layout(std::move(*shape), std::move(*stride));
  if (!l.ok())
    return std::nullopt;
  return *l;
}

SymbolicLayout make_symbolic_layout_left(ExprContext &ctx, const ExprTuple &shape) {
  std::vector<ExprTuple> leaves;
  flatten_into(shape, leaves);
  std::vector<ExprRef> strides;
  ExprRef p = ctx.constant(1);
  for (const ExprTuple &leaf : leaves) {
    strides.push_back(p);
    p = ctx.mul(p, leaf.value());
  }
  size_t next = 0;
  return {shape, with_leaves(shape, strides, next)};
}

SymbolicLayout make_symbolic_layout_right(ExprContext &ctx, const ExprTuple &shape) {
  std::vector<ExprTuple> leaves;
  flatten_into(shape, leaves);
  std::vector<ExprRef> strides(leaves.size());
  ExprRef p = ctx.constant(1);
  for (size_t i = leaves.size(); i-- > 0;) {
    strides[i] = p;
    p = ctx.mul(p, leaves[i].value());
  }
  size_t next = 0;
  return {shape, with_leaves(shape, strides, next)};
}

ExprRef size(ExprContext &ctx, const SymbolicLayout &layout) { return size(ctx, layout.shape); }

std::string to_string(const SymbolicLayout &layout) {
  return to_string(layout.shape) + ":" + to_string(layout.stride);
}

// ---------------------------------------------------------------------------
// Parsing.
namespace {

class Parser {
public:
  Parser(ExprContext &ctx, std::string_view text) : ctx_(ctx), text_(text) {}

  Result<ExprTuple> whole_tuple() {
    Result<ExprTuple> t = tuple();
    if (t.ok() && !at_end())
      return error("unexpected '" + std::string(1, text_[pos_]) + "'");
    return t;
  }

  Result<SymbolicLayout> whole_layout() {
    Result<ExprTuple> shape = tuple();
    if (!shape.ok())
      return shape.error();
    if (!eat(':'))
      return error("expected ':' between shape and stride");
    Result<ExprTuple> stride = tuple();
    if (!stride.ok())
      return stride.error();
    if (!at_end())
      return error("unexpected '" + std::string(1, text_[pos_]) + "'");
    return make_symbolic_layout(std::move(*shape), std::move(*stride));
  }

private:
  Error error(const std::string &what) const {
    return Error{what + " at offset " + std::to_string(pos_) + " of '" + std::string(text_) + "'"};
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ == text_.size();
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  Result<ExprTuple> tuple() {
    if (!eat('('))
      return leaf();
    std::vector<ExprTuple> elements;
    if (eat(')'))
      return ExprTuple::tuple({});
    do {
      Result<ExprTuple> e = tuple();
      if (!e.ok())
        return e;
      elements.push_back(std::move(*e));
    } while (eat(','));
    if (!eat(')'))
      return error("expected ',' or ')'");
    return ExprTuple::tuple(std::move(elements));
  }

  // product := factor ('*' factor)*
  Result<ExprTuple> leaf() {
    Result<ExprRef> f = factor();
    if (!f.ok())
      return f.error();
    ExprRef r = *f;
    while (eat('*')) {
      Result<ExprRef> g = factor();
      if (!g.ok())
        return g.error();
      r = ctx_.mul(r, *g);
    }
    return ExprTuple(r);
  }

  // factor := ['-'] INT | NAME
  Result<ExprRef> factor() {
    skip_space();
    const size_t start = pos_;
    bool negative = false;
    if (pos_ < text_.size() && text_[pos_] == '-') {
      negative = true;
      ++pos_;
    }
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[pos_] - '0', &v)) {
          pos_ = start;
          return error("integer does not fit in int64");
        }
        ++pos_;
      }
      return ctx_.constant(negative ? -v : v);
    }
    if (!negative && pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      const std::string_view name = text_.substr(start, pos_ - start);
      ExprRef s = ctx_.find_symbol(name);
      return s ? s : ctx_.symbol(name, Interval::positive());
    }
    pos_ = start;
    return error("expected an integer, a name or '('");
  }

  ExprContext &ctx_;
  std::string_view text_;
  size_t pos_ = 0;
};

} // namespace

Result<ExprTuple> parse_expr_tuple(ExprContext &ctx, std::string_view text) {
  return Parser(ctx, text).whole_tuple();
}

Result<SymbolicLayout> parse_symbolic_layout(ExprContext &ctx, std::string_view text) {
  return Parser(ctx, text).whole_layout();
}

// ---------------------------------------------------------------------------
// The layout function.

ExprTuple idx2crd(ExprContext &ctx, ExprRef index, const ExprTuple &shape) {
  if (shape.is_leaf())
    return ExprTuple(index);
  const std::vector<ExprTuple> &modes = shape.elements();
  std::vector<ExprTuple> coord;
  coord.reserve(modes.size());
  ExprRef prefix = ctx.constant(1);
  for (size_t k = 0; k < modes.size(); ++k) {
    ExprRef c = ctx.floor_div(index, prefix);
    if (k + 1 < modes.size()) {
      const ExprRef s = size(ctx, modes[k]);
      c = ctx.mod(c, s);
      prefix = ctx.mul(prefix, s);
    }
    coord.push_back(idx2crd(ctx, c, modes[k]));
  }
  return ExprTuple::tuple(std::move(coord));
}

Result<ExprTuple> idx2crd(ExprContext &ctx, const ExprTuple &coord, const ExprTuple &shape) {
  if (coord.is_leaf())
    return idx2crd(ctx, coord.value(), shape);
  if (shape.is_leaf() || coord.rank() != shape.rank()) {
    return Error{"coordinate " + to_string(coord) + " does not match shape " + to_string(shape)};
  }
  std::vector<ExprTuple> out;
  for (int i = 0; i < coord.rank(); ++i) {
    Result<ExprTuple> c = idx2crd(ctx, coord[i], shape[i]);
    if (!c.ok())
      return c;
    out.push_back(std::move(*c));
  }
  return ExprTuple::tuple(std::move(out));
}

namespace {

// Σ c·d over congruent natural coordinate and stride.
ExprRef inner_product(ExprContext &ctx, const ExprTuple &coord, const ExprTuple &stride) {
  if (coord.is_leaf())
    return ctx.mul(coord.value(), stride.value());
  ExprRef sum = ctx.constant(0);
  for (int i = 0; i < coord.rank(); ++i)
    sum = ctx.add(sum, inner_product(ctx, coord[i], stride[i]));
  return sum;
}

} // namespace

Result<ExprRef> crd2idx(ExprContext &ctx, const ExprTuple &coord, const ExprTuple &shape,
                        const ExprTuple &stride) {
  if (!congruent(shape, stride)) {
    return Error{"shape " + to_string(shape) + " and stride " + to_string(stride) +
                 " are not congruent"};
  }
  Result<ExprTuple> natural = idx2crd(ctx, coord, shape);
  if (!natural.ok())
    return natural.error();
  return inner_product(ctx, *natural, stride);
}

ExprRef evaluate(ExprContext &ctx, const SymbolicLayout &layout, ExprRef index) {
  return inner_product(ctx, idx2crd(ctx, index, layout.shape), layout.stride);
}

Result<ExprRef> evaluate(ExprContext &ctx, const SymbolicLayout &layout, const ExprTuple &coord) {
  return crd2idx(ctx, coord, layout.shape, layout.stride);
}

ExprRef evaluate(ExprContext &ctx, const Layout &layout, ExprRef index) {
  return evaluate(ctx, to_symbolic(ctx, layout), index);
}

Result<ExprRef> evaluate(ExprContext &ctx, const Layout &layout, const ExprTuple &coord) {
  return evaluate(ctx, to_symbolic(ctx, layout), coord);
}

// ---------------------------------------------------------------------------
// Swizzles.

ExprRef apply_swizzle(ExprContext &ctx, const Swizzle &swizzle, ExprRef offset) {
  if (swizzle.bits == 0)
    return offset;
  const ExprRef picked =
      ctx.bit_and(offset, ctx.constant(static_cast<int64_t>(swizzle.yyy_mask())));
  const ExprRef moved = swizzle.shift >= 0 ? ctx.shr(picked, ctx.constant(swizzle.shift))
                                           : ctx.shl(picked, ctx.constant(-swizzle.shift));
  return ctx.bit_xor(offset, moved);
}

ExprRef byte_offset(ExprContext &ctx, const SwizzledLayout &layout, ExprRef index) {
  const ExprRef offset = evaluate(ctx, layout.layout, index);
  return apply_swizzle(ctx, layout.swizzle, ctx.mul(offset, ctx.constant(layout.element_bytes)));
}

ExprRef evaluate(ExprContext &ctx, const SwizzledLayout &layout, ExprRef index) {
  return ctx.floor_div(byte_offset(ctx, layout, index), ctx.constant(layout.element_bytes));
}

} // namespace argus::layout
