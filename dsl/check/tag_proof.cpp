// Tags and the store contract for all sizes (issue 11, item 5).
//
// The interpreter follows every tag through every copy, but only at the size
// instances. This proof covers every size, block, thread and iteration the
// assume facts allow, for kernels whose data moves only through subscripts
// (no intrinsics, async copies, views, shuffles or @device calls).
//
// A value's tag is a tree: literals, sizes and launch coordinates carry no
// field; arithmetic joins its operands field by field (absent is the
// identity, different values give ⊤); a conditional is one of its branches;
// an element read is one of the writes its cell had. "The write that reached
// the cell" is over-approximated by "every write that can reach that cell",
// each a fresh copy of its writer's threads and iterations, which keeps the
// proof sound: a field proved for every such write holds for the one that
// reached it. Two questions per field f and expected value E:
//   same(v):  f of v is absent or E            (the store contract)
//   holds(v): f of v is present and E          (assert_tag)
// A join holds when every operand is `same` and one `holds`. An accumulator
// that starts untagged (`acc = full(...)`, `acc: f32 = 0.0`) holds because
// one of its updates that holds is shown to run before the read, after the
// accumulator was made (a witness iteration: the first of every loop the
// read is not in, the index matched where it names a loop variable).
//
// Universal claims appear only positively in a goal, so the query for a
// counterexample is quantifier-free: each fresh copy is a set of new
// constants. What is not modelled makes the obligation unknown, never true.
#include "machine.h"
#include "operand_map.h"
#include "prover.h"
#include "summary.h"
#include "symbolic.h"

#include <algorithm>
#include <optional>
#include <set>

namespace argus::check::detail {

namespace {

using Scope = BoundsProver::Scope;

// Where a statement is: its walk order, the scopes around it and its path.
struct Context {
  size_t order = 0;
  std::vector<Scope> scopes;
  z3::expr path;
};

bool is_prefix(const std::vector<Scope> &outer, const std::vector<Scope> &inner) {
  return outer.size() <= inner.size() && std::equal(outer.begin(), outer.end(), inner.begin());
}

enum class Space { Global, Shared, Local };

struct Node {
  enum class Kind { Absent, Join, Either, Read, Unknown } kind = Kind::Unknown;
  std::vector<int> children;
  const sema::Symbol *root = nullptr; // Read
  std::vector<z3::expr> index;        // Read: per dimension
  int context = -1;                   // Read: where the read happens
  std::string why;                    // Unknown
};

struct Root {
  Space space = Space::Global;
  size_t rank = 0;
  std::vector<int64_t> strides; // row-major, shared and local memory (constant extents)
  std::vector<int64_t> extents; // shared and local memory
  // Global, tagged: each declared field as a term of `coords`.
  std::vector<z3::expr> coords;
  std::map<std::string, z3::expr> declared;
  bool tagged = false;
  bool accessed = false;
  // Local: the statement that makes it (fresh each time it runs) and its fill.
  int def_context = -1;
  int fill = -1; // -1: no fill (make_local: unwritten cells are the initialization property's)
  std::vector<size_t> writes;
};

struct Write {
  const sema::Symbol *root = nullptr;
  int context = -1;
  std::vector<z3::expr> index;
  bool aug = false; // `x[i] += v`: the cell joins v (`value` is v)
  int value = -1;
};

using Subst = std::vector<std::pair<z3::expr, z3::expr>>;

// One field an assert_tag or a store into a tagged tensor promises, or (for
// `operands`) that the two operands of a matrix instruction agree on.
struct Obligation {
  bool store = false; // same(v) for a store, holds(v) for assert_tag
  int context = -1;
  int value = -1;
  std::string field;
  std::optional<z3::expr> expected;
  const Stmt *stmt = nullptr;
  // A matrix instruction: A's element `value` (read by the thread `a_lane`
  // substitutes) and B's element `value_b` (by `b_lane`'s) meet at one k;
  // `meet` states where (the two threads of one warp, their registers, the
  // layouts, both on the statement's path). Refuted by: some f of A is not
  // `expected` while B's f can be `expected` (a fresh constant).
  bool operands = false;
  int value_b = -1;
  Subst a_lane{}, b_lane{};
  std::optional<z3::expr> meet{};
};

class TagProof {
public:
  TagProof(const CheckedFile &file, const sema::FunctionInfo &kernel, const CheckerOptions &options)
      : file_(file), sema_(*file.sema), kernel_(kernel), options_(options),
        ctx_(thread_z3_context()), prover_(file, kernel, nullptr, ctx_) {
    count_assignments(kernel.function->body);
    prover_.on_statement(
        [this](const Stmt &s, const std::vector<z3::expr> &path) { statement(s, path); });
    prover_.collect();
  }

  // Proves every obligation; `tags_why` / `stores_why` / `operands_why` say
  // why not (empty: proved).
  // `matrix_calls`: the matrix instructions the kernel writes (calls_in).
  void run(bool global_bounds_proved, size_t matrix_calls, z3::solver &shared, KernelReport &report,
           std::string &tags_why, std::string &stores_why, std::string &operands_why) {
    const auto refuse_all = [&](const std::string &why) {
      tags_why = why;
      stores_why = why;
      operands_why = why;
    };
    if (!refused_.empty())
      return refuse_all(refused_);
    // Global cells are matched by their indices, and a read's tag is its
    // element's: both need the indices inside the tensor.
    if (!global_bounds_proved)
      return refuse_all("not every global index is proved in bounds (the proof names global "
                        "elements by their indices)");
    if (!tags_unmodeled_.empty())
      tags_why = tags_unmodeled_;
    if (!operands_unmodeled_.empty())
      operands_why = operands_unmodeled_;
    if (operands_why.empty() && operand_statements_ != matrix_calls)
      operands_why = "a matrix instruction the proof does not reach (inside an expression, or in "
                     "a statement it does not follow)";
    expand_operand_fields();
    const auto why_of = [&](const Obligation &o) -> std::string & {
      return o.operands ? operands_why : o.store ? stores_why : tags_why;
    };
    // The bounds proof's solver holds the same facts over the same names (the
    // same kernel walked in the same order); each query in a scope of its own.
    z3::solver &solver = shared;
    // Each obligation as a counterexample formula (its path and its goal
    // negated); those the proof cannot state say why.
    std::vector<std::pair<const Obligation *, z3::expr>> open;
    for (const Obligation &o : obligations_) {
      std::string &why = why_of(o);
      if (!why.empty() || reported_at(report, o))
        continue;
      std::string reason;
      if (auto cex = counterexample(o, reason))
        open.emplace_back(&o, *cex);
      else
        why = reason;
    }
    if (open.empty())
      return;
    std::vector<const Obligation *> proved;
    for (const auto &[o, cex] : open) {
      std::string &why = why_of(*o);
      if (!why.empty())
        continue;
      if (reported_at(report, *o))
        continue; // one error per statement (another field or register pair found it)
      if (std::any_of(proved.begin(), proved.end(),
                      [&, o = o](const Obligation *p) { return implies(*p, *o); })) {
        ++report.proofs;
        continue;
      }
      if (options_.cancelled() || options_.past_deadline()) {
        why = "the check ran past its time limit";
        continue;
      }
      bool unsat = false;
      why = prove(solver, *o, cex, report, unsat);
      if (unsat)
        proved.push_back(o); // not one that failed and was reported
    }
  }

  // A proved assert_tag of a read implies the store of that very read (same
  // cell, same path, same field and value): present and E is absent or E.
  bool implies(const Obligation &a, const Obligation &b) const {
    if (a.store || !b.store || a.operands || b.operands || a.field != b.field || !a.expected ||
        !b.expected || !z3::eq(*a.expected, *b.expected))
      return false;
    const Node &x = nodes_[static_cast<size_t>(a.value)], &y = nodes_[static_cast<size_t>(b.value)];
    if (x.kind != Node::Kind::Read || y.kind != Node::Kind::Read || x.root != y.root ||
        x.index.size() != y.index.size() ||
        !z3::eq(contexts_[static_cast<size_t>(a.context)].path,
                contexts_[static_cast<size_t>(b.context)].path))
      return false;
    for (size_t d = 0; d < x.index.size(); ++d)
      if (!z3::eq(x.index[d], y.index[d]))
        return false;
    return true;
  }

private:
  // ---------------------------------------------------------------- the walk

  void count_assignments(const std::vector<ast::StmtPtr> &body) {
    for (const auto &sp : body) {
      const Stmt &s = *sp;
      if (s.kind == StmtKind::Assign)
        for (const auto &t : s.targets)
          if (t->kind == ExprKind::Name)
            ++plain_[prover_.symbol(*t)];
      if (s.kind == StmtKind::AnnAssign && s.target && s.target->kind == ExprKind::Name)
        ++plain_[prover_.symbol(*s.target)];
      if (s.kind == StmtKind::AugAssign && s.target && s.target->kind == ExprKind::Name)
        ++aug_[prover_.symbol(*s.target)];
      count_assignments(s.body);
      count_assignments(s.orelse);
    }
  }

  void refuse(const std::string &why, const Stmt &s) {
    if (refused_.empty())
      refused_ = why + " (line " + std::to_string(s.range.begin.line + 1) + ")";
  }

  int context(const std::vector<z3::expr> &path) {
    z3::expr p = ctx_.bool_val(true);
    for (const z3::expr &x : path)
      p = p && x;
    contexts_.push_back(Context{order_, prover_.scopes(), p});
    return static_cast<int>(contexts_.size()) - 1;
  }

  void statement(const Stmt &s, const std::vector<z3::expr> &path) {
    ++order_;
    current_ = -1;
    current_path_ = &path;
    for (const Scope &scope : prover_.scopes())
      if (scope.var && noted_loops_.insert(scope.stmt).second)
        loop_vars_.push_back(*scope.var);
    if (s.kind == StmtKind::For && s.target && s.target->kind == ExprKind::Name)
      loop_symbols_.insert(prover_.symbol(*s.target));
    if (const Expr *mma = matrix_instruction(s))
      return matrix_instruction_statement(s, *mma);
    check_uses(s);
    switch (s.kind) {
    case StmtKind::Expr:
      if (s.value && s.value->kind == ExprKind::Call)
        call_statement(s, *s.value);
      break;
    case StmtKind::Assign:
      if (s.targets.size() != 1) {
        for (const auto &t : s.targets)
          if (t->kind != ExprKind::Name)
            refuse("an assignment to several targets", s);
        break;
      }
      assignment(s, *s.targets[0], s.value.get(), false);
      break;
    case StmtKind::AnnAssign:
      if (s.target)
        assignment(s, *s.target, s.value.get(), false);
      break;
    case StmtKind::AugAssign:
      if (s.target)
        assignment(s, *s.target, s.value.get(), true);
      break;
    case StmtKind::For:
      if (s.target && s.target->kind == ExprKind::Name && s.value && reads_memory(*s.value))
        tainted_loops_.insert(prover_.symbol(*s.target));
      break;
    case StmtKind::Break:
    case StmtKind::Continue:
      // A write after it in the loop may not run: the witness iteration of
      // an accumulator and the writes that reach a read are not modelled.
      refuse("a loop left early (break or continue)", s);
      break;
    default:
      break;
    }
  }

  // ------------------------------------------------- matrix instructions

  const Expr *matrix_instruction(const Stmt &s) const {
    if ((s.kind == StmtKind::Assign || s.kind == StmtKind::AnnAssign || s.kind == StmtKind::Expr) &&
        s.value && s.value->kind == ExprKind::Call &&
        is_matrix_multiply(sema_.builtin_of(*s.value)))
      return s.value.get();
    return nullptr;
  }

  void operands_unmodeled(const std::string &why, const Stmt &s) {
    if (operands_unmodeled_.empty())
      operands_unmodeled_ = why + " (line " + std::to_string(s.range.begin.line + 1) + ")";
  }

  // `acc = mma(a, b, acc)`: the operand contract as an obligation, and the
  // result a value the proof does not follow (tags through the accumulator
  // are the interpreter's, at the instances).
  void matrix_instruction_statement(const Stmt &s, const Expr &call) {
    const BuiltinId id = sema_.builtin_of(call);
    const Expr *target = s.kind == StmtKind::Assign && s.targets.size() == 1 ? s.targets[0].get()
                         : s.kind == StmtKind::AnnAssign                     ? s.target.get()
                                                                             : nullptr;
    if (s.kind == StmtKind::Assign && s.targets.size() != 1)
      return refuse("a matrix instruction assigned to several targets", s);
    ++operand_statements_;
    if (target)
      clobber(s, *target,
              "the result of " + builtin_name(id) +
                  " (its tags are the interpreter's: the proof does not follow an accumulator "
                  "yet)");
    if (!prover_.exact_here())
      return operands_unmodeled("a matrix instruction under a condition or loop the proof "
                                "does not follow",
                                s);
    if (prover_.block_dim(1) != 1 || prover_.block_dim(2) != 1)
      return operands_unmodeled("a matrix instruction in a block of more than one dimension "
                                "(its warps are not modelled)",
                                s);
    const std::string inst(builtin_short_name(id));
    const OperandMap &ma = operand_map(inst, "A");
    const OperandMap &mb = operand_map(inst, "B");
    if (!ma.ok || !mb.ok || ma.threads != mb.threads || ma.cols != mb.cols || call.arg_count() < 2)
      return operands_unmodeled("no thread-value layout of " + inst + "'s operands", s);
    std::string why;
    auto a = fragment(call.arg(0), ma.values, why);
    auto b = a ? fragment(call.arg(1), mb.values, why) : std::nullopt;
    if (!a || !b)
      return operands_unmodeled(why, s);
    // Two threads of one warp: `la` holding A's (i, k) in its register `va`
    // and `lb` holding B's (j, k) in `vb`, for some k. One obligation per
    // pair of registers that meet at some k, with the lanes that hold them
    // (the registers concrete: the fragments' writes then index by numbers).
    const int W = ma.threads, M = ma.rows, N = mb.rows, K = ma.cols;
    const auto named = [&](const char *what) {
      return ctx_.int_const(("mma." + std::string(what) + "!" + std::to_string(fresh_++)).c_str());
    };
    const z3::expr w = named("warp"), la = named("a_lane"), lb = named("b_lane");
    const z3::expr width = ctx_.int_val(W);
    // The division the kernel's lane_id() and warp_id() make of each thread,
    // stated (the same terms, so Z3 need not work it out by cases).
    const z3::expr lanes = w >= 0 && width * (w + 1) <= ctx_.int_val(prover_.block_dim(0)) &&
                           la >= 0 && la < width && lb >= 0 && lb < width &&
                           floor_div(linear_of(width * w + la), width) == w &&
                           floor_div(linear_of(width * w + lb), width) == w;
    const z3::expr tid = prover_.thread_ids()[0];
    const Subst a_lane{{tid, width * w + la}}, b_lane{{tid, width * w + lb}};
    const int context = here();
    const z3::expr &path = contexts_[static_cast<size_t>(context)].path;
    const z3::expr on_path = apply(a_lane, path) && apply(b_lane, path);
    for (int va = 0; va < ma.values; ++va)
      for (int vb = 0; vb < mb.values; ++vb) {
        z3::expr at_k = ctx_.bool_val(false);
        bool any = false;
        for (int k = 0; k < K; ++k) {
          z3::expr in_a = ctx_.bool_val(false), in_b = ctx_.bool_val(false);
          bool some_a = false, some_b = false;
          for (int i = 0; i < M; ++i)
            if (const auto e = static_cast<size_t>(i + M * k); ma.value[e] == va) {
              in_a = in_a || la == ma.thread[e];
              some_a = true;
            }
          for (int j = 0; j < N; ++j)
            if (const auto e = static_cast<size_t>(j + N * k); mb.value[e] == vb) {
              in_b = in_b || lb == mb.thread[e];
              some_b = true;
            }
          if (some_a && some_b) {
            at_k = at_k || (in_a && in_b);
            any = true;
          }
        }
        if (!any)
          continue;
        Obligation o;
        o.operands = true;
        o.context = context;
        o.stmt = &s;
        o.a_lane = a_lane;
        o.b_lane = b_lane;
        o.meet = lanes && at_k.simplify() && on_path;
        auto a_index = a->second, b_index = b->second;
        a_index.push_back(ctx_.int_val(va));
        b_index.push_back(ctx_.int_val(vb));
        o.value = read_root(a->first, std::move(a_index));
        o.value_b = read_root(b->first, std::move(b_index));
        operand_meets_.push_back(std::move(o));
      }
  }

  // The block-linear thread index of x-thread `x`, built as the bounds
  // prover builds lane_id() and warp_id() (the same terms: Z3 shares them).
  z3::expr linear_of(const z3::expr &x) const {
    const auto &t = prover_.thread_ids();
    return x +
           ctx_.int_val(prover_.block_dim(0)) * (t[1] + ctx_.int_val(prover_.block_dim(1)) * t[2]);
  }

  // A register fragment of `values` elements: a make_local / full tensor of
  // that many, or a row of one (all indices but the last). Its root and the
  // indices of the row.
  std::optional<std::pair<const sema::Symbol *, std::vector<z3::expr>>>
  fragment(const Expr &e, int values, std::string &why) {
    const Expr *base = e.kind == ExprKind::Subscript ? e.operands[0].get() : &e;
    const sema::Symbol *sym = base->kind == ExprKind::Name ? prover_.symbol(*base) : nullptr;
    auto it = sym ? roots_.find(sym) : roots_.end();
    if (it == roots_.end() || it->second.space != Space::Local || it->second.extents.empty() ||
        it->second.extents.back() != values) {
      why = "a matrix instruction operand that is not a register fragment of " +
            std::to_string(values) +
            " values (a make_local tensor, or a row of one, assigned once)";
      return std::nullopt;
    }
    std::vector<z3::expr> prefix;
    const size_t given = e.kind == ExprKind::Subscript ? e.operands.size() - 1 : 0;
    if (given + 1 != it->second.rank) {
      why = "a matrix instruction operand that names part of a fragment";
      return std::nullopt;
    }
    for (size_t d = 1; d <= given; ++d) {
      auto t = prover_.integer(*e.operands[d]);
      if (!t) {
        why = "a matrix instruction operand whose index is not a closed form";
        return std::nullopt;
      }
      prefix.push_back(*t);
    }
    it->second.accessed = true;
    return std::make_pair(sym, std::move(prefix));
  }

  // The target of a matrix instruction: each of its cells gets a value the
  // proof does not follow, so every read that may see it is not proved.
  void clobber(const Stmt &s, const Expr &target, const std::string &why) {
    const Expr *base = target.kind == ExprKind::Subscript ? target.operands[0].get() : &target;
    const sema::Symbol *sym = base->kind == ExprKind::Name ? prover_.symbol(*base) : nullptr;
    auto it = sym ? roots_.find(sym) : roots_.end();
    if (it == roots_.end())
      return; // not followed: its reads are not proved anyway
    if (it->second.space == Space::Global)
      return refuse("a matrix instruction's result written to global memory", s);
    Root &r = it->second;
    r.accessed = true;
    Write w;
    w.root = sym;
    w.context = here();
    for (size_t d = 0; d < r.rank; ++d)
      w.index.push_back(ctx_.int_const(("mma.cell!" + std::to_string(fresh_++)).c_str()));
    w.value = unknown(why);
    r.writes.push_back(writes_.size());
    writes_.push_back(std::move(w));
  }

  // One obligation per field a tensor is tagged with: A's and B's elements
  // that meet agree on it wherever both have it.
  void expand_operand_fields() {
    std::set<std::string> fields;
    for (const auto &[sym, root] : roots_)
      for (const auto &[field, term] : root.declared)
        fields.insert(field);
    for (const Obligation &meet : operand_meets_)
      for (const std::string &f : fields) {
        Obligation o = meet;
        o.field = f;
        o.expected = ctx_.int_const(("mma.field!" + std::to_string(fresh_++)).c_str());
        obligations_.push_back(std::move(o));
      }
    operand_meets_.clear();
  }

  int here() {
    if (current_ < 0)
      current_ = context(*current_path_);
    return current_;
  }

  static bool reads_memory(const Expr &e) {
    if (e.kind == ExprKind::Subscript)
      return true;
    for (const auto &op : e.operands)
      if (op && reads_memory(*op))
        return true;
    for (const auto &k : e.keywords)
      if (k.value && reads_memory(*k.value))
        return true;
    return false;
  }

  // A tensor whose memory the proof follows: a global parameter, a
  // make_shared / full / make_local local made once, a scalar accumulator.
  Root *root_of(const sema::Symbol *s) {
    if (!s)
      return nullptr;
    if (auto it = roots_.find(s); it != roots_.end())
      return &it->second;
    if (s->kind == sema::SymbolKind::Parameter && s->type.is_tensor() &&
        s->type.tensor->space == sema::MemorySpace::Global) {
      Root r;
      r.space = Space::Global;
      r.rank = s->type.tensor->shape.size();
      if (!s->type.tensor->strides.empty() || s->type.tensor->swizzled)
        return nullptr;
      return &roots_.emplace(s, std::move(r)).first->second;
    }
    return nullptr;
  }

  bool is_tensor_name(const Expr &e) const {
    const sema::Symbol *s = prover_.symbol(e);
    return s && s->type.is_tensor();
  }

  // Every use of a tensor name must be a subscript's base (or tag's and
  // assert_covered's operand): anything else (an alias, a whole-tensor
  // argument, a method) could move data the proof does not see.
  void check_uses(const Stmt &s) {
    std::function<void(const Expr &, bool)> visit = [&](const Expr &e, bool allowed) {
      if (e.kind == ExprKind::Name) {
        if (!allowed && is_tensor_name(e))
          refuse("the tensor " + e.name + " is used whole, which the proof does not follow", s);
        return;
      }
      if (e.kind == ExprKind::Subscript) {
        if (e.operands[0]->kind != ExprKind::Name)
          refuse("a subscript of something other than a tensor's name", s);
        else
          visit(*e.operands[0], true);
        for (size_t i = 1; i < e.operands.size(); ++i)
          if (e.operands[i])
            visit(*e.operands[i], false);
        return;
      }
      if (e.kind == ExprKind::Call) {
        const BuiltinId id = sema_.builtin_of(e);
        const bool annotation = id == BuiltinId::Tag || id == BuiltinId::AssertCovered;
        for (size_t i = 0; i < e.operands.size(); ++i)
          if (e.operands[i])
            visit(*e.operands[i], annotation && i == 1); // operands[0] is the callee
        for (const auto &k : e.keywords)
          if (k.value)
            visit(*k.value, false);
        return;
      }
      for (const auto &op : e.operands)
        if (op)
          visit(*op, false);
    };
    if (s.kind == StmtKind::For || s.kind == StmtKind::If || s.kind == StmtKind::While) {
      if (s.value)
        visit(*s.value, false);
      return;
    }
    if (s.value) {
      // A tensor constructor's result is the name it is assigned to.
      const bool constructor =
          s.value->kind == ExprKind::Call && is_tensor_constructor(sema_.builtin_of(*s.value));
      if (!constructor)
        visit(*s.value, false);
    }
    for (const auto &t : s.targets)
      if (t->kind != ExprKind::Name)
        visit(*t, false);
    if (s.target && s.target->kind != ExprKind::Name)
      visit(*s.target, false);
  }

  void call_statement(const Stmt &s, const Expr &call) {
    const BuiltinId id = sema_.builtin_of(call);
    if (id == BuiltinId::Tag) {
      declare_tag(s, call);
    } else if (id == BuiltinId::ResetTags) {
      refuse("reset_tags() is not in the proof", s);
    } else if (id == BuiltinId::AssertTagEq) {
      if (tags_unmodeled_.empty())
        tags_unmodeled_ = "assert_tag_eq is not in the proof yet (line " +
                          std::to_string(s.range.begin.line + 1) + ")";
    } else if (id == BuiltinId::AssertTag) {
      assert_tag(s, call);
    }
  }

  void declare_tag(const Stmt &s, const Expr &call) {
    if (call.arg_count() < 2 || call.arg(0).kind != ExprKind::Name)
      return refuse("tag() of something other than a tensor parameter", s);
    Root *r = root_of(prover_.symbol(call.arg(0)));
    if (!r)
      return refuse("tag() of a tensor the proof does not follow", s);
    if (!prover_.scopes().empty())
      return refuse("tag() under a condition or in a loop", s);
    if (r->tagged || r->accessed)
      return refuse("tag() of a tensor already tagged or accessed", s);
    r->tagged = true;
    for (size_t d = 0; d < r->rank; ++d)
      r->coords.push_back(
          ctx_.int_const(("tag." + call.arg(0).name + "." + std::to_string(d)).c_str()));
    const Expr &fn = call.arg(1);
    if (fn.kind == ExprKind::Tuple) {
      for (size_t d = 0; d < fn.operands.size() && d < r->rank; ++d)
        if (fn.operands[d]->kind == ExprKind::String)
          r->declared.insert_or_assign(fn.operands[d]->name, r->coords[d]);
      return;
    }
    if (fn.kind == ExprKind::Lambda && !fn.operands.empty() &&
        fn.operands[0]->kind == ExprKind::Dict) {
      std::map<std::string, z3::expr> params;
      for (size_t p = 0; p < fn.lambda_params.size() && p < r->rank; ++p)
        params.insert_or_assign(fn.lambda_params[p].name, r->coords[p]);
      const Expr &dict = *fn.operands[0];
      for (size_t k = 0; k + 1 < dict.operands.size(); k += 2) {
        if (dict.operands[k]->kind != ExprKind::String)
          continue;
        auto t = prover_.integer_with(*dict.operands[k + 1], params);
        if (!t)
          return refuse("a tag function the proof does not translate", s);
        r->declared.insert_or_assign(dict.operands[k]->name, *t);
      }
      return;
    }
    refuse("a tag() record the proof does not read", s);
  }

  void assert_tag(const Stmt &s, const Expr &call) {
    if (call.arg_count() < 2 || call.arg(1).kind != ExprKind::Dict) {
      tags_unmodeled_ = "an assert_tag the proof does not read";
      return;
    }
    if (!prover_.exact_here()) {
      if (tags_unmodeled_.empty())
        tags_unmodeled_ = "an assert_tag under a condition or loop the proof does not follow "
                          "(line " +
                          std::to_string(s.range.begin.line + 1) + ")";
      return;
    }
    const int value = tree(call.arg(0));
    const Expr &dict = call.arg(1);
    for (size_t k = 0; k + 1 < dict.operands.size(); k += 2) {
      if (dict.operands[k]->kind != ExprKind::String)
        continue;
      obligations_.push_back(Obligation{false, here(), value, dict.operands[k]->name,
                                        prover_.integer(*dict.operands[k + 1]), &s});
    }
  }

  void assignment(const Stmt &s, const Expr &target, const Expr *value, bool aug) {
    if (target.kind == ExprKind::Name) {
      const sema::Symbol *sym = prover_.symbol(target);
      if (!sym || !value)
        return;
      const bool accumulator = plain_[sym] == 1 && aug_[sym] >= 1;
      if (aug) {
        if (!roots_.count(sym))
          return refuse("an update of '" + sym->name + "' before its first assignment", s);
        if (!prover_.exact_here())
          return refuse("an update under a condition or loop the proof does not follow", s);
        add_write(s, sym, {}, true, *value);
        return;
      }
      if (plain_[sym] != 1) {
        // A scalar register assigned several times: a cell of its own, each
        // assignment a write (the first is its initial value).
        if (sym->type.is_tensor())
          return;
        if (!prover_.exact_here())
          return refuse("an assignment under a condition or loop the proof does not follow", s);
        if (!roots_.count(sym)) {
          Root r;
          r.space = Space::Local;
          roots_.emplace(sym, std::move(r));
        }
        add_write(s, sym, {}, false, *value);
        return;
      }
      if (value->kind == ExprKind::Call && is_tensor_constructor(sema_.builtin_of(*value)))
        return make_local(s, *sym, *value);
      if (accumulator) {
        Root r;
        r.space = Space::Local;
        r.def_context = here();
        r.fill = tree(*value);
        roots_.insert_or_assign(sym, std::move(r));
        return;
      }
      if (prover_.exact_here())
        definitions_.insert_or_assign(sym, std::make_pair(tree(*value), here()));
      return;
    }
    if (target.kind != ExprKind::Subscript) {
      if (reads_memory(target))
        refuse("an assignment to a tuple holding a subscript", s);
      return;
    }
    const Expr &base = *target.operands[0];
    Root *r = base.kind == ExprKind::Name ? root_of(prover_.symbol(base)) : nullptr;
    if (!r)
      return refuse("a write to a tensor the proof does not follow", s);
    if (!prover_.exact_here())
      return refuse("a write under a condition or loop the proof does not follow", s);
    if (target.operands.size() - 1 != r->rank)
      return refuse("a write of part of a tensor (fewer indices than its rank)", s);
    std::vector<z3::expr> index;
    for (size_t d = 1; d < target.operands.size(); ++d) {
      auto t = prover_.integer(*target.operands[d]);
      if (!t)
        return refuse("a write whose index is not a closed form", s);
      index.push_back(*t);
    }
    if (!value)
      return;
    add_write(s, prover_.symbol(base), std::move(index), aug, *value);
  }

  void add_write(const Stmt &stmt, const sema::Symbol *sym, std::vector<z3::expr> index, bool aug,
                 const Expr &value) {
    Root &r = roots_.at(sym);
    r.accessed = true;
    Write w;
    w.root = sym;
    w.context = here();
    w.index = std::move(index);
    w.aug = aug;
    w.value = tree(value);
    // The store contract: the value stored (for an update, the cell joined
    // with it) carries each declared field as the element's, or not at all.
    if (r.space == Space::Global && r.tagged) {
      Subst at;
      for (size_t d = 0; d < r.coords.size() && d < w.index.size(); ++d)
        at.emplace_back(r.coords[d], w.index[d]);
      const int stored = aug ? join({read_root(sym, w.index), w.value}) : w.value;
      for (const auto &[field, term] : r.declared)
        obligations_.push_back(Obligation{true, w.context, stored, field, apply(at, term), &stmt});
    }
    r.writes.push_back(writes_.size());
    writes_.push_back(std::move(w));
  }

  // make_shared / full / make_local assigned once: a root of constant shape.
  void make_local(const Stmt &s, const sema::Symbol &sym, const Expr &call) {
    const BuiltinId id = sema_.builtin_of(call);
    if (!sym.type.is_tensor() || !sym.type.tensor->strides.empty() || sym.type.tensor->swizzled)
      return refuse("a tensor with a layout of its own (the proof takes row-major ones)", s);
    for (const auto &k : call.keywords)
      if (k.name != "value" && k.name != "dtype" && k.name != "shape")
        return refuse("a tensor made with '" + k.name + "'", s);
    const size_t positional = id == BuiltinId::Full ? 3 : 2;
    if (call.arg_count() > positional)
      return refuse("a tensor made with a layout", s);
    Root r;
    r.space = id == BuiltinId::MakeShared ? Space::Shared : Space::Local;
    std::vector<int64_t> extents;
    for (const sema::Dim &d : sym.type.tensor->shape) {
      if (!d.value)
        return refuse("a tensor of a shape that is not constant", s);
      extents.push_back(*d.value);
    }
    r.rank = extents.size();
    r.extents = extents;
    r.strides.assign(extents.size(), 1);
    for (size_t d = extents.size(); d-- > 1;)
      r.strides[d - 1] = r.strides[d] * extents[d];
    r.def_context = here();
    if (id == BuiltinId::Full) {
      const Expr *fill = call.arg_count() >= 2 ? &call.arg(1) : nullptr;
      for (const auto &k : call.keywords)
        if (k.name == "value")
          fill = k.value.get();
      r.fill = fill ? tree(*fill) : absent();
    }
    roots_.insert_or_assign(&sym, std::move(r));
  }

  // ------------------------------------------------------------ value trees

  int add(Node n) {
    nodes_.push_back(std::move(n));
    return static_cast<int>(nodes_.size()) - 1;
  }
  int absent() { return add(Node{Node::Kind::Absent, {}, nullptr, {}, -1, {}}); }
  int unknown(std::string why) {
    return add(Node{Node::Kind::Unknown, {}, nullptr, {}, -1, std::move(why)});
  }
  int join(std::vector<int> children, Node::Kind kind = Node::Kind::Join) {
    return add(Node{kind, std::move(children), nullptr, {}, -1, {}});
  }

  int tree(const Expr &e) {
    if (sema_.float_values.count(&e))
      return absent();
    switch (e.kind) {
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Bool:
      return absent();
    case ExprKind::Name:
      return name(e);
    case ExprKind::Unary:
      if (e.unary_op == ast::UnaryOp::Not)
        return unknown("a logical not");
      return join({tree(*e.operands[0])});
    case ExprKind::Binary:
      return join({tree(*e.operands[0]), tree(*e.operands[1])});
    case ExprKind::Conditional: {
      const sema::Type *t = sema_.type_of(e);
      if (t && t->is_tensor())
        return unknown("a tensor chosen by a condition");
      return join({tree(*e.operands[1]), tree(*e.operands[2])}, Node::Kind::Either);
    }
    case ExprKind::Call:
      return call(e);
    case ExprKind::Subscript:
      return read(e);
    default:
      return unknown("an expression the proof does not model");
    }
  }

  int name(const Expr &e) {
    const sema::Symbol *s = prover_.symbol(e);
    if (!s)
      return unknown("a name the proof does not know");
    if (s->value)
      return absent();
    if (is_loop_variable(s) && (plain_.count(s) || aug_.count(s)))
      return unknown("'" + e.name + "', a loop variable also assigned elsewhere");
    if (auto it = roots_.find(s); it != roots_.end())
      return it->second.rank == 0 ? read_root(s, {}) : unknown("a whole tensor");
    if (auto def = definitions_.find(s); def != definitions_.end()) {
      // Its one assignment runs before this point in every iteration of the
      // loops around it (it is in a block around this one).
      if (!is_prefix(contexts_[static_cast<size_t>(def->second.second)].scopes, prover_.scopes()))
        return unknown("'" + e.name + "', assigned in a branch or loop this use is not in");
      return def->second.first;
    }
    if (is_loop_variable(s))
      return tainted_loops_.count(s) ? unknown("a loop variable whose range reads memory")
                                     : absent();
    // An integer parameter the kernel never assigns: a size or a flag, no tag.
    if (s->kind == sema::SymbolKind::Parameter && !s->type.is_tensor() && !plain_.count(s) &&
        !aug_.count(s))
      return absent();
    return unknown("'" + e.name + "', a name the proof does not follow");
  }

  bool is_loop_variable(const sema::Symbol *s) const { return loop_symbols_.count(s) != 0; }

  int call(const Expr &e) {
    const sema::CallTarget target = sema_.call_of(e);
    if (target.kind == sema::CallKind::Cast)
      return e.arg_count() ? join({tree(e.arg(0))}) : absent();
    if (target.kind != sema::CallKind::Builtin)
      return unknown("a call the proof does not model");
    using enum BuiltinId;
    const BuiltinId id = target.builtin;
    if (is_launch_coordinate(id))
      return absent();
    std::vector<int> args;
    const auto all = [&](size_t n) {
      for (size_t i = 0; i < n && i < e.arg_count(); ++i)
        args.push_back(tree(e.arg(i)));
      return join(std::move(args));
    };
    switch (id) {
    case Min:
    case Max:
    case Cdiv:
      return all(2);
    case Abs:
    case Convert:
    case Bitcast:
      return all(1);
    case Fma:
      return all(3);
    default:
      if (is_unary_math(id))
        return all(1);
      return unknown("'" + builtin_name(id) + "', which the proof does not model");
    }
  }

  int read_root(const sema::Symbol *s, std::vector<z3::expr> index) {
    Node n{Node::Kind::Read, {}, s, std::move(index), here(), {}};
    roots_.at(s).accessed = true;
    return add(std::move(n));
  }

  int read(const Expr &e) {
    const Expr &base = *e.operands[0];
    Root *r = base.kind == ExprKind::Name ? root_of(prover_.symbol(base)) : nullptr;
    if (!r)
      return unknown("an element of a tensor the proof does not follow");
    if (e.operands.size() - 1 != r->rank)
      return unknown("part of a tensor (fewer indices than its rank)");
    std::vector<z3::expr> index;
    for (size_t d = 1; d < e.operands.size(); ++d) {
      auto t = prover_.integer(*e.operands[d]);
      if (!t)
        return unknown("an index that is not a closed form");
      index.push_back(*t);
    }
    return read_root(prover_.symbol(base), std::move(index));
  }

  // ------------------------------------------------------------ the formulas

  z3::expr apply(const Subst &s, const z3::expr &e) {
    if (s.empty())
      return e;
    z3::expr_vector from(ctx_), to(ctx_);
    for (const auto &[a, b] : s) {
      from.push_back(a);
      to.push_back(b);
    }
    return z3::expr(e).substitute(from, to);
  }

  z3::expr fresh(const z3::expr &c) {
    return ctx_.int_const((c.decl().name().str() + "!" + std::to_string(fresh_++)).c_str());
  }

  // A fresh copy of a write to memory read under `read` (the reader's
  // thread and block): new loop variables, a new thread for shared and
  // global memory, a new block for global memory; local memory is the
  // reader's own. `range` gets the new ids' bounds.
  Subst copy_of(Space space, const Subst &read, z3::expr &range) {
    Subst s;
    for (const z3::expr &v : loop_vars_)
      s.emplace_back(v, fresh(v));
    range = ctx_.bool_val(true);
    for (size_t d = 0; d < 3; ++d) {
      const z3::expr t = prover_.thread_ids()[d];
      if (space == Space::Local) {
        s.emplace_back(t, apply(read, t));
        continue;
      }
      const z3::expr t2 = fresh(t);
      s.emplace_back(t, t2);
      range = range && t2 >= 0 && t2 < ctx_.int_val(prover_.block_dim(d));
    }
    for (size_t d = 0; d < 3; ++d) {
      const z3::expr b = prover_.block_ids()[d];
      if (space != Space::Global) {
        s.emplace_back(b, apply(read, b));
        continue;
      }
      const z3::expr b2 = fresh(b);
      s.emplace_back(b, b2);
      range = range && b2 >= 0 && b2 < prover_.grid()[d];
    }
    return s;
  }

  // The same cell: equal indices of a global tensor (its indices are proved
  // in bounds), the same row-major offset in shared and local memory.
  z3::expr same_cell(const Root &r, const std::vector<z3::expr> &a,
                     const std::vector<z3::expr> &b) {
    if (r.space == Space::Global) {
      z3::expr same = ctx_.bool_val(true);
      for (size_t d = 0; d < a.size() && d < b.size(); ++d)
        same = same && a[d] == b[d];
      return same;
    }
    z3::expr x = ctx_.int_val(0), y = ctx_.int_val(0);
    for (size_t d = 0; d < a.size() && d < b.size(); ++d) {
      x = x + a[d] * ctx_.int_val(r.strides[d]);
      y = y + b[d] * ctx_.int_val(r.strides[d]);
    }
    return x == y;
  }

  // A register tensor of one dimension written at a loop variable's index
  // (`a_frag[r] = ...` in `for r in range(8)`) reaches a read of cell `c`
  // only in the iteration r = c: that copy's r is c itself (same_cell would
  // state it; stated by substitution, Z3 need not find it inside the
  // implications).
  Subst pinned(const Root &r, const Write &w, Subst ws, const std::vector<z3::expr> &cell) {
    if (r.space != Space::Local || r.rank != 1 || w.index.size() != 1 || cell.size() != 1 ||
        std::none_of(loop_vars_.begin(), loop_vars_.end(),
                     [&](const z3::expr &v) { return z3::eq(v, w.index[0]); }))
      return ws;
    for (auto &[from, to] : ws)
      if (z3::eq(from, w.index[0]))
        to = cell[0];
    return ws;
  }

  // Whether the copy `ws` of write `w` reaches the cell `cell` read under `s`:
  // its path holds and the cell is the same; and for a register tensor made
  // in a loop, which is a new tensor in every iteration, the write is of the
  // read's iteration of the loops around the making.
  z3::expr reaches_read(const Root &r, const Write &w, const Subst &ws, const Subst &s,
                        const z3::expr &range, const std::vector<z3::expr> &cell) {
    std::vector<z3::expr> at;
    for (const z3::expr &i : w.index)
      at.push_back(apply(ws, i));
    z3::expr out = range && apply(ws, contexts_[static_cast<size_t>(w.context)].path) &&
                   same_cell(r, at, cell);
    if (r.space == Space::Local && r.def_context >= 0)
      for (const Scope &scope : contexts_[static_cast<size_t>(r.def_context)].scopes)
        if (scope.var)
          out = out && apply(ws, *scope.var) == apply(s, *scope.var);
    return out;
  }

  struct Goal {
    const std::string &field;
    const z3::expr &expected;
    int budget = 400; // node visits: a bound on the formula's size
    std::string why;  // the first thing not modelled
    // Roots being expanded, with the cell: a read of that cell inside a write
    // to it holds by induction over the cell's writes (see read_formula).
    std::map<const sema::Symbol *, std::vector<z3::expr>> open;
  };

  using Term = std::optional<z3::expr>;

  Term fail(Goal &g, std::string why) {
    if (g.why.empty())
      g.why = std::move(why);
    return std::nullopt;
  }

  // The conjunction (`all`) or disjunction of `each` over a node's children.
  Term over_children(const Node &node, const Subst &s, Goal &g,
                     Term (TagProof::*each)(int, const Subst &, Goal &), bool all) {
    z3::expr out = ctx_.bool_val(all);
    for (int c : node.children) {
      const Term t = (this->*each)(c, s, g);
      if (!t)
        return std::nullopt;
      out = all ? out && *t : out || *t;
    }
    return out;
  }

  // The cell a read names under `s`.
  std::vector<z3::expr> cell_of(const Node &node, const Subst &s) {
    std::vector<z3::expr> cell;
    for (const z3::expr &i : node.index)
      cell.push_back(apply(s, i));
    return cell;
  }

  // The field a tagged global tensor declares for `cell`, if it declares it.
  std::optional<z3::expr> declared_at(const Root &r, const std::string &field,
                                      const std::vector<z3::expr> &cell) {
    auto f = r.declared.find(field);
    if (f == r.declared.end())
      return std::nullopt;
    Subst at;
    for (size_t d = 0; d < r.coords.size() && d < cell.size(); ++d)
      at.emplace_back(r.coords[d], cell[d]);
    return apply(at, f->second);
  }

  // f of node n is absent or E.
  Term same(int n, const Subst &s, Goal &g) { return absent_or(true, n, s, g); }

  // f of node n can be present and E: some write that can reach gives it.
  // An over-approximation, as the counterexample query needs (this appears
  // positively in it): a join's f, when present and not mixed, is one of its
  // operands' present f.
  Term possibly(int n, const Subst &s, Goal &g) { return absent_or(false, n, s, g); }

  // same (`absent_ok`) or possibly: they differ in what an absent field
  // gives, how children combine (every one, or some one), and a read.
  Term absent_or(bool absent_ok, int n, const Subst &s, Goal &g) {
    if (--g.budget < 0)
      return fail(g, "the value's history is too large for the proof");
    const Node &node = nodes_[static_cast<size_t>(n)];
    switch (node.kind) {
    case Node::Kind::Absent:
      return ctx_.bool_val(absent_ok);
    case Node::Kind::Unknown:
      return fail(g, node.why);
    case Node::Kind::Join:
    case Node::Kind::Either:
      return over_children(node, s, g, absent_ok ? &TagProof::same : &TagProof::possibly,
                           absent_ok);
    case Node::Kind::Read:
      return absent_ok ? read_formula(node, s, g, false) : possibly_read(node, s, g);
    }
    return std::nullopt;
  }

  // f of node n is present and E.
  Term holds(int n, const Subst &s, Goal &g) {
    if (--g.budget < 0)
      return fail(g, "the value's history is too large for the proof");
    const Node &node = nodes_[static_cast<size_t>(n)];
    switch (node.kind) {
    case Node::Kind::Absent:
      return ctx_.bool_val(false);
    case Node::Kind::Unknown:
      return fail(g, node.why);
    case Node::Kind::Join: {
      z3::expr all = ctx_.bool_val(true), some = ctx_.bool_val(false);
      for (int c : node.children) {
        Term a = same(c, s, g), h = holds(c, s, g);
        if (!a || !h)
          return std::nullopt;
        all = all && *a;
        some = some || *h;
      }
      return all && some;
    }
    case Node::Kind::Either:
      return over_children(node, s, g, &TagProof::holds, true);
    case Node::Kind::Read:
      return read_formula(node, s, g, true);
    }
    return std::nullopt;
  }

  Term possibly_read(const Node &node, const Subst &s, Goal &g) {
    const Root &r = roots_.at(node.root);
    if (g.open.count(node.root))
      return fail(g, "a value of " + node.root->name + " that depends on " + node.root->name);
    const std::vector<z3::expr> cell = cell_of(node, s);
    g.open.emplace(node.root, cell);
    z3::expr some = ctx_.bool_val(false);
    if (r.space == Space::Global && r.tagged)
      if (auto declared = declared_at(r, g.field, cell))
        some = *declared == g.expected;
    for (size_t wi : r.writes) {
      const Write &w = writes_[wi];
      z3::expr range = ctx_.bool_val(true);
      const Subst ws = pinned(r, w, copy_of(r.space, s, range), cell);
      Term t = possibly(w.value, ws, g);
      if (!t) {
        g.open.erase(node.root);
        return std::nullopt;
      }
      some = some || (reaches_read(r, w, ws, s, range, cell) && *t);
    }
    if (r.fill >= 0) {
      z3::expr range = ctx_.bool_val(true);
      Term t = possibly(r.fill, copy_of(Space::Local, s, range), g);
      if (!t) {
        g.open.erase(node.root);
        return std::nullopt;
      }
      some = some || *t;
    }
    g.open.erase(node.root);
    return some;
  }

  // A read of a cell is one of the writes the cell had (or its first state:
  // a global tensor's tag(), a local's fill, or no write at all, which the
  // interpreter reports as an uninitialized read and assertions skip).
  Term read_formula(const Node &node, const Subst &s, Goal &g, bool present) {
    const Root &r = roots_.at(node.root);
    const std::vector<z3::expr> cell = cell_of(node, s);
    if (auto open = g.open.find(node.root); open != g.open.end()) {
      // A read of the cell being expanded, in the value of a write to it:
      // every earlier state of the cell has the property (induction over
      // its writes in time; the first state is checked with them), except
      // that a filled accumulator's first state is absent, which `holds`
      // cannot use. Another cell of the same tensor is not followed.
      if (present && r.fill >= 0)
        return fail(g, "a value of " + node.root->name + " that depends on " + node.root->name);
      return same_cell(r, cell, open->second);
    }
    g.open.emplace(node.root, cell);
    z3::expr out = ctx_.bool_val(true);
    if (r.space == Space::Global && r.tagged) {
      const auto declared = declared_at(r, g.field, cell);
      out = declared ? *declared == g.expected : ctx_.bool_val(!present);
    } else if (r.space == Space::Global && present) {
      out = ctx_.bool_val(false); // untagged host data
    }
    for (size_t wi : r.writes) {
      const Write &w = writes_[wi];
      z3::expr range = ctx_.bool_val(true);
      const Subst ws = pinned(r, w, copy_of(r.space, s, range), cell);
      std::vector<z3::expr> at;
      for (const z3::expr &i : w.index)
        at.push_back(apply(ws, i));
      const z3::expr reaches = reaches_read(r, w, ws, s, range, cell);
      // The last plain write decides presence; updates after it must agree.
      Term t = present && !w.aug ? holds(w.value, ws, g) : same(w.value, ws, g);
      if (!t) {
        g.open.erase(node.root);
        return std::nullopt;
      }
      out = out && z3::implies(reaches, *t);
    }
    if (r.fill >= 0) {
      z3::expr range = ctx_.bool_val(true);
      Term t = same(r.fill, copy_of(Space::Local, s, range), g);
      if (!t) {
        g.open.erase(node.root);
        return std::nullopt;
      }
      out = out && *t;
      if (present) {
        Term w = witness(r, node, cell, s, g);
        if (!w) {
          g.open.erase(node.root);
          return std::nullopt;
        }
        out = out && *w;
      }
    }
    g.open.erase(node.root);
    return out;
  }

  // Some write of the accumulator that holds runs before the read and after
  // the accumulator was made: a disjunction over its writes, each at one
  // iteration (the read's, in the loops around both; else the loop's first,
  // or the read's index where the write's index is that loop's variable).
  Term witness(const Root &r, const Node &read, const std::vector<z3::expr> &cell, const Subst &s,
               Goal &g) {
    const Context &rc = contexts_[static_cast<size_t>(read.context)];
    const Context &dc = contexts_[static_cast<size_t>(r.def_context)];
    if (!is_prefix(dc.scopes, rc.scopes) || dc.order >= rc.order)
      return ctx_.bool_val(false);
    z3::expr some = ctx_.bool_val(false);
    for (size_t wi : r.writes) {
      const Write &w = writes_[wi];
      const Context &wc = contexts_[static_cast<size_t>(w.context)];
      if (!is_prefix(dc.scopes, wc.scopes) || dc.order >= wc.order || wc.order >= rc.order)
        continue;
      size_t common = 0;
      while (common < wc.scopes.size() && common < rc.scopes.size() &&
             wc.scopes[common] == rc.scopes[common])
        ++common;
      // The read's own thread, block and shared iterations, as the read sees them.
      Subst ws;
      for (const z3::expr &t : prover_.thread_ids())
        ws.emplace_back(t, apply(s, t));
      for (const z3::expr &b : prover_.block_ids())
        ws.emplace_back(b, apply(s, b));
      bool ok = true;
      for (size_t k = 0; k < wc.scopes.size() && ok; ++k) {
        const Scope &scope = wc.scopes[k];
        if (!scope.var)
          continue;
        if (k < common) {
          ws.emplace_back(*scope.var, apply(s, *scope.var));
          continue;
        }
        std::optional<z3::expr> value;
        for (size_t d = 0; d < w.index.size() && d < cell.size(); ++d)
          if (z3::eq(w.index[d].simplify(), scope.var->simplify()))
            value = cell[d];
        if (!value && scope.start)
          value = apply(ws, *scope.start);
        if (!value)
          ok = false;
        else
          ws.emplace_back(*scope.var, *value);
      }
      if (!ok)
        continue;
      // Loop variables of no loop around the write (a local from a loop that
      // ended) may be anything: fresh, so the witness holds for every value.
      for (const z3::expr &v : loop_vars_)
        if (std::none_of(ws.begin(), ws.end(), [&](const auto &p) { return z3::eq(p.first, v); }))
          ws.emplace_back(v, fresh(v));
      std::vector<z3::expr> at;
      for (const z3::expr &i : w.index)
        at.push_back(apply(ws, i));
      Term h = holds(w.value, ws, g);
      if (!h)
        return std::nullopt;
      some = some || (apply(ws, wc.path) && same_cell(r, at, cell) && *h);
    }
    return some;
  }

  static const char *check_of(const Obligation &o) {
    return o.operands ? "mma-operands" : o.store ? "store" : "assert_tag";
  }

  static bool reported_at(const KernelReport &report, const Obligation &o) {
    for (const Violation &v : report.violations)
      if (v.kind == "tag-mismatch" && v.check == check_of(o) &&
          v.range.begin.line == o.stmt->range.begin.line)
        return true;
    return false;
  }

  std::string what(const Obligation &o) const {
    return std::string(o.operands ? "the matrix instruction at "
                       : o.store  ? "the store at "
                                  : "the assert_tag at ") +
           "line " + std::to_string(o.stmt->range.begin.line + 1) + ", field " + o.field;
  }

  // The obligation's path and its goal negated, or nothing (`why` says why).
  std::optional<z3::expr> counterexample(const Obligation &o, std::string &why) {
    if (!o.expected) {
      why = what(o) + ": its value is not a closed form";
      return std::nullopt;
    }
    Goal g{o.field, *o.expected, 400, {}, {}};
    if (o.operands) {
      // Some f of A's element is not E while B's can be E: they disagree
      // (or A's is mixed).
      const Term a = same(o.value, o.a_lane, g);
      const Term b = a ? possibly(o.value_b, o.b_lane, g) : std::nullopt;
      if (!a || !b) {
        why = what(o) + ": " + g.why;
        return std::nullopt;
      }
      return *o.meet && !*a && *b;
    }
    const Term goal = o.store ? same(o.value, {}, g) : holds(o.value, {}, g);
    if (!goal) {
      why = what(o) + ": " + g.why;
      return std::nullopt;
    }
    return contexts_[static_cast<size_t>(o.context)].path && !*goal;
  }

  // Empty when proved (or violated, and reported); otherwise why not.
  std::string prove(z3::solver &solver, const Obligation &o, const z3::expr &cex,
                    KernelReport &report, bool &unsat) {
    solver.push();
    solver.add(cex);
    const z3::check_result r = solver.check();
    solver.pop();
    unsat = r == z3::unsat;
    if (unsat) {
      ++report.proofs;
      return {};
    }
    if (r == z3::unknown)
      return what(o) + ": Z3 did not decide it within " +
             std::to_string(options_.query_timeout_ms) + " ms";
    ++report.proof_failures;
    if (replay(solver, o, cex, report))
      return {};
    return what(o) + ": Z3 found sizes, threads or iterations where the proof's "
                     "over-approximation of the value's history does not give it, and the "
                     "interpreter did not confirm a mismatch there";
  }

  // The smallest sizes (then the lowest block) of a counterexample, run on
  // the interpreter: only a mismatch it finds there is reported.
  bool replay(z3::solver &solver, const Obligation &o, const z3::expr &counterexample,
              KernelReport &report) {
    z3::optimize opt(ctx_);
    z3::params op(ctx_);
    op.set("timeout", options_.query_timeout_ms);
    opt.set(op);
    for (const auto &f : prover_.facts())
      opt.add(f);
    opt.add(counterexample);
    opt.minimize(prover_.size_sum());
    for (size_t d = 3; d-- > 0;)
      opt.minimize(prover_.block_ids()[d]);
    std::optional<z3::model> found;
    // A matrix instruction's operands: straight to the search (its layouts
    // make a formula the optimizer does not finish within the query time).
    if (!o.operands && opt.check() == z3::sat)
      found = opt.get_model();
    else
      found = smallest_by_search(solver, counterexample);
    if (!found)
      return false;
    const z3::model &model = *found;
    CheckerOptions concrete = options_;
    concrete.symbolic = false;
    // One block only: long loops of a large model run in full.
    concrete.unroll_bound = std::max<int64_t>(options_.unroll_bound, 1 << 16);
    Machine machine(file_, kernel_, concrete);
    machine.run(prover_.sizes_of(model), {prover_.block_of(model)});
    for (Violation &v : machine.take_violations())
      if (v.kind == "tag-mismatch" && v.check == check_of(o) &&
          v.range.begin.line == o.stmt->range.begin.line) {
        v.data["found_by"] = "z3";
        report.violations.push_back(std::move(v));
        return true;
      }
    return false;
  }

  // Where Z3's optimizer gives up (a matrix instruction's layouts make a
  // large formula): a model of the counterexample with its size sum halved
  // while the solver finds one, then the lowest block it allows.
  std::optional<z3::model> smallest_by_search(z3::solver &solver, const z3::expr &counterexample) {
    solver.push();
    solver.add(counterexample);
    std::optional<z3::model> best;
    if (solver.check() == z3::sat)
      best = solver.get_model();
    const z3::expr sum = prover_.size_sum();
    for (int step = 0; best && step < 24; ++step) {
      const int64_t high = best->eval(sum, true).get_numeral_int64();
      if (high <= 0)
        break;
      solver.push();
      solver.add(sum <= ctx_.int_val(high / 2));
      const z3::check_result r = solver.check();
      if (r == z3::sat)
        best = solver.get_model();
      solver.pop();
      if (r != z3::sat) { // no model at half the sizes: try between
        solver.push();
        solver.add(sum < ctx_.int_val(high));
        const bool smaller = solver.check() == z3::sat;
        if (smaller)
          best = solver.get_model();
        solver.pop();
        if (!smaller)
          break;
      }
    }
    if (best) {
      solver.add(prover_.size_sum() == best->eval(sum, true));
      for (size_t d = 3; d-- > 0;) {
        solver.push();
        solver.add(prover_.block_ids()[d] == 0);
        if (solver.check() == z3::sat) {
          best = solver.get_model();
          solver.pop();
          solver.add(prover_.block_ids()[d] == 0);
        } else {
          solver.pop();
        }
      }
    }
    solver.pop();
    return best;
  }

  const CheckedFile &file_;
  const sema::SemaResult &sema_;
  const sema::FunctionInfo &kernel_;
  const CheckerOptions &options_;
  z3::context &ctx_;
  BoundsProver prover_;

  std::map<const sema::Symbol *, int> plain_, aug_;
  std::map<const sema::Symbol *, Root> roots_;
  std::map<const sema::Symbol *, std::pair<int, int>> definitions_; // tree, context
  std::set<const sema::Symbol *> loop_symbols_, tainted_loops_;
  std::set<const Stmt *> noted_loops_;
  std::vector<z3::expr> loop_vars_; // every loop the walk followed: each copy renames them all
  std::vector<Context> contexts_;
  std::vector<Node> nodes_;
  std::vector<Write> writes_;
  std::vector<Obligation> obligations_;
  std::string refused_;                   // the kernel is outside the proof's fragment
  std::string tags_unmodeled_;            // an assertion the proof does not take
  std::string operands_unmodeled_;        // a matrix instruction the proof does not take
  std::vector<Obligation> operand_meets_; // one per matrix instruction, fields not yet set
  size_t operand_statements_ = 0;         // matrix instructions the walk reached
  size_t order_ = 0;
  int current_ = -1;
  const std::vector<z3::expr> *current_path_ = nullptr;
  int fresh_ = 0;
};

} // namespace

void prove_tags_for_all_sizes(const CheckedFile &file, const sema::FunctionInfo &kernel,
                              const CheckerOptions &options, KernelReport &report,
                              ProofReach &reach) {
  const auto refuse = [&](const std::string &why) {
    reach.tags_why = why;
    reach.stores_why = why;
    reach.operands_why = why;
  };
  if (!options.symbolic)
    return refuse("the Z3 proofs are off");
  if (report.interrupted || options.cancelled() || options.past_deadline())
    return refuse("the check ran past its time limit");
  const Callees calls = calls_in(*file.sema, *kernel.function);
  // Matrix instructions are in (their operand contract; not yet their
  // accumulators); other intrinsics move data the proof does not see.
  if (calls.any([](BuiltinId id) { return is_intrinsic(id) && !is_matrix_multiply(id); }) ||
      calls.has(BuiltinId::AsyncCommit) || calls.has(BuiltinId::AsyncWait))
    return refuse("the kernel uses hardware intrinsics other than matrix instructions (ldmatrix, "
                  "wgmma, TMA, ...) or async copies, which the proof does not model");
  if (calls.any(is_atomic))
    return refuse("the kernel updates memory atomically (a write the proof's history does not "
                  "hold)");
  if (calls.any(is_warp_vote))
    return refuse("the kernel combines values of a warp's lanes (ballot, any_sync, all_sync), "
                  "which the proof does not model");
  if (calls.any(is_shuffle))
    return refuse("the kernel moves values between lanes (shuffles), which the proof does not "
                  "model");
  if (calls.has(BuiltinId::View) || calls.has(BuiltinId::Subview))
    return refuse("the kernel reads or writes through views, which the proof does not follow");
  if (calls.device)
    return refuse("the proof does not inline @device functions");
  if (!reach.kernel_solver)
    return refuse("the bounds proof did not run");
  TagProof proof(file, kernel, options);
  proof.run(reach.global_accesses == reach.global_proved && reach.opaque_tensors.empty(),
            calls.count_if(is_matrix_multiply), *reach.kernel_solver, report, reach.tags_why,
            reach.stores_why, reach.operands_why);
  reach.tags_proved = reach.tags_why.empty();
  reach.stores_proved = reach.stores_why.empty();
  reach.operands_proved = reach.operands_why.empty();
}

} // namespace argus::check::detail
