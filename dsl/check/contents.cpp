// Contents of integer tensors chosen by Z3: at fixed sizes every fact over
// contents is a finite conjunction (a generator expands over its range), each
// element one integer variable.
#include "contents.h"

#include "z3_terms.h"

#include <algorithm>
#include <functional>

namespace argus::check::detail {

using ast::Expr;
using ast::ExprKind;

namespace {

constexpr int64_t kMaxElements = 1 << 14; // per tensor and per generator
constexpr int64_t kMagnitude = int64_t{1} << 30;

const sema::Symbol *symbol_of(const sema::SemaResult &sema, const Expr &e) {
  auto it = sema.references.find(&e);
  return it == sema.references.end() ? nullptr : it->second;
}

bool is_tensor_param(const sema::Symbol *s) {
  return s && s->kind == sema::SymbolKind::Parameter && s->type.is_tensor() &&
         s->type.tensor->space == sema::MemorySpace::Global;
}

// `fact for i in range(n)`: lowered to a Lambda with two operands.
bool is_generator(const Expr &e) { return e.kind == ExprKind::Lambda && e.operands.size() == 2; }

bool mentions_contents(const sema::SemaResult &sema, const Expr &e) {
  if (is_generator(e))
    return true;
  if (e.kind == ExprKind::Subscript && e.operands[0]->kind == ExprKind::Name &&
      is_tensor_param(symbol_of(sema, *e.operands[0])))
    return true;
  for (const auto &op : e.operands)
    if (op && mentions_contents(sema, *op))
      return true;
  return false;
}

void tensors_in(const sema::SemaResult &sema, const Expr &e, std::set<std::string> &out) {
  if (e.kind == ExprKind::Subscript && e.operands[0]->kind == ExprKind::Name &&
      is_tensor_param(symbol_of(sema, *e.operands[0])))
    out.insert(e.operands[0]->name);
  for (const auto &op : e.operands)
    if (op)
      tensors_in(sema, *op, out);
}

// The value of a term that simplifies to a number (false when it does not).
bool numeral(const std::optional<z3::expr> &e, int64_t &out) {
  return e && e->simplify().is_numeral_i64(out);
}

// One tensor's elements as Z3 variables, made when a fact first names it.
struct Elements {
  std::vector<int64_t> shape;
  std::vector<std::optional<z3::expr>> vars;
  bool is_unsigned = false;
};

class ContentSolver {
public:
  ContentSolver(const CheckedFile &file, const sema::FunctionInfo &kernel,
                const std::map<std::string, int64_t> &sizes)
      : sema_(*file.sema), kernel_(kernel), sizes_(sizes),
        terms_(
            ctx_, sema_, [this](const Expr &n) { return name(n); }, nullptr,
            [this](const Expr &s) { return element(s); }) {}

  z3::context &ctx() { return ctx_; }

  // The fact as a Bool term, or nothing (why_ says why).
  std::optional<z3::expr> fact(const Expr &e) {
    if (!is_generator(e))
      return terms_.boolean(e);
    const Expr &range = *e.operands[1];
    if (range.kind != ExprKind::Call || range.arg_count() < 1)
      return std::nullopt;
    std::optional<z3::expr> start = ctx_.int_val(0), stop;
    if (range.arg_count() >= 2)
      start = terms_.integer(range.arg(0));
    stop = terms_.integer(range.arg(range.arg_count() >= 2 ? 1 : 0));
    int64_t first = 0, last = 0;
    if (!numeral(start, first) || !numeral(stop, last))
      return std::nullopt;
    if (last - first > kMaxElements) {
      why_ = "its range has " + std::to_string(last - first) +
             " values at these sizes (the limit is " + std::to_string(kMaxElements) + ")";
      return std::nullopt;
    }
    const std::string &var = e.lambda_params[0].name;
    z3::expr all = ctx_.bool_val(true);
    for (int64_t i = first; i < last; ++i) {
      bound_.insert_or_assign(var, ctx_.int_val(i));
      auto t = terms_.boolean(*e.operands[0]);
      if (!t) {
        bound_.erase(var);
        return std::nullopt;
      }
      all = all && *t;
    }
    bound_.erase(var);
    return all;
  }

  const std::string &why() const { return why_; }
  std::map<std::string, Elements> &elements() { return elements_; }

private:
  std::optional<z3::expr> name(const Expr &n) {
    if (auto it = bound_.find(n.name); it != bound_.end())
      return it->second;
    const sema::Symbol *s = symbol_of(sema_, n);
    if (!s)
      return std::nullopt;
    if (auto it = sizes_.find(s->name); it != sizes_.end() && !s->type.is_tensor())
      return ctx_.int_val(static_cast<int64_t>(it->second));
    if (s->value)
      return ctx_.int_val(static_cast<int64_t>(*s->value));
    return std::nullopt;
  }

  Elements *tensor(const Expr &base) {
    const sema::Symbol *s = symbol_of(sema_, base);
    if (!is_tensor_param(s) || sema::is_float(s->type.tensor->dtype))
      return nullptr;
    if (auto it = elements_.find(s->name); it != elements_.end())
      return &it->second;
    const ast::Function &fn = *kernel_.function;
    for (size_t i = 0; i < fn.params.size() && i < kernel_.params.size(); ++i) {
      const Expr *annotation = fn.params[i].annotation.get();
      if (kernel_.params[i] != s || !annotation || annotation->kind != ExprKind::Call ||
          annotation->arg_count() < 2)
        continue;
      const Expr &shape = annotation->arg(0);
      std::vector<const Expr *> dims;
      if (shape.kind == ExprKind::Tuple)
        for (const auto &d : shape.operands)
          dims.push_back(d.get());
      else
        dims.push_back(&shape);
      Elements el;
      int64_t count = 1;
      for (const Expr *d : dims) {
        int64_t x = 0;
        if (!numeral(terms_.integer(*d), x))
          return nullptr;
        el.shape.push_back(std::max<int64_t>(0, x));
        count *= el.shape.back();
        if (count > kMaxElements) {
          why_ = s->name + " has more than " + std::to_string(kMaxElements) +
                 " elements at these sizes";
          return nullptr;
        }
      }
      el.vars.assign(static_cast<size_t>(count), std::nullopt);
      el.is_unsigned = !sema::is_signed(s->type.tensor->dtype);
      return &elements_.emplace(s->name, std::move(el)).first->second;
    }
    return nullptr;
  }

  std::optional<z3::expr> element(const Expr &e) {
    if (e.operands[0]->kind != ExprKind::Name)
      return std::nullopt;
    Elements *el = tensor(*e.operands[0]);
    if (!el || e.operands.size() - 1 != el->shape.size())
      return std::nullopt;
    int64_t flat = 0;
    for (size_t d = 0; d < el->shape.size(); ++d) {
      int64_t x = 0;
      if (!numeral(terms_.integer(*e.operands[d + 1]), x))
        return std::nullopt;
      if (x < 0 || x >= el->shape[d]) {
        why_ = "it names " + e.operands[0]->name + " at index " + std::to_string(x) +
               ", outside its dimension " + std::to_string(d) + " (size " +
               std::to_string(el->shape[d]) + ")";
        return std::nullopt;
      }
      flat = flat * el->shape[d] + x;
    }
    auto &slot = el->vars[static_cast<size_t>(flat)];
    if (!slot)
      slot = ctx_.int_const((e.operands[0]->name + "[" + std::to_string(flat) + "]").c_str());
    return *slot;
  }

  const sema::SemaResult &sema_;
  const sema::FunctionInfo &kernel_;
  const std::map<std::string, int64_t> &sizes_;
  z3::context &ctx_ = thread_z3_context();
  Z3Terms terms_;
  std::map<std::string, z3::expr> bound_; // generator variables
  std::map<std::string, Elements> elements_;
  std::string why_;
};

} // namespace

bool is_content_fact(const sema::SemaResult &sema, const ast::Expr &fact) {
  return mentions_contents(sema, fact);
}

std::set<std::string> stated_tensors(const CheckedFile &file, const sema::FunctionInfo &kernel) {
  std::set<std::string> out;
  for (const Expr *a : kernel.assumptions)
    if (a && is_content_fact(*file.sema, *a))
      tensors_in(*file.sema, *a, out);
  return out;
}

ContentChoice choose_contents(const CheckedFile &file, const sema::FunctionInfo &kernel,
                              const std::map<std::string, int64_t> &sizes, unsigned timeout_ms) {
  ContentChoice choice;
  // Most kernels state no contents: no Z3 context for them.
  if (std::none_of(kernel.assumptions.begin(), kernel.assumptions.end(),
                   [&](const Expr *a) { return a && is_content_fact(*file.sema, *a); }))
    return choice;
  ContentSolver solver(file, kernel, sizes);
  z3::context &ctx = solver.ctx();
  z3::expr_vector facts(ctx);
  for (const Expr *a : kernel.assumptions) {
    if (!a || !is_content_fact(*file.sema, *a))
      continue;
    auto t = solver.fact(*a);
    if (!t) {
      choice.failed_at = a;
      choice.failure =
          "this fact over tensor contents is outside what the checker can reason about" +
          (solver.why().empty() ? std::string(" (integer arithmetic over sizes and elements)")
                                : " (" + solver.why() + ")") +
          ": contents were chosen without it";
      continue;
    }
    facts.push_back(*t);
  }
  std::vector<z3::expr> vars;
  for (auto &[name, el] : solver.elements())
    for (auto &v : el.vars)
      if (v) {
        vars.push_back(*v);
        facts.push_back(*v >= (el.is_unsigned ? ctx.int_val(0) : ctx.int_val(-kMagnitude)));
        facts.push_back(*v <= ctx.int_val(kMagnitude));
      }
  if (vars.empty())
    return choice;

  auto solve = [&](const std::function<void(z3::optimize &)> &objective)
      -> std::optional<std::vector<int64_t>> {
    z3::optimize opt(ctx);
    z3::params p(ctx);
    p.set("timeout", timeout_ms);
    opt.set(p);
    for (const auto &f : facts)
      opt.add(f);
    objective(opt);
    if (opt.check() != z3::sat)
      return std::nullopt;
    z3::model m = opt.get_model();
    std::vector<int64_t> out;
    for (const auto &v : vars) {
      int64_t x = 0;
      if (!m.eval(v, true).is_numeral_i64(x))
        return std::nullopt;
      out.push_back(x);
    }
    return out;
  };
  z3::expr sum = ctx.int_val(0);
  for (const auto &v : vars)
    sum = sum + v;
  auto low = solve([&](z3::optimize &o) { o.minimize(sum); });
  if (!low) {
    choice.failed_at = nullptr;
    choice.failure = "no contents of the tensors satisfy the kernel's assumptions at these sizes "
                     "(or Z3 found none within " +
                     std::to_string(timeout_ms) + " ms): nothing was run";
    return choice;
  }
  auto high = solve([&](z3::optimize &o) { o.maximize(sum); });
  std::vector<std::vector<int64_t>> picks{*low};
  if (high) {
    picks.push_back(*high);
    // A quadratic ramp from the smallest toward the largest values: groups of
    // different lengths (offsets), some empty, most not a multiple of a tile.
    const size_t n = vars.size();
    auto ramp = solve([&](z3::optimize &o) {
      for (size_t k = 0; k < n; ++k) {
        const int64_t lo = (*low)[k], hi = (*high)[k];
        const int64_t den = static_cast<int64_t>((n > 1 ? n - 1 : 1) * (n > 1 ? n - 1 : 1));
        const int64_t kk = static_cast<int64_t>(k * k);
        const int64_t target = lo + ((hi - lo) * kk + den - 1) / den;
        o.add_soft(vars[k] == ctx.int_val(target), 1);
      }
    });
    if (ramp)
      picks.push_back(*ramp);
  }
  for (const auto &pick : picks) {
    Contents c;
    size_t k = 0;
    for (auto &[name, el] : solver.elements()) {
      std::vector<int64_t> values(el.vars.size(), 0);
      for (size_t i = 0; i < el.vars.size(); ++i)
        if (el.vars[i])
          values[i] = pick[k++];
      c[name] = std::move(values);
    }
    if (std::find(choice.choices.begin(), choice.choices.end(), c) == choice.choices.end())
      choice.choices.push_back(std::move(c));
  }
  return choice;
}

} // namespace argus::check::detail
