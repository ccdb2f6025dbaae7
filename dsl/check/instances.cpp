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

// The shapes `Tensor((d0, d1, ...), T)` of the kernel's tensor parameters, as
// written (the dimension expressions).
std::vector<const std::vector<ast::ExprPtr> *> tensor_shapes(const sema::FunctionInfo &kernel) {
  std::vector<const std::vector<ast::ExprPtr> *> out;
  const ast::Function &fn = *kernel.function;
  for (size_t i = 0; i < fn.params.size() && i < kernel.params.size(); ++i) {
    const Expr *annotation = fn.params[i].annotation.get();
    if (kernel.params[i] && kernel.params[i]->type.is_tensor() && annotation &&
        annotation->kind == ast::ExprKind::Call && annotation->arg_count() >= 1 &&
        annotation->arg(0).kind == ast::ExprKind::Tuple)
      out.push_back(&annotation->arg(0).operands);
  }
  return out;
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

namespace {

// The Z3 problem of a kernel's sizes: one integer per integer parameter, the
// translatable assumptions, the grid's size-dependent dimensions, and which
// parameters are sizes (at least 1) and matrix dimensions (`inner`: a
// tensor's last two dimensions).
struct SizeProblem {
  const sema::SemaResult &sema;
  z3::context &ctx;
  unsigned timeout_ms;
  std::set<const sema::Symbol *> sizes;
  std::set<const sema::Symbol *> inner;
  std::set<const sema::Symbol *> shaped; // named by a tensor's shape (not only by the grid)
  std::map<const sema::Symbol *, z3::expr> vars;
  z3::expr_vector facts;
  std::vector<z3::expr> grid;
  std::vector<z3::expr> tilings; // size-dependent tile counts inside grid dimensions
  std::vector<const Expr *> untranslated;
  z3::expr magnitude; // small sizes, and other integers near 0

  static constexpr int64_t window = int64_t{1} << 16;

  SizeProblem(const CheckedFile &file, const sema::FunctionInfo &kernel, unsigned timeout)
      : sema(*file.sema), ctx(thread_z3_context()), timeout_ms(timeout),
        sizes(size_params(sema, kernel)), facts(ctx), magnitude(ctx.int_val(0)) {
    for (const sema::Symbol *p : integer_params(kernel))
      vars.emplace(p, ctx.int_const(p->name.c_str()));
    Z3Terms terms(ctx, sema, size_lookup(ctx, sema, vars));
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
        untranslated.push_back(a);
    }
    for (const Expr *g : kernel.grid)
      if (g && !sema.constant_of(*g)) {
        if (auto t = terms.integer(*g))
          grid.push_back(*t);
        tilings_in(*g, terms);
      }
    for (const auto &[s, v] : vars)
      magnitude = magnitude + (sizes.count(s) ? v : z3::ite(v < 0, -v, v));
    // A size that only counts the leading dimensions of tensors of rank 3 or
    // more (batches, heads) is not `inner`: B = H = S = 64 of a B x H x S x D
    // tensor would be 16M elements, more than the interpreter runs. (The rows
    // of a matrix are inner: an MoE's token count.)
    for (const auto *shape : tensor_shapes(kernel)) {
      const auto &dims = *shape;
      for (size_t d = dims.size() >= 3 ? dims.size() - 2 : 0; d < dims.size(); ++d)
        if (dims[d])
          names_in(sema, *dims[d], inner);
      for (const auto &dim : dims)
        if (dim)
          names_in(sema, *dim, shaped);
    }
  }

  // A tiling inside a grid dimension (`cdiv(T, BM)` of `cdiv(T, BM) + E`,
  // `min(GROUP, cdiv(M, BM))`) is a count of tiles the blocks walk: the
  // second instance makes each at least two where the assumptions allow it,
  // as it does a grid dimension, so a size that the grid only counts in a
  // sum still spans several tiles (an MoE expert of more than one row tile).
  void tilings_in(const Expr &e, Z3Terms &terms) {
    const bool tiling = (e.kind == ast::ExprKind::Call && sema.builtin_of(e) == BuiltinId::Cdiv) ||
                        (e.kind == ast::ExprKind::Binary && e.binary_op == ast::BinaryOp::FloorDiv);
    if (tiling && !sema.constant_of(e))
      if (auto t = terms.integer(e))
        tilings.push_back(*t);
    for (const auto &op : e.operands)
      if (op)
        tilings_in(*op, terms);
  }

  // Minimizes `objective`, then (with `then_smallest`) the sizes' magnitude:
  // among equally good instances the smallest, so the choice is one.
  std::optional<std::map<std::string, int64_t>>
  optimize(const z3::expr_vector &extra, const z3::expr &objective, bool then_smallest = false) {
    z3::optimize opt(ctx);
    z3::params p(ctx);
    p.set("timeout", timeout_ms);
    opt.set(p);
    for (const auto &f : facts)
      opt.add(f);
    for (const auto &f : extra)
      opt.add(f);
    opt.minimize(objective);
    if (then_smallest)
      opt.minimize(magnitude); // lexicographic: after `objective`
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
  }
  std::optional<std::map<std::string, int64_t>> solve(const z3::expr_vector &extra) {
    return optimize(extra, magnitude);
  }

  // When the assumptions cap a size below `threshold` (`assume(E <= 8)`):
  // every size as large as it may be up to `threshold`, none smaller than in
  // `base`, one of them larger, two blocks per grid dimension; the other
  // integers as in `base` where `pin_others`.
  std::optional<std::map<std::string, int64_t>>
  as_large_as_allowed(const std::map<std::string, int64_t> &base, int64_t threshold,
                      bool pin_others, bool two_tiles = false) {
    z3::expr_vector relaxed(ctx);
    z3::expr grown = ctx.bool_val(false);
    z3::expr reach = ctx.int_val(0);
    for (const auto &[s, v] : vars) {
      const z3::expr before = ctx.int_val(static_cast<int64_t>(base.at(s->name)));
      if (!sizes.count(s)) {
        if (pin_others)
          relaxed.push_back(v == before);
        continue;
      }
      relaxed.push_back(v >= before);
      grown = grown || v > before;
      // A size only the grid names (a persistent kernel's block count) grows
      // no further than the grid needs: as many blocks as tiles would give
      // each block one tile and never run a block's second.
      if (shaped.count(s))
        reach = reach + z3::ite(v < ctx.int_val(threshold), v, ctx.int_val(threshold));
    }
    relaxed.push_back(grown);
    for (const auto &g : grid)
      relaxed.push_back(g >= 2);
    if (two_tiles)
      for (const auto &g : tilings)
        relaxed.push_back(g >= 2);
    return optimize(relaxed, -reach, true);
  }
};

} // namespace

InstanceChoice choose_instances(const CheckedFile &file, const sema::FunctionInfo &kernel,
                                unsigned timeout_ms) {
  InstanceChoice choice;
  if (integer_params(kernel).empty()) {
    choice.instances.push_back({});
    return choice;
  }
  SizeProblem problem(file, kernel, timeout_ms);
  choice.untranslated = problem.untranslated;
  z3::context &ctx = problem.ctx;
  const auto &vars = problem.vars;
  const auto &sizes = problem.sizes;
  const auto &grid = problem.grid;
  const auto &sema = problem.sema;
  const int64_t window = SizeProblem::window;
  auto optimize = [&](const z3::expr_vector &extra, const z3::expr &objective) {
    return problem.optimize(extra, objective);
  };
  auto solve = [&](const z3::expr_vector &extra) { return problem.solve(extra); };

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
  // them several tiles; batches and heads (not `inner`) only grow.
  for (const auto &[s, v] : vars) {
    if (!sizes.count(s))
      continue;
    more.push_back(v > ctx.int_val(static_cast<int64_t>(first->at(s->name))));
    if (problem.inner.count(s))
      more.push_back(v >= 64);
  }
  for (const auto &g : grid)
    more.push_back(g >= 2);
  // Two tiles of every tiling inside a grid dimension where the assumptions
  // allow it; without them where they do not.
  z3::expr_vector more_tiles = more;
  for (const auto &g : problem.tilings)
    more_tiles.push_back(g >= 2);
  std::optional<std::map<std::string, int64_t>> second;
  if (!more.empty()) {
    second = solve(more_tiles);
    if (!second && !problem.tilings.empty())
      second = solve(more);
  }
  if (!second && !more.empty()) {
    second = problem.as_large_as_allowed(*first, 64, false, true);
    if (!second && !problem.tilings.empty())
      second = problem.as_large_as_allowed(*first, 64, false);
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

std::optional<std::map<std::string, int64_t>>
grow_instance(const CheckedFile &file, const sema::FunctionInfo &kernel,
              const std::map<std::string, int64_t> &base, int64_t threshold, unsigned timeout_ms,
              const std::set<std::string> &only) {
  if (integer_params(kernel).empty())
    return std::nullopt;
  SizeProblem problem(file, kernel, timeout_ms);
  for (const auto &[s, v] : problem.vars)
    if (!base.count(s->name))
      return std::nullopt;
  z3::expr_vector more(problem.ctx);
  bool any_inner = false;
  for (const auto &[s, v] : problem.vars) {
    const z3::expr before = problem.ctx.int_val(static_cast<int64_t>(base.at(s->name)));
    if (!problem.sizes.count(s)) {
      more.push_back(v == before); // the same flag or stride, at larger sizes
      continue;
    }
    if (!only.empty() && !only.count(s->name)) {
      more.push_back(v == before);
      continue;
    }
    more.push_back(v >= before);
    if (only.empty() ? problem.inner.count(s) > 0 : true) {
      more.push_back(v >= problem.ctx.int_val(threshold));
      any_inner = any_inner || base.at(s->name) < threshold;
    }
  }
  if (only.empty()) // with `only` the grid is what those sizes make it
    for (const auto &g : problem.grid)
      more.push_back(g >= 2);
  std::optional<std::map<std::string, int64_t>> grown;
  if (any_inner)
    grown = problem.solve(more);
  if (!grown && only.empty())
    grown = problem.as_large_as_allowed(base, threshold, true);
  if (grown && *grown == base)
    return std::nullopt;
  return grown;
}

namespace {

// Every name a statement list assigns, with the expressions assigned to it.
void assignments(const sema::SemaResult &sema, const std::vector<ast::StmtPtr> &body,
                 std::multimap<const sema::Symbol *, const Expr *> &out) {
  for (const auto &st : body) {
    if (!st)
      continue;
    std::vector<const Expr *> targets;
    if (st->target)
      targets.push_back(st->target.get());
    for (const auto &t : st->targets)
      if (t)
        targets.push_back(t.get());
    if (st->value)
      for (const Expr *t : targets)
        if (t->kind == ast::ExprKind::Name)
          if (auto it = sema.references.find(t); it != sema.references.end())
            out.emplace(it->second, st->value.get());
    assignments(sema, st->body, out);
    assignments(sema, st->orelse, out);
  }
}

} // namespace

std::set<std::string> sizes_driving(const CheckedFile &file, const sema::FunctionInfo &kernel,
                                    const ast::Stmt &loop) {
  const sema::SemaResult &sema = *file.sema;
  std::multimap<const sema::Symbol *, const Expr *> assigned;
  assignments(sema, kernel.function->body, assigned);
  std::set<const sema::Symbol *> reached;
  if (loop.value)
    names_in(sema, *loop.value, reached);
  // Through locals (`stop = offsets[e + 1]`) and the facts about a tensor's
  // contents (`assume(offsets[E] == T)`), to the sizes.
  std::vector<const sema::Symbol *> work(reached.begin(), reached.end());
  while (!work.empty()) {
    const sema::Symbol *sym = work.back();
    work.pop_back();
    std::set<const sema::Symbol *> next;
    auto [from, to] = assigned.equal_range(sym);
    for (auto it = from; it != to; ++it)
      names_in(sema, *it->second, next);
    if (sym->type.is_tensor())
      for (const Expr *a : kernel.assumptions)
        if (a && is_content_fact(sema, *a)) {
          std::set<const sema::Symbol *> in_fact;
          names_in(sema, *a, in_fact);
          if (in_fact.count(sym))
            next.insert(in_fact.begin(), in_fact.end());
        }
    for (const sema::Symbol *n : next)
      if (reached.insert(n).second)
        work.push_back(n);
  }
  std::set<std::string> out;
  for (const sema::Symbol *p : size_params(sema, kernel))
    if (reached.count(p))
      out.insert(p->name);
  return out;
}

namespace {

bool mentions(const sema::SemaResult &sema, const Expr &e,
              const std::set<const sema::Symbol *> &names) {
  std::set<const sema::Symbol *> in;
  names_in(sema, e, in);
  return std::any_of(in.begin(), in.end(), [&](const sema::Symbol *s) { return names.count(s); });
}

void derived_names(const sema::SemaResult &sema, const std::vector<ast::StmtPtr> &body,
                   std::set<const sema::Symbol *> &vars) {
  for (const auto &st : body) {
    if (!st)
      continue;
    if (st->value && mentions(sema, *st->value, vars)) {
      std::vector<const Expr *> targets;
      if (st->target)
        targets.push_back(st->target.get());
      for (const auto &t : st->targets)
        targets.push_back(t.get());
      for (const Expr *t : targets)
        if (t && t->kind == ast::ExprKind::Name)
          if (auto it = sema.references.find(t); it != sema.references.end())
            vars.insert(it->second);
    }
    derived_names(sema, st->body, vars);
    derived_names(sema, st->orelse, vars);
  }
}

void largest_modulus(const sema::SemaResult &sema, const Expr &e,
                     const std::set<const sema::Symbol *> &vars, int64_t &out) {
  if (e.kind == ast::ExprKind::Binary && e.binary_op == ast::BinaryOp::Mod && e.operands[0] &&
      e.operands[1] && mentions(sema, *e.operands[0], vars))
    if (auto c = sema.constant_of(*e.operands[1]); c && *c > 1 && *c <= 64)
      out = std::max(out, *c);
  for (const auto &op : e.operands)
    if (op)
      largest_modulus(sema, *op, vars, out);
  for (const auto &k : e.keywords)
    if (k.value)
      largest_modulus(sema, *k.value, vars, out);
}

void largest_modulus(const sema::SemaResult &sema, const std::vector<ast::StmtPtr> &body,
                     const std::set<const sema::Symbol *> &vars, int64_t &out) {
  for (const auto &st : body) {
    if (!st)
      continue;
    for (const Expr *e : {st->value.get(), st->target.get()})
      if (e)
        largest_modulus(sema, *e, vars, out);
    for (const auto &t : st->targets)
      if (t)
        largest_modulus(sema, *t, vars, out);
    largest_modulus(sema, st->body, vars, out);
    largest_modulus(sema, st->orelse, vars, out);
  }
}

} // namespace

int64_t wraparound_iterations(const CheckedFile &file, const ast::Stmt &loop) {
  const sema::SemaResult &sema = *file.sema;
  if (loop.kind != ast::StmtKind::For || !loop.target)
    return 0;
  auto it = sema.references.find(loop.target.get());
  if (it == sema.references.end())
    return 0;
  std::set<const sema::Symbol *> vars{it->second};
  derived_names(sema, loop.body, vars);
  int64_t modulus = 0;
  largest_modulus(sema, loop.body, vars, modulus);
  return modulus > 1 ? modulus + 1 : 0;
}

namespace {

// Each integer parameter bound to its value in `sizes` (none when one is missing).
std::optional<std::map<const sema::Symbol *, z3::expr>>
size_constants(z3::context &ctx, const sema::FunctionInfo &kernel,
               const std::map<std::string, int64_t> &sizes) {
  std::map<const sema::Symbol *, z3::expr> vars;
  for (const sema::Symbol *p : integer_params(kernel)) {
    auto it = sizes.find(p->name);
    if (it == sizes.end())
      return std::nullopt;
    vars.emplace(p, ctx.int_val(static_cast<int64_t>(it->second)));
  }
  return vars;
}

} // namespace

std::optional<int64_t> global_elements(const CheckedFile &file, const sema::FunctionInfo &kernel,
                                       const std::map<std::string, int64_t> &sizes) {
  const sema::SemaResult &sema = *file.sema;
  z3::context &ctx = thread_z3_context();
  const auto vars = size_constants(ctx, kernel, sizes);
  if (!vars)
    return std::nullopt;
  Z3Terms terms(ctx, sema, size_lookup(ctx, sema, *vars));
  int64_t total = 0;
  for (const auto *shape : tensor_shapes(kernel)) {
    int64_t elements = 1;
    for (const auto &dim : *shape) {
      std::optional<z3::expr> term = dim ? terms.integer(*dim) : std::nullopt;
      int64_t extent = 0;
      if (!term || !term->simplify().is_numeral_i64(extent) || extent < 0)
        return std::nullopt;
      if (extent != 0 && elements > (int64_t{1} << 40) / extent)
        return std::nullopt;
      elements *= extent;
    }
    total += elements;
  }
  return total;
}

bool satisfies_assumptions(const CheckedFile &file, const sema::FunctionInfo &kernel,
                           const std::map<std::string, int64_t> &sizes, unsigned timeout_ms) {
  const sema::SemaResult &sema = *file.sema;
  z3::context &ctx = thread_z3_context();
  const auto vars = size_constants(ctx, kernel, sizes);
  if (!vars)
    return false;
  Z3Terms terms(ctx, sema, size_lookup(ctx, sema, *vars));
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
