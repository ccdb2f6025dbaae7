// Races between blocks for every block of any grid: the two-block reduction.
// Two copies of the kernel's access terms (sizes shared, threads, blocks and
// loop variables per copy) and, for each pair of accesses to one global
// tensor of which one writes, a Z3 query whether two distinct blocks can
// touch the same element. Blocks of one launch are unordered, so one query
// per unordered pair covers both orders.
#include "machine.h"
#include "prover.h"
#include "symbolic.h"

#include <algorithm>
#include <optional>
#include <set>

namespace argus::check::detail {

namespace {

Violation grid_unproven(const KernelReport &report, const Range &at, const std::string &message) {
  Violation v;
  v.kind = "unproven";
  v.check = "grid";
  v.range = at;
  v.warning = true;
  v.message = message;
  v.data = {{"kind", "unproven"},
            {"check", "grid"},
            {"kernel", report.kernel},
            {"thread", nullptr},
            {"program_point", {{"line", at.begin.line}, {"character", at.begin.column}}},
            {"fixes", nlohmann::json::array()}};
  return v;
}

// An expression as written (no line numbers: a cached report is reused for
// text that moved, with its positions shifted but its message as it is).
std::string quote(const CheckedFile &file, const Expr &e) {
  std::string text(file.source->text_in(e.range));
  if (const size_t nl = text.find('\n'); nl != std::string::npos)
    text = text.substr(0, nl) + " ...";
  return "`" + text + "`";
}

// Double writes of a tensor that coverage already reported (E0908).
bool covered_twice(const KernelReport &report, const std::string &tensor) {
  for (const Violation &v : report.violations)
    if (v.kind == "covered-twice" && v.data.contains("element") &&
        v.data["element"].value("tensor", "") == tensor)
      return true;
  return false;
}

bool race_reported_at(const KernelReport &report, const Expr &e) {
  for (const Violation &v : report.violations)
    if (v.kind == "race" && v.range.begin == e.range.begin)
      return true;
  return false;
}

std::string block_text(const std::array<int64_t, 3> &b) {
  return "(" + std::to_string(b[0]) + "," + std::to_string(b[1]) + "," + std::to_string(b[2]) + ")";
}

// Which two threads the proof takes: of two distinct blocks (global memory
// only: each block has its own shared memory, and no barrier orders two
// blocks), or two distinct threads of one block (global and shared memory,
// accesses in one barrier interval: with the same barrier epoch).
enum class Pair { Blocks, ThreadsOfABlock };

class GridRaceProof {
public:
  // `quiet`: a proof the interpreter's instances do not need (the summary's
  // "all sizes"): what it cannot prove is no W0901; a race it finds and the
  // interpreter replays is still an error.
  // `shared`: the kernel's solver from the bounds proof (its facts are the
  // first copy's), used in a scope of its own; null: a solver of its own.
  GridRaceProof(const CheckedFile &file, const sema::FunctionInfo &kernel,
                const CheckerOptions &options, KernelReport &report, z3::solver *shared,
                bool quiet = false)
      : file_(file), kernel_(kernel), options_(options), report_(report), quiet_(quiet),
        shared_(shared), one_(file, kernel, nullptr, ctx_, ""),
        two_(file, kernel, nullptr, ctx_, "'") {
    one_.collect();
    two_.collect();
  }
  ~GridRaceProof() {
    if (shared_scope_)
      shared_->pop();
  }
  GridRaceProof(const GridRaceProof &) = delete;
  GridRaceProof &operator=(const GridRaceProof &) = delete;

  // Root tensor → why its races between the pair's threads are not proved.
  // One proof object runs both pairs on the same terms and solver.
  std::map<std::string, std::string> run(Pair pair) {
    pair_ = pair;
    unproved_.clear();
    const auto &xs = one_.accesses();
    if (const Expr *alias = one_.unknown_alias())
      unproved_["every global tensor"] =
          "one is reached through " + quote(file_, *alias) + ", a name the proof does not follow";
    const bool threads = pair_ == Pair::ThreadsOfABlock;
    if (threads) {
      if (const Expr *alias = one_.unknown_shared_alias())
        unproved_["shared memory"] =
            "it is reached through " + quote(file_, *alias) + ", a name the proof does not follow";
      if (!one_.barriers_unmodeled().empty())
        unproved_["every tensor"] =
            "the barriers do not order all threads alike: " + one_.barriers_unmodeled();
      if (!unproved_.empty())
        return unproved_;
    }
    std::map<const sema::Symbol *, std::vector<size_t>> by_root;
    for (size_t i = 0; i < xs.size(); ++i)
      if (threads || !xs[i].shared)
        by_root[xs[i].root].push_back(i);
    for (const auto &[root, list] : by_root)
      prove_root(root, list);
    for (const auto &[root, use] : one_.opaque_uses())
      if (!by_root.count(root) && (threads || !one_.is_shared(root)))
        unproved_[root->name] = "it is used whole (" + quote(file_, *use) +
                                ": passed to a call, a method or an alias), which the proof "
                                "does not model";
    return unproved_;
  }

private:
  void prove_root(const sema::Symbol *root, const std::vector<size_t> &list) {
    const auto &xs = one_.accesses();
    const bool written =
        std::any_of(list.begin(), list.end(), [&](size_t i) { return xs[i].write; });
    auto opaque = one_.opaque_uses().find(root);
    if (opaque != one_.opaque_uses().end()) {
      unproved_[root->name] = "it is used whole (" + quote(file_, *opaque->second) +
                              ": passed to a call, a method or an alias), which the proof "
                              "does not model";
      return;
    }
    if (!written)
      return; // only read: no race
    for (size_t i : list) {
      if (!xs[i].exact) {
        unproved_[root->name] = "its index in " + quote(file_, *xs[i].subscript) +
                                " is not a closed form of sizes, block and thread ids and loop "
                                "variables (or lies under a condition or loop the proof does "
                                "not follow)";
        return;
      }
      const bool by_bytes = xs[i].byte_lo && xs[list.front()].byte_lo;
      if (xs[i].tensor != xs[list.front()].tensor && !by_bytes) {
        unproved_[root->name] = "it is accessed through views of different shapes (" +
                                quote(file_, *xs[list.front()].subscript) + ", " +
                                quote(file_, *xs[i].subscript) + ")";
        return;
      }
    }
    for (size_t a = 0; a < list.size(); ++a)
      for (size_t b = a; b < list.size(); ++b) {
        const size_t i = list[a], j = list[b];
        if (!xs[i].write && !xs[j].write)
          continue;
        if (xs[i].write && xs[j].write && covered_twice(report_, root->name))
          continue;
        if (race_reported_at(report_, *xs[i].subscript) ||
            race_reported_at(report_, *xs[j].subscript))
          continue;
        if (options_.cancelled() || options_.past_deadline()) {
          unproved_[root->name] = "the check ran past its time limit";
          return;
        }
        if (!prove_pair(root, i, j))
          return;
      }
  }

  z3::expr same_element(size_t i, size_t j) {
    const Access &x = one_.accesses()[i];
    const Access &y = two_.accesses()[j];
    z3::expr same = ctx_.bool_val(true);
    // Through two names of one shared buffer (a view): overlapping bytes.
    // Through one name, equal indices say the same and are cheaper for Z3
    // (gemm_tiled's race proof took 2x longer with byte ranges).
    if (x.tensor != y.tensor && x.byte_lo && y.byte_lo)
      same = *x.byte_lo < *y.byte_hi && *y.byte_lo < *x.byte_hi;
    else
      for (size_t d = 0; d < x.index.size() && d < y.index.size(); ++d)
        same = same && x.index[d] == y.index[d];
    const auto &p = one_.block_ids(), &q = two_.block_ids();
    if (pair_ == Pair::Blocks)
      return same && (p[0] != q[0] || p[1] != q[1] || p[2] != q[2]);
    const auto &t = one_.thread_ids(), &u = two_.thread_ids();
    return same && p[0] == q[0] && p[1] == q[1] && p[2] == q[2] &&
           (t[0] != u[0] || t[1] != u[1] || t[2] != u[2]) && x.epoch == y.epoch;
  }

  // Two threads of one block: the second copy's block ids are the first's.
  // Substituted rather than asserted equal: Z3's default solver does not
  // eliminate the equalities first, and with them gemm_tiled's C[m, n]
  // write/write pair took 18 ms instead of 7.
  z3::expr in_one_block(const z3::expr &e) {
    if (pair_ != Pair::ThreadsOfABlock)
      return e;
    z3::expr_vector from(ctx_), to(ctx_);
    for (size_t d = 0; d < 3; ++d) {
      from.push_back(two_.block_ids()[d]);
      to.push_back(one_.block_ids()[d]);
    }
    return z3::expr(e).substitute(from, to);
  }

  // One solver for every pair, the facts of both copies asserted once and
  // each pair in a scope of its own (a new default solver costs ~6 ms).
  z3::solver &solver() {
    if (shared_) {
      if (!shared_scope_) {
        shared_->push();
        shared_->add(two_.facts());
        shared_scope_ = true;
      }
      return *shared_;
    }
    if (!solver_) {
      solver_.emplace(ctx_);
      z3::params p(ctx_);
      p.set("timeout", options_.query_timeout_ms);
      solver_->set(p);
      solver_->add(one_.facts());
      solver_->add(two_.facts());
    }
    return *solver_;
  }

  // False when the root's proof stops (no answer, or a candidate that does not replay).
  bool prove_pair(const sema::Symbol *root, size_t i, size_t j) {
    const Access &x = one_.accesses()[i];
    const Access &y = two_.accesses()[j];
    z3::solver &solver = this->solver();
    solver.push();
    solver.add(x.on_path);
    solver.add(in_one_block(y.on_path && same_element(i, j)));
    const z3::check_result r = solver.check();
    const std::string why_unknown = r == z3::unknown ? solver.reason_unknown() : std::string();
    std::optional<z3::model> model_of_check;
    if (r == z3::sat)
      model_of_check = solver.get_model();
    solver.pop();
    if (r == z3::unsat) {
      ++report_.proofs;
      return true;
    }
    const std::string other = i == j ? "" : " and at " + quote(file_, *x.subscript);
    if (r == z3::unknown) {
      if (quiet_) {
        unproved_[root->name] = "Z3 gave no answer";
        return false;
      }
      report_.violations.push_back(
          grid_unproven(report_, y.subscript->range,
                        "could not prove within " + std::to_string(options_.query_timeout_ms) +
                            " ms that no two blocks touch the same element of " + root->name +
                            " here" + other + " (Z3: " + why_unknown + ")"));
      unproved_[root->name] = "Z3 gave no answer for " + quote(file_, *y.subscript);
      return false;
    }
    ++report_.proof_failures;
    // A small counterexample: the smallest sizes, then the lowest blocks.
    z3::optimize opt(ctx_);
    z3::params op(ctx_);
    op.set("timeout", options_.query_timeout_ms);
    opt.set(op);
    for (const auto &f : one_.facts())
      opt.add(f);
    for (const auto &f : two_.facts())
      opt.add(f);
    opt.add(x.on_path);
    opt.add(y.on_path);
    opt.add(same_element(i, j));
    opt.minimize(one_.size_sum());
    for (const auto *prover : {&one_, &two_})
      for (size_t d = 3; d-- > 0;)
        opt.minimize(prover->block_ids()[d]);
    z3::model model = opt.check() == z3::sat ? opt.get_model() : *model_of_check;
    const auto sizes = one_.sizes_of(model);
    const auto first = one_.block_of(model), second = two_.block_of(model);
    CheckerOptions concrete = options_;
    concrete.symbolic = false;
    concrete.unroll_bound = std::max<int64_t>(options_.unroll_bound, 1 << 16); // two blocks only
    Machine machine(file_, kernel_, concrete);
    if (pair_ == Pair::Blocks)
      machine.run(sizes, {first, second});
    else
      machine.run(sizes, {first});
    for (Violation &v : machine.take_violations())
      if (v.kind == "race" && (pair_ != Pair::Blocks || v.data.contains("other_block")) &&
          (v.range.begin == x.subscript->range.begin ||
           v.range.begin == y.subscript->range.begin)) {
        v.data["found_by"] = "z3";
        report_.violations.push_back(std::move(v));
        return true; // reported: the pairs left go on (those at its sites are skipped)
      }
    if (quiet_) {
      unproved_[root->name] = "Z3's candidate did not replay";
      return false;
    }
    std::string at;
    for (const auto &[k, value] : sizes)
      at += (at.empty() ? "" : ", ") + k + " = " + std::to_string(value);
    report_.violations.push_back(
        grid_unproven(report_, y.subscript->range,
                      "could not prove that no two blocks touch the same element of " + root->name +
                          " here" + other + ": Z3's candidate (" + at + (at.empty() ? "" : ", ") +
                          "blocks " + block_text(first) + " and " + block_text(second) +
                          ") did not replay on the interpreter"));
    unproved_[root->name] = "Z3's candidate for " + quote(file_, *y.subscript) + " did not replay";
    return false;
  }

  const CheckedFile &file_;
  const sema::FunctionInfo &kernel_;
  const CheckerOptions &options_;
  KernelReport &report_;
  Pair pair_ = Pair::Blocks;
  bool quiet_;
  z3::solver *shared_ = nullptr;
  bool shared_scope_ = false;
  z3::context &ctx_ = thread_z3_context();
  std::optional<z3::solver> solver_; // after ctx_: destroyed first
  BoundsProver one_, two_;
  std::map<std::string, std::string> unproved_;
};

} // namespace

void prove_grid_races(const CheckedFile &file, const sema::FunctionInfo &kernel,
                      const CheckerOptions &options, const std::string &sampled_grid,
                      KernelReport &report, ProofReach &reach) {
  // Every block of every instance ran: the interpreter's log already checked
  // each pair of blocks at those sizes, and the proof would only cost time.
  if (sampled_grid.empty())
    return;
  reach.grid_sampled = true;
  std::map<std::string, std::string> unproved;
  if (calls_in(*file.sema, *kernel.function).any(is_atomic))
    unproved["every global tensor"] =
        "the kernel updates memory atomically, which the proof does not model";
  else if (options.symbolic)
    unproved =
        GridRaceProof(file, kernel, options, report, reach.kernel_solver.get()).run(Pair::Blocks);
  else
    unproved["every global tensor"] = "the Z3 proofs are off";
  reach.grid_proved = unproved.empty();
  if (unproved.empty())
    return; // the proof covers the blocks that did not run
  std::string why;
  for (const auto &[name, reason] : unproved)
    why += (why.empty() ? "" : "; ") + name + ": " + reason;
  report.violations.push_back(grid_unproven(
      report, kernel.function->name_range,
      sampled_grid + ". Races between blocks are proved for every block by Z3 except on " + why +
          ": there, races between the blocks that did not run are not checked"));
}

namespace {

std::string reasons(const std::map<std::string, std::string> &unproved) {
  std::string why;
  for (const auto &[name, reason] : unproved)
    why += (why.empty() ? "" : "; ") + name + ": " + reason;
  return why;
}

} // namespace

bool prove_races_for_all_sizes(const CheckedFile &file, const sema::FunctionInfo &kernel,
                               const CheckerOptions &options, KernelReport &report,
                               ProofReach &reach) {
  if (!options.symbolic) {
    reach.races_why = "the Z3 proofs are off";
    return false;
  }
  if (report.interrupted || options.cancelled() || options.past_deadline()) {
    reach.races_why = "the check ran past its time limit";
    return false;
  }
  const Callees calls = calls_in(*file.sema, *kernel.function);
  // Intrinsics move shared memory (cp.async, ldmatrix) or registers across
  // lanes, and async copies land at a wait, not at the statement: neither is
  // in the access terms.
  if (calls.any(is_intrinsic) || calls.has(BuiltinId::AsyncCommit) ||
      calls.has(BuiltinId::AsyncWait)) {
    reach.races_why = "the kernel uses hardware intrinsics or async copies, which the proof "
                      "does not model";
    return false;
  }
  if (calls.has(BuiltinId::Syncwarp) || calls.has(BuiltinId::Barrier) ||
      calls.has(BuiltinId::BarrierArrive)) {
    reach.races_why = "the kernel orders warps with syncwarp() or named barriers, and the "
                      "proof's barrier intervals are block-wide";
    return false;
  }
  if (calls.any(is_atomic)) {
    // An atomic is a write that races only with plain accesses; the access
    // terms have no such kind.
    reach.races_why = "the kernel updates memory atomically, which the proof does not model";
    return false;
  }
  if (calls.device) {
    reach.races_why = "the proof does not inline @device functions' accesses";
    return false;
  }
  GridRaceProof proof(file, kernel, options, report, reach.kernel_solver.get(), true);
  const auto within = proof.run(Pair::ThreadsOfABlock);
  if (!within.empty()) {
    reach.races_why = "within a block, " + reasons(within);
    return false;
  }
  if (reach.grid_sampled) {
    if (!reach.grid_proved)
      reach.races_why = "between blocks, not every tensor was proved (W0901 says which)";
    return reach.grid_proved;
  }
  const auto between = proof.run(Pair::Blocks);
  if (!between.empty()) {
    reach.races_why = "between blocks, " + reasons(between);
    return false;
  }
  return true;
}

} // namespace argus::check::detail
