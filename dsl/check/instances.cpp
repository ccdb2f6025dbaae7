// Size instances: Z3 picks concrete values of a kernel's integer scalar
// parameters that satisfy its assume(...) facts, small enough to execute
// every block and thread: the smallest, and the smallest with every size
// larger, at least 64, and two or more blocks per grid dimension. Integers
// that are not sizes (named by no tensor shape and no grid) may be 0 or
// negative: each is also run at the boundary values of its assumed range, at
// the smallest sizes and at the larger ones.
#include "instances.h"

#include "contents.h"
#include "z3_terms.h"

#include <algorithm>
#include <set>

namespace argus::check::detail {

using ast::Expr;

namespace {

void names_in(const sema::SemaResult &sema, const Expr &e, std::set<const sema::Symbol *> &out) {
  if (e.kind == ast::ExprKind::Name)
    if (auto it = sema.references.find(&e); it != sema.references.end())
      out.insert(it->second);
  for (const auto &op : e.operands)
    if (op)
      names_in(sema, *op, out);
}

} // namespace

std::vector<const sema::Symbol *> integer_params(const sema::FunctionInfo &kernel) {
  std::vector<const sema::Symbol *> out;
  for (const sema::Symbol *p : kernel.params)
    if (p && !p->is_constexpr && p->type.kind == sema::TypeKind::Scalar &&
        sema::is_integer(p->type.scalar))
      out.push_back(p);
  return out;
}

std::set<const sema::Symbol *> size_params(const sema::SemaResult &sema,
                                           const sema::FunctionInfo &kernel) {
  std::set<const sema::Symbol *> named;
  const ast::Function &fn = *kernel.function;
  for (size_t i = 0; i < fn.params.size() && i < kernel.params.size(); ++i)
    if (kernel.params[i] && kernel.params[i]->type.is_tensor() && fn.params[i].annotation)
      names_in(sema, *fn.params[i].annotation, named);
  for (const Expr *g : kernel.grid)
    if (g)
      names_in(sema, *g, named);
  std::set<const sema::Symbol *> out;
  for (const sema::Symbol *p : integer_params(kernel))
    if (named.count(p))
      out.insert(p);
  return out;
}

namespace {

// Names in assumptions and grids: a size (its term in `vars`) or a constant.
Z3Terms::Lookup size_lookup(z3::context &ctx, const sema::SemaResult &sema,
                            const std::map<const sema::Symbol *, z3::expr> &vars) {
  return [&ctx, &sema, &vars](const Expr &name) -> std::optional<z3::expr> {
    auto ref = sema.references.find(&name);
    if (ref == sema.references.end())
      return std::nullopt;
    if (auto it = vars.find(ref->second); it != vars.end())
      return it->second;
    if (ref->second->value)
      return ctx.int_val(static_cast<int64_t>(*ref->second->value));
    return std::nullopt;
  };
}

// Whether an assumption stays linear (a product or divisor has a constant
// side): Z3's optimize may not keep its time limit on nonlinear facts.
bool linear(const sema::SemaResult &sema, const Expr &e) {
  if (e.kind == ast::ExprKind::Binary &&
      (e.binary_op == ast::BinaryOp::Mul || e.binary_op == ast::BinaryOp::FloorDiv ||
       e.binary_op == ast::BinaryOp::Mod) &&
      !sema.constant_of(*e.operands[1]) &&
      (e.binary_op != ast::BinaryOp::Mul || !sema.constant_of(*e.operands[0])))
    return false;
  for (const auto &op : e.operands)
    if (op && !linear(sema, *op))
      return false;
  return true;
}

} // namespace

InstanceChoice choose_instances(const CheckedFile &file, const sema::FunctionInfo &kernel,
                                unsigned timeout_ms) {
  InstanceChoice choice;
  const sema::SemaResult &sema = *file.sema;
  const auto params = integer_params(kernel);
  const auto sizes = size_params(sema, kernel);
  if (params.empty()) {
    choice.instances.push_back({});
    return choice;
  }
  z3::context &ctx = thread_z3_context();
  std::map<const sema::Symbol *, z3::expr> vars;
  for (const sema::Symbol *p : params)
    vars.emplace(p, ctx.int_const(p->name.c_str()));
  Z3Terms terms(ctx, sema, size_lookup(ctx, sema, vars));
  z3::expr_vector facts(ctx);
  const int64_t window = int64_t{1} << 16;
  for (const auto &[p, v] : vars) {
    // Sizes are positive; other integers may be 0 or negative. A window keeps
    // executions small when assume says nothing.
    facts.push_back(v >= (sizes.count(p) ? ctx.int_val(1) : ctx.int_val(-window)));
    facts.push_back(v <= ctx.int_val(window));
  }
  for (const Expr *a : kernel.assumptions) {
    if (is_content_fact(sema, *a))
      continue; // contents are chosen per instance (contents.h)
    if (auto b = terms.boolean(*a))
      facts.push_back(*b);
    else
      choice.untranslated.push_back(a);
  }
  std::vector<z3::expr> grid;
  for (const Expr *g : kernel.grid)
    if (g && !sema.constant_of(*g))
      if (auto t = terms.integer(*g))
        grid.push_back(*t);
  // Small sizes, and other integers near 0.
  z3::expr magnitude = ctx.int_val(0);
  for (const auto &[s, v] : vars)
    magnitude = magnitude + (sizes.count(s) ? v : z3::ite(v < 0, -v, v));

  auto optimize = [&](const z3::expr_vector &extra,
                      const z3::expr &objective) -> std::optional<std::map<std::string, int64_t>> {
    z3::optimize opt(ctx);
    z3::params p(ctx);
    p.set("timeout", timeout_ms);
    opt.set(p);
    for (const auto &f : facts)
      opt.add(f);
    for (const auto &f : extra)
      opt.add(f);
    opt.minimize(objective);
    if (opt.check() != z3::sat)
      return std::nullopt;
    z3::model model = opt.get_model();
    std::map<std::string, int64_t> values;
    for (const auto &[s, v] : vars) {
      int64_t x = 0;
      if (!model.eval(v, true).is_numeral_i64(x))
        return std::nullopt;
      values[s->name] = x;
    }
    return values;
  };
  auto solve = [&](const z3::expr_vector &extra) { return optimize(extra, magnitude); };

  auto first = solve(z3::expr_vector(ctx));
  if (!first) {
    choice.unsatisfiable = true;
    return choice;
  }
  choice.instances.push_back(*first);
  // The second instance: every size larger, two or more blocks along each
  // grid dimension that depends on sizes.
  z3::expr_vector more(ctx);
  // Sizes of at least 64 make strides realistic enough for the coalescing and
  // bank-conflict lints (a 2-element row looks coalesced), and give loops over
  // them several tiles. A size that only counts the leading dimensions of
  // tensors of rank 3 or more (batches, heads) only grows: B = H = S = 64 of
  // a B x H x S x D tensor would be 16M elements, more than the interpreter
  // runs. (The rows of a matrix stay at least 64: an MoE's token count.)
  std::set<const sema::Symbol *> inner;
  const ast::Function &fn = *kernel.function;
  for (size_t i = 0; i < fn.params.size() && i < kernel.params.size(); ++i) {
    const Expr *annotation = fn.params[i].annotation.get();
    if (!kernel.params[i] || !kernel.params[i]->type.is_tensor() || !annotation ||
        annotation->kind != ast::ExprKind::Call || annotation->arg_count() < 1 ||
        annotation->arg(0).kind != ast::ExprKind::Tuple)
      continue;
    const auto &dims = annotation->arg(0).operands;
    for (size_t d = dims.size() >= 3 ? dims.size() - 2 : 0; d < dims.size(); ++d)
      if (dims[d])
        names_in(sema, *dims[d], inner);
  }
  for (const auto &[s, v] : vars) {
    if (!sizes.count(s))
      continue;
    more.push_back(v > ctx.int_val(static_cast<int64_t>(first->at(s->name))));
    if (inner.count(s))
      more.push_back(v >= 64);
  }
  for (const auto &g : grid)
    more.push_back(g >= 2);
  std::optional<std::map<std::string, int64_t>> second;
  if (!more.empty())
    second = solve(more);
  if (!second && !more.empty()) {
    // A size the assumptions cap below 64 (`assume(E <= 16)`) leaves no such
    // instance: then each size as large as it may be up to 64, not smaller
    // than in the first, one of them larger, and two blocks per dimension.
    z3::expr_vector relaxed(ctx);
    z3::expr grown = ctx.bool_val(false);
    z3::expr reach = ctx.int_val(0);
    for (const auto &[s, v] : vars) {
      if (!sizes.count(s))
        continue;
      const z3::expr before = ctx.int_val(static_cast<int64_t>(first->at(s->name)));
      relaxed.push_back(v >= before);
      grown = grown || v > before;
      reach = reach + z3::ite(v < 64, v, ctx.int_val(64));
    }
    relaxed.push_back(grown);
    for (const auto &g : grid)
      relaxed.push_back(g >= 2);
    second = optimize(relaxed, -reach);
  }
  if (second)
    choice.instances.push_back(*second);
  // Integers that are not sizes: the boundary values of their assumed range
  // (0, the smallest, the largest); where assume bounds a side not at all, a
  // few values instead (1, -1, 1024), reported as sampled.
  const bool all_linear =
      std::all_of(kernel.assumptions.begin(), kernel.assumptions.end(), [&](const Expr *a) {
        return !a || is_content_fact(sema, *a) || linear(sema, *a);
      });
  for (const auto &[s, v] : vars) {
    if (sizes.count(s))
      continue;
    if (!all_linear) {
      // Nonlinear facts: only the values of the instances above, said so.
      std::vector<int64_t> tried;
      for (const auto &inst : choice.instances)
        if (std::find(tried.begin(), tried.end(), inst.at(s->name)) == tried.end())
          tried.push_back(inst.at(s->name));
      choice.sampled.emplace_back(s, tried);
      continue;
    }
    auto lo = optimize(z3::expr_vector(ctx), v);
    auto hi = optimize(z3::expr_vector(ctx), -v);
    if (!lo || !hi)
      continue;
    const int64_t min = lo->at(s->name), max = hi->at(s->name);
    const bool bounded = min > -window && max < window;
    std::vector<int64_t> candidates{0, 1};
    candidates.push_back(min > -window ? min : -1);
    candidates.push_back(max < window ? max : 1024);
    std::vector<int64_t> tried;
    for (int64_t c : candidates) {
      if (std::find(tried.begin(), tried.end(), c) != tried.end())
        continue;
      z3::expr_vector pin(ctx);
      pin.push_back(v == ctx.int_val(c));
      auto at = solve(pin);
      if (!at)
        continue;
      tried.push_back(c);
      // Each value at the smallest sizes and, where there is a second
      // instance, at larger ones too: a flag (`causal`) that changes the
      // loops meets several tiles and blocks, not only one.
      std::optional<std::map<std::string, int64_t>> large;
      if (second) {
        z3::expr_vector pin_more(ctx); // a copy of `more` would share its vector
        for (const z3::expr &e : more)
          pin_more.push_back(e);
        pin_more.push_back(v == ctx.int_val(c));
        large = solve(pin_more);
      }
      for (const auto &inst : {at, large})
        if (inst && std::find(choice.instances.begin(), choice.instances.end(), *inst) ==
                        choice.instances.end())
          choice.instances.push_back(*inst);
    }
    if (!bounded)
      choice.sampled.emplace_back(s, tried);
  }
  return choice;
}

bool satisfies_assumptions(const CheckedFile &file, const sema::FunctionInfo &kernel,
                           const std::map<std::string, int64_t> &sizes, unsigned timeout_ms) {
  const sema::SemaResult &sema = *file.sema;
  z3::context &ctx = thread_z3_context();
  std::map<const sema::Symbol *, z3::expr> vars;
  for (const sema::Symbol *p : integer_params(kernel)) {
    auto it = sizes.find(p->name);
    if (it == sizes.end())
      return false;
    vars.emplace(p, ctx.int_val(static_cast<int64_t>(it->second)));
  }
  Z3Terms terms(ctx, sema, size_lookup(ctx, sema, vars));
  z3::solver solver(ctx);
  z3::params p(ctx);
  p.set("timeout", timeout_ms);
  solver.set(p);
  for (const Expr *a : kernel.assumptions)
    if (!is_content_fact(sema, *a))
      if (auto b = terms.boolean(*a))
        solver.add(*b);
  return solver.check() == z3::sat;
}

} // namespace argus::check::detail
