// Size instances: Z3 picks concrete values of a kernel's integer scalar
// parameters that satisfy its assume(...) facts, small enough to execute
// every block and thread: the smallest, and the smallest with every size
// larger, at least 64, and two or more blocks per grid dimension.
#include "instances.h"

#include "z3_terms.h"

namespace argus::check::detail {

using ast::Expr;

namespace {

// Integer scalar parameters that are not constexpr: the sizes.
std::vector<const sema::Symbol *> size_params(const sema::FunctionInfo &kernel) {
  std::vector<const sema::Symbol *> out;
  for (const sema::Symbol *p : kernel.params)
    if (p && !p->is_constexpr && p->type.kind == sema::TypeKind::Scalar &&
        sema::is_integer(p->type.scalar))
      out.push_back(p);
  return out;
}

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

} // namespace

InstanceChoice choose_instances(const CheckedFile &file, const sema::FunctionInfo &kernel,
                                unsigned timeout_ms) {
  InstanceChoice choice;
  const auto params = size_params(kernel);
  if (params.empty()) {
    choice.instances.push_back({});
    return choice;
  }
  z3::context ctx;
  std::map<const sema::Symbol *, z3::expr> vars;
  for (const sema::Symbol *p : params)
    vars.emplace(p, ctx.int_const(p->name.c_str()));
  const sema::SemaResult &sema = *file.sema;
  Z3Terms terms(ctx, sema, size_lookup(ctx, sema, vars));
  z3::expr_vector facts(ctx);
  for (const auto &[p, v] : vars) {
    // Sizes are positive; a ceiling keeps executions small when assume says nothing.
    facts.push_back(v >= 1);
    facts.push_back(v <= (1 << 16));
  }
  for (const Expr *a : kernel.assumptions) {
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

  auto solve = [&](const z3::expr_vector &extra) -> std::optional<std::map<std::string, int64_t>> {
    z3::optimize opt(ctx);
    z3::params p(ctx);
    p.set("timeout", timeout_ms);
    opt.set(p);
    for (const auto &f : facts)
      opt.add(f);
    for (const auto &f : extra)
      opt.add(f);
    z3::expr sum = ctx.int_val(0);
    for (const auto &[s, v] : vars)
      sum = sum + v;
    opt.minimize(sum);
    if (opt.check() != z3::sat)
      return std::nullopt;
    z3::model model = opt.get_model();
    std::map<std::string, int64_t> sizes;
    for (const auto &[s, v] : vars) {
      int64_t x = 0;
      if (!model.eval(v, true).is_numeral_i64(x))
        return std::nullopt;
      sizes[s->name] = x;
    }
    return sizes;
  };

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
  // bank-conflict lints (a 2-element row looks coalesced).
  for (const auto &[s, v] : vars) {
    more.push_back(v > ctx.int_val(static_cast<int64_t>(first->at(s->name))));
    more.push_back(v >= 64);
  }
  for (const auto &g : grid)
    more.push_back(g >= 2);
  if (auto second = solve(more))
    choice.instances.push_back(*second);
  return choice;
}

bool satisfies_assumptions(const CheckedFile &file, const sema::FunctionInfo &kernel,
                           const std::map<std::string, int64_t> &sizes, unsigned timeout_ms) {
  const sema::SemaResult &sema = *file.sema;
  z3::context ctx;
  std::map<const sema::Symbol *, z3::expr> vars;
  for (const sema::Symbol *p : size_params(kernel)) {
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
    if (auto b = terms.boolean(*a))
      solver.add(*b);
  return solver.check() == z3::sat;
}

} // namespace argus::check::detail
