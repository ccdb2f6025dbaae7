// Internal: the translation of a kernel's global-memory accesses to Z3 for
// all sizes, blocks, threads and loop iterations the assume(...) facts allow:
// index bounds queries (symbolic.cpp) and the accesses of one block (the
// grid race proof, grid_races.cpp, runs two copies in one context).
#pragma once

#include "argus/dsl/checker.h"
#include "call_args.h"
#include "contents.h"
#include "instances.h"
#include "z3_terms.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace argus::check::detail {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

// A subscript of a global or shared tensor (the race proofs).
struct Access {
  const Expr *subscript = nullptr;
  const sema::Symbol *tensor = nullptr; // the name subscripted
  const sema::Symbol *root = nullptr;   // the parameter (or make_shared local) whose memory it is
  bool write = false;
  bool exact = false;          // every index a closed form, on a path the prover follows
  bool shared = false;         // shared memory: one per block, so only threads of a block race
  std::vector<z3::expr> index; // per dimension of the tensor (free past those given)
  z3::expr on_path;            // its path's facts ∧ every index inside its extent
  // How many barriers the thread passed before it (barrier_epoch): two
  // threads' accesses with different epochs are ordered by a barrier.
  z3::expr epoch;
  // Shared memory through row-major tensors of constant shape (the buffer
  // or a view of it, of any dtype): the bytes [byte_lo, byte_hi) of the
  // buffer it touches. Accesses through different views overlap by bytes.
  std::optional<z3::expr> byte_lo, byte_hi;
};

int64_t dtype_bytes(ScalarKind kind); // machine.cpp

struct Query {
  const Expr *subscript = nullptr;
  size_t dim = 0;
  z3::expr violated; // facts of the path ∧ the index outside [0, extent)
  std::string index_text;
  bool uses_contents = false; // reads tensor contents (their facts decide it)
};

// `fact for i in range(n)`: lowered to a Lambda with two operands.
inline bool is_generator(const Expr &e) {
  return e.kind == ExprKind::Lambda && e.operands.size() == 2;
}

class BoundsProver {
public:
  // Terms in `ctx`: sizes by their names; threads, blocks and loop variables
  // with `suffix`, so two provers in one context describe two blocks of one
  // launch (the grid race proof).
  BoundsProver(const CheckedFile &file, const sema::FunctionInfo &kernel,
               const std::map<std::string, int64_t> *pinned, z3::context &ctx,
               std::string suffix = "")
      : sema_(*file.sema), kernel_(kernel), ctx_(ctx), suffix_(std::move(suffix)),
        terms_(
            ctx_, sema_, [this](const Expr &n) { return name(n); },
            [this](const Expr &c) { return call(c); },
            [this](const Expr &e) { return element(e); }),
        facts_(ctx_), stated_(stated_tensors(file, kernel)), epoch_(ctx_.int_val(0)) {
    const int warp = kernel.target == sema::Target::Gfx942 ? 64 : 32;
    warp_ = warp;
    const auto sizes = size_params(sema_, kernel);
    // Sizes are at least 1; other integers are constrained by assume only.
    for (const sema::Symbol *p : integer_params(kernel)) {
      z3::expr v = ctx_.int_const(p->name.c_str());
      sizes_.emplace(p, v);
      if (sizes.count(p))
        facts_.push_back(v >= 1);
      else
        free_.insert(p);
      if (pinned)
        if (auto it = pinned->find(p->name); it != pinned->end())
          facts_.push_back(v == ctx_.int_val(static_cast<int64_t>(it->second)));
    }
    for (int d = 0; d < 3; ++d) {
      const int64_t b =
          d < static_cast<int>(kernel.block.size()) ? kernel.block[static_cast<size_t>(d)] : 1;
      block_dim_[d] = b;
      tid_.push_back(ctx_.int_const(("thread." + std::to_string(d) + suffix_).c_str()));
      bid_.push_back(ctx_.int_const(("block." + std::to_string(d) + suffix_).c_str()));
      facts_.push_back(tid_.back() >= 0 && tid_.back() < ctx_.int_val(static_cast<int64_t>(b)));
      facts_.push_back(bid_.back() >= 0);
    }
    collect_definitions(kernel.function->body);
    for (const Expr *a : kernel.assumptions)
      if (!is_content_fact(sema_, *a))
        if (auto t = terms_.boolean(*a))
          facts_.push_back(*t);
    for (size_t d = 0; d < 3; ++d) {
      if (d < kernel.grid.size() && kernel.grid[d]) {
        if (auto g = terms_.integer(*kernel.grid[d])) {
          grid_.push_back(*g);
          facts_.push_back(bid_[d] < *g);
          continue;
        }
      }
      if (d >= kernel.grid.size()) {
        grid_.push_back(ctx_.int_val(1));
        facts_.push_back(bid_[d] < 1);
      } else {
        grid_.push_back(ctx_.int_const(("grid." + std::to_string(d)).c_str()));
      }
    }
  }

  std::vector<Query> collect() {
    std::vector<z3::expr> path;
    walk(kernel_.function->body, path);
    if (barriers_ > 0 && conditional_return_)
      barrier_unmodeled(*conditional_return_, "a kernel that may return before a barrier");
    if (barriers_ > 0 && loop_exit_)
      barrier_unmodeled(*loop_exit_, "a loop that threads may leave early (break or continue)");
    add_content_facts();
    return std::move(queries_);
  }

  z3::context &ctx() { return ctx_; }
  const z3::expr_vector &facts() const { return facts_; }
  const std::vector<Access> &accesses() const { return accesses_; }
  const std::vector<z3::expr> &block_ids() const { return bid_; }
  const std::vector<z3::expr> &thread_ids() const { return tid_; }
  // Global tensors used other than by subscripts (passed whole, a method, an
  // alias the prover does not follow): the first such use of each.
  const std::map<const sema::Symbol *, const Expr *> &opaque_uses() const { return opaque_; }
  // A global tensor reached through a name whose tensor the prover does not know.
  const Expr *unknown_alias() const { return unknown_alias_; }
  // The same for shared memory (a view or alias of a make_shared tensor).
  const Expr *unknown_shared_alias() const { return unknown_shared_alias_; }
  // Roots that are make_shared locals (their accesses are `shared`).
  bool is_shared(const sema::Symbol *root) const { return shared_roots_.count(root) != 0; }
  // Why the barrier epochs of accesses are not exact (a barrier under a
  // condition or loop that depends on the thread, in a loop the prover does
  // not follow, or a kernel that may return before one); empty when they are.
  const std::string &barriers_unmodeled() const { return barriers_unmodeled_; }

  // For proofs that follow the walk (the tag proof, tag_proof.cpp): a scope
  // around the walk's point, outermost first. A range loop the prover follows
  // has its variable and first value; an if is one scope per branch.
  struct Scope {
    const Stmt *stmt = nullptr;
    int branch = 0; // an if: 0 for its body, 1 for its else
    std::optional<z3::expr> var, start;
    bool operator==(const Scope &o) const { return stmt == o.stmt && branch == o.branch; }
  };
  // Called at each statement before the walk translates it, with the facts
  // of its path: terms translated then see the locals and loops in scope.
  using StatementHook = std::function<void(const Stmt &, const std::vector<z3::expr> &path)>;
  void on_statement(StatementHook hook) { hook_ = std::move(hook); }
  const std::vector<Scope> &scopes() const { return scopes_; }
  // Every statement around the walk's point is one the prover follows.
  bool exact_here() const { return blocked_ == 0; }
  std::optional<z3::expr> integer(const Expr &e) { return terms_.integer(e); }
  // `e` with some names (a lambda's parameters) bound to terms.
  std::optional<z3::expr> integer_with(const Expr &e,
                                       const std::map<std::string, z3::expr> &names) {
    for (const auto &[n, t] : names)
      generator_.insert_or_assign(n, t);
    auto out = terms_.integer(e);
    for (const auto &[n, t] : names)
      generator_.erase(n);
    return out;
  }
  const sema::Symbol *symbol(const Expr &e) const { return symbol_of(e); }
  const std::vector<z3::expr> &grid() const { return grid_; }
  int64_t block_dim(size_t d) const { return block_dim_[d]; }

  // Sizes, block and thread of a model.
  std::map<std::string, int64_t> sizes_of(const z3::model &m) {
    std::map<std::string, int64_t> out;
    for (const auto &[s, v] : sizes_) {
      int64_t x = 1;
      if (!m.eval(v, true).is_numeral_i64(x))
        x = 1;
      out[s->name] = x;
    }
    return out;
  }
  std::array<int64_t, 3> block_of(const z3::model &m) {
    std::array<int64_t, 3> out{0, 0, 0};
    for (size_t d = 0; d < 3; ++d) {
      int64_t x = 0;
      if (m.eval(bid_[d], true).is_numeral_i64(x))
        out[d] = x;
    }
    return out;
  }
  z3::expr size_sum() {
    z3::expr s = ctx_.int_val(0);
    for (const auto &[sym, v] : sizes_)
      s = s + (free_.count(sym) ? z3::ite(v < 0, -v, v) : v);
    return s;
  }

private:
  // A read of a stated integer tensor: its contents as an uninterpreted
  // function of the indices, constrained by the facts instantiated at the
  // indices the kernel reads (add_content_facts).
  std::optional<z3::expr> element(const Expr &e) {
    if (e.operands[0]->kind != ExprKind::Name || !stated_.count(e.operands[0]->name))
      return std::nullopt;
    const sema::Symbol *s = symbol_of(*e.operands[0]);
    if (!s || s->kind != sema::SymbolKind::Parameter || !s->type.is_tensor() ||
        sema::is_float(s->type.tensor->dtype))
      return std::nullopt;
    z3::expr_vector args(ctx_);
    z3::sort_vector domain(ctx_);
    for (size_t d = 1; d < e.operands.size(); ++d) {
      auto t = terms_.integer(*e.operands[d]);
      if (!t)
        return std::nullopt;
      args.push_back(*t);
      domain.push_back(ctx_.int_sort());
    }
    const std::string &name = e.operands[0]->name;
    auto fn = contents_.find(name);
    if (fn == contents_.end())
      fn = contents_
               .emplace(name, ctx_.function(("contents." + name).c_str(), domain, ctx_.int_sort()))
               .first;
    ++content_reads_;
    if (args.size() == 1)
      reads_[name].push_back(args[0]);
    return fn->second(args);
  }

  // Each fact `P(i) for i in range(a, b)` holds at every index i of the
  // kernel's reads t[j] for which P names t[i + c]: i = j - c, when it lies
  // in the range. Instances of a universal fact only: a proof is sound, a
  // counterexample may not be (it is not reported unless it replays).
  void add_content_facts() {
    const auto reads = reads_; // the kernel's reads, not those of the facts
    for (const Expr *a : kernel_.assumptions) {
      if (!a || !is_content_fact(sema_, *a))
        continue;
      if (!is_generator(*a)) {
        if (auto t = terms_.boolean(*a))
          facts_.push_back(*t);
        continue;
      }
      const Expr &range = *a->operands[1];
      if (range.kind != ExprKind::Call || range.arg_count() < 1)
        continue;
      std::optional<z3::expr> lo = ctx_.int_val(0), hi;
      if (range.arg_count() >= 2)
        lo = terms_.integer(range.arg(0));
      hi = terms_.integer(range.arg(range.arg_count() >= 2 ? 1 : 0));
      if (!lo || !hi)
        continue;
      const std::string &var = a->lambda_params[0].name;
      // The offsets c of t[i + c] in the fact (i coefficient 1).
      std::vector<std::pair<std::string, z3::expr>> shifts;
      const z3::expr probe = ctx_.int_const(("forall." + var).c_str());
      generator_.insert_or_assign(var, probe);
      std::function<void(const Expr &)> find = [&](const Expr &e) {
        if (e.kind == ExprKind::Subscript && e.operands.size() == 2 &&
            e.operands[0]->kind == ExprKind::Name && reads.count(e.operands[0]->name))
          if (auto t = terms_.integer(*e.operands[1])) {
            int64_t c = 0;
            if ((*t - probe).simplify().is_numeral_i64(c))
              shifts.emplace_back(e.operands[0]->name, ctx_.int_val(c));
          }
        for (const auto &op : e.operands)
          if (op)
            find(*op);
      };
      find(*a->operands[0]);
      for (const auto &[tensor, c] : shifts)
        for (const z3::expr &j : reads.at(tensor)) {
          const z3::expr i = j - c;
          generator_.insert_or_assign(var, i);
          if (auto body = terms_.boolean(*a->operands[0]))
            facts_.push_back(z3::implies(i >= *lo && i < *hi, *body));
        }
      generator_.erase(var);
    }
  }

  const sema::Symbol *symbol_of(const Expr &e) const {
    auto it = sema_.references.find(&e);
    return it == sema_.references.end() ? nullptr : it->second;
  }

  void count_target(const Expr &t, bool aug) {
    if (t.kind == ExprKind::Name) {
      if (const sema::Symbol *s = symbol_of(t)) {
        ++assignments_[s];
        if (aug)
          ++assignments_[s];
      }
    } else if (t.kind == ExprKind::Tuple) {
      for (const auto &x : t.operands)
        if (x->kind == ExprKind::Name)
          if (const sema::Symbol *s = symbol_of(*x))
            assignments_[s] += 2; // unpacking: not a closed form here
    }
  }

  void collect_definitions(const std::vector<ast::StmtPtr> &body) {
    for (const auto &sp : body) {
      const Stmt &s = *sp;
      if (s.kind == StmtKind::Assign)
        for (const auto &t : s.targets) {
          count_target(*t, false);
          if (t->kind == ExprKind::Name && s.value)
            if (const sema::Symbol *sym = symbol_of(*t))
              definitions_[sym] = s.value.get();
        }
      if (s.kind == StmtKind::AnnAssign && s.target) {
        count_target(*s.target, false);
        if (s.target->kind == ExprKind::Name && s.value)
          if (const sema::Symbol *sym = symbol_of(*s.target))
            definitions_[sym] = s.value.get();
      }
      if (s.kind == StmtKind::AugAssign && s.target)
        count_target(*s.target, true);
      if (s.kind == StmtKind::For && s.target)
        count_target(*s.target, true);
      collect_definitions(s.body);
      collect_definitions(s.orelse);
    }
  }

  std::optional<z3::expr> name(const Expr &n) {
    if (auto it = generator_.find(n.name); it != generator_.end())
      return it->second;
    const sema::Symbol *s = symbol_of(n);
    if (!s)
      return std::nullopt;
    if (auto it = bound_.find(s); it != bound_.end())
      return it->second;
    if (auto it = sizes_.find(s); it != sizes_.end())
      return it->second;
    if (auto it = loops_.find(s); it != loops_.end())
      return it->second;
    if (s->value)
      return ctx_.int_val(static_cast<int64_t>(*s->value));
    if (assignments_[s] > 1) {
      // Assigned more than once: the assignment that reaches this point.
      auto it = flow_.find(s);
      if (it == flow_.end())
        return std::nullopt;
      return it->second;
    }
    auto def = definitions_.find(s);
    if (def == definitions_.end() || assignments_[s] != 1 || in_progress_.count(s))
      return std::nullopt;
    in_progress_.insert(s);
    auto t = terms_.integer(*def->second);
    in_progress_.erase(s);
    return t;
  }

  std::optional<z3::expr> call(const Expr &c) {
    const BuiltinId n = sema_.builtin_of(c);
    auto dim = [&]() -> size_t {
      if (c.arg_count() >= 1)
        if (auto v = sema_.constant_of(c.arg(0)))
          return static_cast<size_t>(std::clamp<int64_t>(*v, 0, 2));
      return 0;
    };
    const z3::expr linear =
        tid_[0] + ctx_.int_val(static_cast<int64_t>(block_dim_[0])) *
                      (tid_[1] + ctx_.int_val(static_cast<int64_t>(block_dim_[1])) * tid_[2]);
    if (n == BuiltinId::ThreadId)
      return tid_[dim()];
    if (n == BuiltinId::BlockId)
      return bid_[dim()];
    if (n == BuiltinId::BlockDim)
      return ctx_.int_val(static_cast<int64_t>(block_dim_[dim()]));
    if (n == BuiltinId::GridDim)
      return grid_[dim()];
    if (n == BuiltinId::LaneId)
      return floor_mod(linear, ctx_.int_val(warp_));
    if (n == BuiltinId::WarpId)
      return floor_div(linear, ctx_.int_val(warp_));
    if (n == BuiltinId::WarpgroupId)
      return floor_div(linear, ctx_.int_val(128));
    // A cluster is a box of blocks from a multiple of its extents (x fastest).
    const auto extent = [&](size_t d) { return ctx_.int_val(kernel_.cluster[d]); };
    if (n == BuiltinId::ClusterId)
      return floor_div(bid_[dim()], extent(dim()));
    if (n == BuiltinId::ClusterRank)
      return floor_mod(bid_[0], extent(0)) +
             extent(0) *
                 (floor_mod(bid_[1], extent(1)) + extent(1) * floor_mod(bid_[2], extent(2)));
    const sema::CallTarget target = sema_.call_of(c);
    const sema::FunctionInfo *fn =
        target.kind == sema::CallKind::Device ? sema_.function_info(target.device->name) : nullptr;
    if (!fn || fn->role != sema::FunctionRole::Device || !fn->function)
      return std::nullopt;
    // A @device function whose body is one `return expr` (after a docstring).
    const Expr *ret = nullptr;
    for (const auto &s : fn->function->body) {
      if (s->kind == StmtKind::Expr && s->value && s->value->kind == ExprKind::String)
        continue;
      if (s->kind == StmtKind::Return && s->value && !ret) {
        ret = s->value.get();
        continue;
      }
      return std::nullopt;
    }
    if (!ret)
      return std::nullopt;
    std::vector<std::pair<const sema::Symbol *, z3::expr>> args;
    for (size_t i = 0; i < fn->params.size(); ++i) {
      if (i >= c.arg_count() || !fn->params[i])
        return std::nullopt;
      auto a = terms_.integer(c.arg(i));
      if (!a)
        return std::nullopt;
      args.emplace_back(fn->params[i], *a);
    }
    for (auto &[s, a] : args)
      bound_.insert_or_assign(s, a);
    auto t = terms_.integer(*ret);
    for (auto &[s, a] : args)
      bound_.erase(s);
    return t;
  }

  // Extents of a global tensor named by `base`: its parameter's shape, or
  // the shape of a view(param, Tensor(shape, dtype)) assigned once.
  std::optional<std::vector<const Expr *>> extents(const Expr &base) {
    if (base.kind != ExprKind::Name)
      return std::nullopt;
    const sema::Symbol *s = symbol_of(base);
    if (!s || !s->type.is_tensor() || s->type.tensor->space != sema::MemorySpace::Global)
      return std::nullopt;
    auto shape_of = [](const Expr &tuple) {
      std::vector<const Expr *> out;
      if (tuple.kind == ExprKind::Tuple)
        for (const auto &d : tuple.operands)
          out.push_back(d.get());
      else
        out.push_back(&tuple);
      return out;
    };
    if (s->kind == sema::SymbolKind::Parameter) {
      const ast::Function &fn = *kernel_.function;
      for (size_t i = 0; i < fn.params.size() && i < kernel_.params.size(); ++i)
        if (kernel_.params[i] == s && fn.params[i].annotation &&
            fn.params[i].annotation->kind == ExprKind::Call &&
            fn.params[i].annotation->arg_count() >= 2)
          return shape_of(fn.params[i].annotation->arg(0));
      return std::nullopt;
    }
    auto def = definitions_.find(s);
    if (def == definitions_.end() || assignments_[s] != 1)
      return std::nullopt;
    const Expr &v = *def->second;
    if (v.kind == ExprKind::Call && sema_.builtin_of(v) == BuiltinId::View && v.arg_count() >= 2 &&
        v.arg(1).kind == ExprKind::Call && v.arg(1).arg_count() >= 2 &&
        v.arg(0).kind == ExprKind::Name) {
      const sema::Symbol *src = symbol_of(v.arg(0));
      if (src && src->kind == sema::SymbolKind::Parameter)
        return shape_of(v.arg(1).arg(0));
    }
    return std::nullopt;
  }

  // The parameter whose memory a global tensor name is: itself, or the
  // parameter of a view(param, Tensor(...)) assigned once; null when not global.
  const sema::Symbol *root_of(const sema::Symbol *s, bool &known) {
    known = true;
    if (s && s->type.is_tensor() && s->type.tensor->space == sema::MemorySpace::Shared)
      return shared_root_of(s, known);
    if (!s || !s->type.is_tensor() || s->type.tensor->space != sema::MemorySpace::Global)
      return nullptr;
    if (s->kind == sema::SymbolKind::Parameter)
      return s;
    auto def = definitions_.find(s);
    if (def != definitions_.end() && assignments_[s] == 1) {
      const Expr &v = *def->second;
      if (v.kind == ExprKind::Call && sema_.builtin_of(v) == BuiltinId::View &&
          v.arg_count() >= 1 && v.arg(0).kind == ExprKind::Name) {
        const sema::Symbol *src = symbol_of(v.arg(0));
        if (src && src->kind == sema::SymbolKind::Parameter)
          return src;
      }
    }
    known = false;
    return nullptr;
  }

  // The make_shared local whose memory a shared tensor name is (itself when
  // it is assigned once from make_shared); `known` false for any other name.
  const sema::Symbol *shared_root_of(const sema::Symbol *s, bool &known) {
    auto def = definitions_.find(s);
    if (s->kind == sema::SymbolKind::Local && def != definitions_.end() && assignments_[s] == 1 &&
        def->second->kind == ExprKind::Call &&
        sema_.builtin_of(*def->second) == BuiltinId::MakeShared && def->second->arg_count() >= 1) {
      shared_roots_.insert(s);
      return s;
    }
    // `v = view(buffer, Tensor(shape, dtype))` of a row-major buffer, itself
    // row-major of constant shape: its accesses are byte ranges of the buffer.
    if (s->kind == sema::SymbolKind::Local && def != definitions_.end() && assignments_[s] == 1 &&
        def->second->kind == ExprKind::Call && sema_.builtin_of(*def->second) == BuiltinId::View &&
        def->second->arg_count() >= 2 && def->second->arg(0).kind == ExprKind::Name &&
        byte_layout(s)) {
      const sema::Symbol *parent = symbol_of(def->second->arg(0));
      if (parent && parent != s && parent->type.is_tensor() &&
          parent->type.tensor->space == sema::MemorySpace::Shared && byte_layout(parent))
        if (const sema::Symbol *root = shared_root_of(parent, known); root && known)
          return root;
    }
    known = false;
    return nullptr;
  }

  // A tensor whose elements the proof can place as bytes: row-major (no
  // explicit strides, no swizzle) of a constant shape.
  static std::optional<std::vector<int64_t>> byte_layout(const sema::Symbol *s) {
    if (!s || !s->type.is_tensor() || !s->type.tensor->strides.empty() || s->type.tensor->swizzled)
      return std::nullopt;
    std::vector<int64_t> shape;
    for (const sema::Dim &d : s->type.tensor->shape) {
      if (!d.value)
        return std::nullopt;
      shape.push_back(*d.value);
    }
    return shape;
  }

  // The bytes of the buffer a subscript with `given` leading indices touches.
  void place_bytes(Access &acc, const std::vector<int64_t> &shape, size_t given) {
    // The bytes one step of the last given index spans: the trailing
    // dimensions the subscript leaves whole, of this dtype.
    int64_t width = dtype_bytes(acc.tensor->type.tensor->dtype);
    for (size_t d = shape.size(); d-- > given;)
      width *= shape[d];
    z3::expr lo = ctx_.int_val(0);
    int64_t stride = width;
    for (size_t d = given; d-- > 0;) {
      lo = lo + acc.index[d] * ctx_.int_val(stride);
      stride *= shape[d];
    }
    acc.byte_lo = lo;
    acc.byte_hi = lo + ctx_.int_val(width);
  }

  // The shape a make_shared root was allocated with.
  std::vector<const Expr *> shared_extents(const sema::Symbol *root) {
    const Expr &shape = definitions_.at(root)->arg(0);
    std::vector<const Expr *> out;
    if (shape.kind == ExprKind::Tuple)
      for (const auto &d : shape.operands)
        out.push_back(d.get());
    else
      out.push_back(&shape);
    return out;
  }

  void note_unknown_alias(const sema::Symbol *tensor, const Expr &e) {
    const bool shared = tensor && tensor->type.is_tensor() &&
                        tensor->type.tensor->space == sema::MemorySpace::Shared;
    const Expr *&first = shared ? unknown_shared_alias_ : unknown_alias_;
    if (!first)
      first = &e;
  }

  // A subscript of a global or shared tensor, for the race proofs: the
  // element (per dimension; dimensions not indexed are free) on its path.
  void record_access(const Expr &e, const std::vector<z3::expr> &path, bool write) {
    const Expr &base = *e.operands[0];
    const sema::Symbol *tensor = base.kind == ExprKind::Name ? symbol_of(base) : nullptr;
    bool known = true;
    const sema::Symbol *root = tensor ? root_of(tensor, known) : nullptr;
    if (!known)
      note_unknown_alias(tensor, e);
    if (!root)
      return;
    Access acc{&e,     tensor, root, write, blocked_ == 0, is_shared(root), {}, ctx_.bool_val(true),
               epoch_, {},     {}};
    // Shared memory through a view: the view's own (constant) shape.
    const auto view_shape = acc.shared && tensor != root ? byte_layout(tensor) : std::nullopt;
    auto ext = acc.shared ? std::optional(shared_extents(root)) : extents(base);
    const size_t rank = view_shape ? view_shape->size() : ext ? ext->size() : 0;
    if ((!ext && !view_shape) || e.operands.size() - 1 > rank)
      acc.exact = false;
    z3::expr inside = ctx_.bool_val(true);
    for (size_t d = 0; acc.exact && d < rank; ++d) {
      auto extent =
          view_shape ? std::optional(ctx_.int_val((*view_shape)[d])) : terms_.integer(*(*ext)[d]);
      std::optional<z3::expr> idx;
      if (d + 1 < e.operands.size())
        idx = terms_.integer(*e.operands[d + 1]);
      else
        idx = ctx_.int_const(
            ("element." + std::to_string(accesses_.size()) + "." + std::to_string(d) + suffix_)
                .c_str());
      if (!idx || !extent) {
        acc.exact = false;
        break;
      }
      acc.index.push_back(*idx);
      inside = inside && *idx >= 0 && *idx < *extent;
    }
    for (const auto &p : path)
      inside = inside && p;
    acc.on_path = inside;
    if (acc.shared && acc.exact && byte_layout(root))
      if (const auto shape = byte_layout(tensor))
        place_bytes(acc, *shape, e.operands.size() - 1);
    accesses_.push_back(std::move(acc));
  }

  // `src` of a tma_load when it is T.tile((R, C))[i, j] with T a global
  // tensor of rank 2 and R, C constants: recorded as an access at the box's
  // first element, named by the call (where the interpreter reports on it).
  bool tma_box(const Expr &call, const Expr &src, const std::vector<z3::expr> &path) {
    if (src.kind != ExprKind::Subscript || src.operands.size() != 3 || !src.operands[0] ||
        src.operands[0]->kind != ExprKind::Call)
      return false;
    const Expr &tile = *src.operands[0];
    if (sema_.call_of(tile).kind != sema::CallKind::Tile || tile.arg_count() != 1 ||
        tile.callee().operands.empty() || tile.callee().operands[0]->kind != ExprKind::Name)
      return false;
    const Expr &base = *tile.callee().operands[0];
    const Expr &shape = tile.arg(0);
    const sema::Symbol *tensor = symbol_of(base);
    bool known = true;
    const sema::Symbol *root = tensor ? root_of(tensor, known) : nullptr;
    auto ext = extents(base);
    if (!known || !root || root != tensor || is_shared(root) || !ext || ext->size() != 2 ||
        shape.kind != ExprKind::Tuple || shape.operands.size() != 2)
      return false;
    Access acc{&call,  tensor, root, false, blocked_ == 0, false, {}, ctx_.bool_val(true),
               epoch_, {},     {}};
    z3::expr inside = ctx_.bool_val(true);
    for (size_t d = 0; d < 2; ++d) {
      const auto box = sema_.constant_of(*shape.operands[d]);
      const auto idx = terms_.integer(*src.operands[d + 1]);
      const auto extent = terms_.integer(*(*ext)[d]);
      if (!box || *box < 1 || !idx || !extent) {
        acc.exact = false;
        continue;
      }
      const z3::expr first = *idx * ctx_.int_val(*box);
      acc.index.push_back(first);
      inside = inside && first >= 0 && first < *extent;
    }
    for (const auto &p : path)
      inside = inside && p;
    acc.on_path = inside;
    accesses_.push_back(std::move(acc));
    for (size_t i = 1; i < src.operands.size(); ++i)
      scan(*src.operands[i], path);
    return true;
  }

  void opaque_use(const Expr &name) {
    const sema::Symbol *s = symbol_of(name);
    bool known = true;
    const sema::Symbol *root = root_of(s, known);
    if (!known)
      note_unknown_alias(s, name);
    if (root)
      opaque_.emplace(root, &name);
  }

  // `write`: e is (part of) an assignment's target.
  void scan(const Expr &e, const std::vector<z3::expr> &path, bool write = false) {
    if (e.kind == ExprKind::Subscript) {
      if (e.operands[0]->kind == ExprKind::Name) {
        record_access(e, path, write);
        if (blocked_ == 0)
          if (auto ext = extents(*e.operands[0]))
            for (size_t d = 0; d + 1 < e.operands.size() && d < ext->size(); ++d) {
              const int64_t reads_before = content_reads_;
              auto idx = terms_.integer(*e.operands[d + 1]);
              auto extent = terms_.integer(*(*ext)[d]);
              if (!idx || !extent)
                continue;
              z3::expr bad = *idx < 0 || *idx >= *extent;
              for (const auto &p : path)
                bad = bad && p;
              queries_.push_back(
                  Query{&e, d, bad, {}, content_reads_ != reads_before || !path_reads_.empty()});
            }
        for (size_t i = 1; i < e.operands.size(); ++i)
          if (e.operands[i])
            scan(*e.operands[i], path);
        return;
      }
      // A[i][j]: the inner subscript is not an element the proof models.
      if (e.operands[0]->kind == ExprKind::Subscript && write)
        for (const Expr *inner = e.operands[0].get(); inner;) {
          if (inner->kind == ExprKind::Name) {
            opaque_use(*inner);
            break;
          }
          inner = inner->kind == ExprKind::Subscript || inner->kind == ExprKind::Attribute
                      ? inner->operands[0].get()
                      : nullptr;
        }
    }
    if (e.kind == ExprKind::Name) {
      if (!write) // an assigned name is a definition, not a use
        opaque_use(e);
      return;
    }
    if (e.kind == ExprKind::Call) {
      // Tags and coverage are about no memory access; view() makes an alias
      // whose own subscripts are recorded.
      const BuiltinId callee = sema_.builtin_of(e);
      if (callee == BuiltinId::Syncthreads) {
        epoch_ = epoch_ + 1;
        ++barriers_;
      }
      // A buffer load's source has no bounds to prove: the hardware checks
      // its words against the tensor's size (Machine::buffer_load). Only the
      // subscripts inside its indices are accesses.
      if (is_register_load(callee) && callee != BuiltinId::AmdDsReadB128 && e.arg_count() >= 1 &&
          e.arg(0).kind == ExprKind::Subscript && e.arg(0).operands[0] &&
          e.arg(0).operands[0]->kind == ExprKind::Name) {
        const Expr &src = e.arg(0);
        for (size_t i = 1; i < src.operands.size(); ++i)
          if (src.operands[i])
            scan(*src.operands[i], path);
        return;
      }
      // A TMA box, T.tile((R, C))[i, j] of a global tensor T: one access at
      // its first element and no bound to prove (the hardware clips the box:
      // elements past T's extents are not read and land as zeros, which the
      // interpreter models, Machine::cp_async_bulk).
      if (callee == BuiltinId::NvvmTmaLoad && e.arg_count() >= 2 && tma_box(e, e.arg(1), path)) {
        for (size_t i = 0; i < e.arg_count(); ++i)
          if (i != 1)
            scan(e.arg(i), path);
        return;
      }
      // A TMA store's box likewise: elements past T's extents are not written.
      if (callee == BuiltinId::NvvmTmaStore && e.arg_count() >= 2 && tma_box(e, e.arg(0), path)) {
        scan(e.arg(1), path);
        return;
      }
      // A predicated copy reads its source only where `valid` holds.
      const Expr *valid = arg_of(e, 2, "valid");
      if (is_cp_async(callee) && valid) {
        scan(*valid, path);
        std::vector<z3::expr> guarded = path;
        const auto c = terms_.boolean(*valid);
        if (!c)
          ++blocked_;
        else
          guarded.push_back(*c);
        for (size_t i = 0; i < 2 && i < e.arg_count(); ++i)
          scan(e.arg(i), guarded);
        if (!c)
          --blocked_;
        return;
      }
      const bool annotation = callee == BuiltinId::Tag || callee == BuiltinId::AssertCovered ||
                              callee == BuiltinId::ResetTags || callee == BuiltinId::View;
      for (const auto &op : e.operands)
        if (op && !(annotation && op->kind == ExprKind::Name))
          scan(*op, path);
      for (const auto &k : e.keywords)
        if (k.value)
          scan(*k.value, path);
      return;
    }
    // `a if c else b` evaluates a only where c holds and b only where it does
    // not; `c and d` evaluates d only where c holds (`or`: where it does not),
    // as the interpreter and the generated code do: their subscripts are
    // accesses under those conditions (`X[i] if i < N else 0.0`).
    if ((e.kind == ExprKind::Conditional && e.operands.size() == 3) ||
        (e.kind == ExprKind::BoolOp && e.operands.size() == 2)) {
      const Expr &cond = *e.operands[0];
      scan(cond, path);
      // A condition with no closed form guards nothing here: the branches'
      // indices are then proved without it (a stronger claim).
      const auto c = terms_.boolean(cond);
      const bool take_true = e.kind == ExprKind::Conditional || e.bool_op == ast::BoolOpKind::And;
      std::vector<z3::expr> first = path, second = path;
      if (c) {
        first.push_back(take_true ? *c : !*c);
        second.push_back(!*c);
      }
      scan(*e.operands[1], first);
      if (e.kind == ExprKind::Conditional)
        scan(*e.operands[2], second);
      return;
    }
    for (const auto &op : e.operands)
      if (op)
        scan(*op, path, write && e.kind == ExprKind::Tuple);
  }

  // The names an assignment target binds (a name, or the names of a tuple).
  void target_names(const Expr &t, std::vector<const sema::Symbol *> &out) {
    if (t.kind == ExprKind::Name) {
      if (const sema::Symbol *sym = symbol_of(t))
        out.push_back(sym);
    } else if (t.kind == ExprKind::Tuple) {
      for (const auto &x : t.operands)
        if (x)
          target_names(*x, out);
    }
  }

  // An assignment in program order: a local assigned more than once takes
  // the value's term here (flow_); a tuple, an augmented assignment or a
  // value that is not an integer closed form leaves it unknown.
  void flow_assign(const Stmt &s) {
    std::vector<const sema::Symbol *> names;
    for (const auto &t : s.targets)
      target_names(*t, names);
    if (s.target)
      target_names(*s.target, names);
    const bool single = names.size() == 1 && s.kind != StmtKind::AugAssign &&
                        (s.target ? s.target->kind : s.targets[0]->kind) == ExprKind::Name;
    std::optional<z3::expr> value;
    if (single && s.value)
      value = terms_.integer(*s.value);
    for (const sema::Symbol *sym : names) {
      if (value)
        flow_.insert_or_assign(sym, *value);
      else
        flow_.erase(sym);
    }
  }

  // Forgets the locals a loop body assigns: at the top of an iteration they
  // hold the previous iteration's value, after the loop any iteration's.
  void forget_assigned(const std::vector<ast::StmtPtr> &body) {
    for (const auto &sp : body) {
      std::vector<const sema::Symbol *> names;
      for (const auto &t : sp->targets)
        target_names(*t, names);
      if (sp->target)
        target_names(*sp->target, names);
      for (const sema::Symbol *sym : names)
        flow_.erase(sym);
      forget_assigned(sp->body);
      forget_assigned(sp->orelse);
    }
  }

  // After an if: a local both branches leave with one term keeps it, with
  // two terms becomes ite(condition, then, else) (or unknown without a
  // translated condition); one only a branch knows is unknown.
  void merge_flow(const std::map<const sema::Symbol *, z3::expr> &then,
                  const std::optional<z3::expr> &condition) {
    std::map<const sema::Symbol *, z3::expr> merged;
    for (const auto &[sym, otherwise] : flow_) {
      auto it = then.find(sym);
      if (it == then.end())
        continue;
      if (z3::eq(it->second, otherwise))
        merged.insert_or_assign(sym, otherwise);
      else if (condition)
        merged.insert_or_assign(sym, z3::ite(*condition, it->second, otherwise));
    }
    flow_ = std::move(merged);
  }

  void barrier_unmodeled(const Stmt &s, const std::string &why) {
    if (barriers_unmodeled_.empty())
      barriers_unmodeled_ = why + " (line " + std::to_string(s.range.begin.line + 1) + ")";
  }

  // After an if: the barriers the branches passed. A branch with a barrier
  // needs a condition every thread of a block agrees on (no thread id in it,
  // and one the prover translates): threads on different branches would wait
  // at different barriers, and the epochs would say nothing, even when both
  // branches pass the same number. Then equal counts keep the epoch and
  // different ones give ite(condition, then, else).
  void merge_epochs(const Stmt &s, const z3::expr &before, const z3::expr &then,
                    const std::optional<z3::expr> &c) {
    if (z3::eq(then, before) && z3::eq(epoch_, before))
      return; // no barrier in either branch
    if (!c) {
      barrier_unmodeled(s, "a barrier under a condition the prover does not translate");
      return;
    }
    if (mentions(*c, tid_)) {
      barrier_unmodeled(s, "a barrier under a condition that depends on the thread");
      return;
    }
    if (!z3::eq(then, epoch_))
      epoch_ = z3::ite(*c, then, epoch_);
  }

  // A loop body's epochs are first counted from a fresh constant `base`
  // (one iteration adds the same count to it: per_iteration), then rewritten
  // to the epoch at the loop's entry plus the iterations before.
  struct LoopEpochs {
    z3::expr before;
    z3::expr base;
    size_t first_access;
  };
  LoopEpochs enter_loop() {
    LoopEpochs e{epoch_,
                 ctx_.int_const(("epoch@" + std::to_string(epochs_named_++) + suffix_).c_str()),
                 accesses_.size()};
    epoch_ = e.base;
    return e;
  }
  void leave_loop(const Stmt &s, const LoopEpochs &e, const std::optional<z3::expr> &iteration,
                  const std::optional<z3::expr> &trips, const std::vector<z3::expr> &bounds,
                  const std::optional<z3::expr> &var) {
    z3::expr_vector from(ctx_), zero(ctx_);
    from.push_back(e.base);
    zero.push_back(ctx_.int_val(0));
    const z3::expr per_iteration = epoch_.substitute(from, zero).simplify();
    int64_t count = -1;
    const bool none = per_iteration.is_numeral_i64(count) && count == 0;
    z3::expr_vector to(ctx_);
    if (none) {
      to.push_back(e.before);
      epoch_ = e.before;
    } else if (!iteration || !trips) {
      barrier_unmodeled(s, "a barrier in a loop the prover does not follow");
      to.push_back(e.before);
      epoch_ = e.before;
    } else {
      for (const z3::expr &b : bounds)
        if (mentions(b, tid_))
          barrier_unmodeled(s, "a barrier in a loop whose bounds depend on the thread");
      if (mentions(per_iteration, tid_))
        barrier_unmodeled(s, "a loop whose threads pass different numbers of barriers");
      if (var && mentions(per_iteration, {*var}))
        barrier_unmodeled(s, "a loop whose iterations pass different numbers of barriers");
      to.push_back(e.before + *iteration * per_iteration);
      epoch_ = e.before + *trips * per_iteration;
    }
    for (size_t i = e.first_access; i < accesses_.size(); ++i)
      accesses_[i].epoch = accesses_[i].epoch.substitute(from, to);
  }

  // Whether every path through `body` leaves it by return, break or continue.
  static bool always_exits(const std::vector<ast::StmtPtr> &body) {
    if (body.empty())
      return false;
    const Stmt &last = *body.back();
    if (last.kind == StmtKind::Return || last.kind == StmtKind::Break ||
        last.kind == StmtKind::Continue)
      return true;
    return last.kind == StmtKind::If && always_exits(last.body) && always_exits(last.orelse);
  }

  void walk(const std::vector<ast::StmtPtr> &body, std::vector<z3::expr> &path) {
    // Conditions of the branches that left the block (`if i >= N: return`):
    // the statements after them run only where they did not hold.
    size_t guards = 0;
    for (const auto &sp : body) {
      const Stmt &s = *sp;
      if (hook_)
        hook_(s, path);
      if (s.value && s.kind != StmtKind::For && s.kind != StmtKind::If && s.kind != StmtKind::While)
        scan(*s.value, path);
      for (const auto &t : s.targets)
        scan(*t, path, true);
      if (s.target && s.kind != StmtKind::For)
        scan(*s.target, path, true);
      if (s.kind == StmtKind::Assign || s.kind == StmtKind::AnnAssign ||
          s.kind == StmtKind::AugAssign)
        flow_assign(s);
      switch (s.kind) {
      case StmtKind::If: {
        const int64_t reads_before = content_reads_;
        auto c = terms_.boolean(*s.value);
        const bool reads = c && content_reads_ != reads_before;
        if (reads)
          path_reads_.push_back(&s);
        scan(*s.value, path);
        if (!c)
          ++blocked_;
        if (c)
          path.push_back(*c);
        const auto before = flow_;
        const z3::expr epoch_before = epoch_;
        scopes_.push_back(Scope{&s, 0, std::nullopt, std::nullopt});
        walk(s.body, path);
        const auto then = std::move(flow_);
        const z3::expr epoch_then = epoch_;
        flow_ = before;
        epoch_ = epoch_before;
        if (c) {
          path.back() = !*c;
        }
        scopes_.back().branch = 1;
        walk(s.orelse, path);
        scopes_.pop_back();
        merge_flow(then, c);
        merge_epochs(s, epoch_before, epoch_then, c);
        if (c)
          path.pop_back();
        else
          --blocked_;
        if (reads)
          path_reads_.pop_back();
        if (c && always_exits(s.body) != always_exits(s.orelse)) {
          path.push_back(always_exits(s.body) ? !*c : *c);
          ++guards;
        }
        break;
      }
      case StmtKind::For: {
        const Expr &r = *s.value;
        const sema::Symbol *var = s.target ? symbol_of(*s.target) : nullptr;
        std::optional<z3::expr> start, stop, step;
        const int64_t reads_before = content_reads_;
        if (r.kind == ExprKind::Call && r.arg_count() >= 1) {
          const size_t n = r.arg_count();
          start = n >= 2 ? terms_.integer(r.arg(0)) : std::optional<z3::expr>(ctx_.int_val(0));
          stop = terms_.integer(r.arg(n >= 2 ? 1 : 0));
          step = n >= 3 ? terms_.integer(r.arg(2)) : std::optional<z3::expr>(ctx_.int_val(1));
          for (size_t i = 0; i < n; ++i)
            scan(r.arg(i), path);
        }
        std::optional<int64_t> step_value = r.kind == ExprKind::Call && r.arg_count() >= 3
                                                ? sema_.constant_of(r.arg(2))
                                                : std::optional<int64_t>(1);
        const bool ok = var && start && stop && step && step_value && *step_value > 0;
        const bool reads = ok && content_reads_ != reads_before;
        if (reads)
          path_reads_.push_back(&s);
        std::optional<z3::expr> iteration; // 0, 1, ... for the barrier epochs
        if (ok) {
          // Named by walk order, not by line: a kernel that moved must give Z3
          // the same names (they can steer its search) for the cache to be exact.
          z3::expr v = ctx_.int_const(
              (s.target->name + "@" + std::to_string(loops_named_++) + suffix_).c_str());
          loops_.insert_or_assign(var, v);
          loop_names_.insert_or_assign(var, s.target->name);
          path.push_back(v >= *start && v < *stop &&
                         floor_mod(v - *start, ctx_.int_val(static_cast<int64_t>(*step_value))) ==
                             0);
          iteration = floor_div(v - *start, ctx_.int_val(*step_value));
        } else {
          ++blocked_;
        }
        forget_assigned(s.body);
        const LoopEpochs epochs = enter_loop();
        scopes_.push_back(Scope{&s, 0, ok ? std::optional(loops_.at(var)) : std::nullopt,
                                ok ? start : std::nullopt});
        walk(s.body, path);
        scopes_.pop_back();
        std::optional<z3::expr> trips;
        if (ok)
          trips = z3::ite(
              *stop > *start,
              floor_div(*stop - *start + ctx_.int_val(*step_value - 1), ctx_.int_val(*step_value)),
              ctx_.int_val(0));
        std::vector<z3::expr> uniform_bounds;
        if (ok)
          uniform_bounds = {*start, *stop};
        leave_loop(s, epochs, iteration, trips, uniform_bounds,
                   ok ? loops_.at(var) : std::optional<z3::expr>());
        forget_assigned(s.body);
        if (ok)
          path.pop_back();
        else
          --blocked_;
        if (reads)
          path_reads_.pop_back();
        break;
      }
      case StmtKind::While: {
        ++blocked_;
        forget_assigned(s.body);
        const LoopEpochs epochs = enter_loop();
        if (s.value)
          scan(*s.value, path);
        scopes_.push_back(Scope{&s, 0, std::nullopt, std::nullopt});
        walk(s.body, path);
        scopes_.pop_back();
        leave_loop(s, epochs, std::nullopt, std::nullopt, {}, std::nullopt);
        forget_assigned(s.body);
        --blocked_;
        break;
      }
      case StmtKind::Return:
        // Threads that leave early do not reach the barriers after it.
        if (!path.empty() || blocked_ > 0)
          conditional_return_ = &s;
        break;
      case StmtKind::Break:
      case StmtKind::Continue:
        // The accesses after it are over-approximated (as if every thread
        // ran them), but barrier epochs would not be: threads that leave a
        // loop early pass fewer barriers.
        loop_exit_ = &s;
        break;
      default:
        break;
      }
    }
    for (; guards > 0; --guards)
      path.pop_back(); // z3::expr has no default constructor: no resize
  }

  const sema::SemaResult &sema_;
  const sema::FunctionInfo &kernel_;
  z3::context &ctx_;
  std::string suffix_;
  Z3Terms terms_;
  z3::expr_vector facts_;
  int64_t block_dim_[3] = {1, 1, 1};
  int warp_ = 32;
  std::vector<z3::expr> tid_, bid_, grid_;
  std::map<const sema::Symbol *, z3::expr> sizes_, loops_, bound_;
  std::set<const sema::Symbol *> free_; // integer parameters that are not sizes
  std::set<std::string> stated_;        // tensors whose contents assume states
  std::map<std::string, z3::func_decl> contents_;
  std::map<std::string, std::vector<z3::expr>> reads_; // rank-1 read indices per tensor
  std::map<std::string, z3::expr> generator_;          // a fact's variable while translating
  int64_t content_reads_ = 0;
  std::vector<const Stmt *> path_reads_; // enclosing ifs and loops that read contents
  std::map<const sema::Symbol *, std::string> loop_names_;
  std::map<const sema::Symbol *, const Expr *> definitions_;
  std::map<const sema::Symbol *, int> assignments_;
  // Locals assigned more than once: the term of the assignment that reaches
  // the walk's point (flow_assign, merge_flow, forget_assigned).
  std::map<const sema::Symbol *, z3::expr> flow_;
  std::set<const sema::Symbol *> in_progress_;
  std::vector<Query> queries_;
  std::vector<Access> accesses_;
  std::map<const sema::Symbol *, const Expr *> opaque_;
  const Expr *unknown_alias_ = nullptr;
  const Expr *unknown_shared_alias_ = nullptr;
  std::set<const sema::Symbol *> shared_roots_;
  // Barriers passed so far on the walk's path, as a term of the loop
  // variables and sizes (see Access::epoch).
  z3::expr epoch_;
  int64_t barriers_ = 0;
  int epochs_named_ = 0;
  const Stmt *conditional_return_ = nullptr;
  const Stmt *loop_exit_ = nullptr; // a break or continue
  std::string barriers_unmodeled_;
  int blocked_ = 0;
  int loops_named_ = 0;
  StatementHook hook_;
  std::vector<Scope> scopes_;
};

} // namespace argus::check::detail
