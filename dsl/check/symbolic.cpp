// Z3 proofs that every global-memory index stays inside its tensor, for all
// sizes allowed by assume(...), all blocks, threads and loop iterations.
#include "symbolic.h"

#include "machine.h"
#include "prover.h"

#include <optional>
#include <set>

namespace argus::check::detail {

namespace {

Violation unproven(const KernelReport &report, const Expr &at, const std::string &message) {
  Violation v;
  v.kind = "unproven";
  v.check = "bounds";
  v.range = at.range;
  v.warning = true;
  v.message = message;
  v.data = {
      {"kind", "unproven"},
      {"check", "bounds"},
      {"kernel", report.kernel},
      {"program_point", {{"line", at.range.begin.line}, {"character", at.range.begin.column}}},
      {"fixes", nlohmann::json::array()}};
  return v;
}

} // namespace

void prove_symbolically(const CheckedFile &file, const sema::FunctionInfo &kernel,
                        const CheckerOptions &options, KernelReport &report, ProofReach &reach) {
  z3::context &ctx = thread_z3_context();
  BoundsProver prover(file, kernel, nullptr, ctx);
  std::vector<Query> queries = prover.collect();
  // An access is proved for all sizes when the prover translated each of its
  // indices (exact) and every one of their queries is unsat.
  std::map<const Expr *, int64_t> open_queries;
  for (const Query &q : queries)
    ++open_queries[q.subscript];
  const auto count_reach = [&] {
    reach.global_proved = 0;
    reach.global_accesses = 0;
    for (const Access &a : prover.accesses()) {
      if (a.shared)
        continue; // bounds of shared memory are the interpreter's
      ++reach.global_accesses;
      if (a.exact && open_queries[a.subscript] == 0)
        ++reach.global_proved;
    }
    for (const auto &[root, use] : prover.opaque_uses())
      if (!prover.is_shared(root))
        reach.opaque_tensors.insert(root->name);
    if (prover.unknown_alias())
      reach.opaque_tensors.insert("a tensor through an alias");
  };
  std::set<std::pair<uint32_t, uint32_t>> reported;
  for (const Violation &v : report.violations)
    if (v.kind == "out-of-bounds")
      reported.insert({v.range.begin.line, v.range.begin.column});
  std::set<const Expr *> done;
  // One solver for the kernel's queries, each in a scope of its own: a new
  // default solver costs ~6 ms to create and first check (its tactic
  // framework), a scope ~0.1 ms.
  reach.kernel_solver = std::make_shared<z3::solver>(prover.ctx());
  z3::solver &solver = *reach.kernel_solver;
  z3::params p(prover.ctx());
  p.set("timeout", options.query_timeout_ms);
  solver.set(p);
  solver.add(prover.facts());
  for (Query &q : queries) {
    const auto site =
        std::make_pair(q.subscript->range.begin.line, q.subscript->range.begin.column);
    if (reported.count(site) || done.count(q.subscript))
      continue;
    // Between queries only: Z3 4.8.12 (Debian 12) can crash when a context is
    // interrupted from another thread (Z3_interrupt), even one solving alone,
    // so a query in flight runs to its own timeout (queryTimeoutMs).
    if (options.cancelled() || options.past_deadline()) {
      // The caller marks the report interrupted (never cached); a late check
      // says what it did not prove instead of passing over it in silence.
      if (!options.cancelled())
        report.violations.push_back(unproven(
            report, *q.subscript,
            "the check ran past its time limit: this index and those after it were not proved"));
      count_reach();
      return;
    }
    solver.push();
    solver.add(q.violated);
    const z3::check_result r = solver.check();
    const std::string why_unknown = r == z3::unknown ? solver.reason_unknown() : std::string();
    std::optional<z3::model> model_of_check;
    if (r == z3::sat)
      model_of_check = solver.get_model();
    solver.pop();
    if (r == z3::unsat) {
      ++report.proofs;
      --open_queries[q.subscript];
      continue;
    }
    done.insert(q.subscript);
    if (r == z3::unknown) {
      report.violations.push_back(
          unproven(report, *q.subscript,
                   "could not prove this index within bounds for all sizes within " +
                       std::to_string(options.query_timeout_ms) + " ms (Z3: " + why_unknown + ")"));
      continue;
    }
    ++report.proof_failures;
    if (q.uses_contents) {
      // Z3's contents satisfy instances of the facts only; the interpreter ran
      // the content choices and found nothing here.
      report.violations.push_back(unproven(
          report, *q.subscript,
          "could not prove this index within bounds for all tensor contents the assumptions "
          "allow: it holds at the contents the checker ran, but Z3 found others (state a bound "
          "on the elements read: assume(0 <= t[i] <= n for i in range(...)))"));
      continue;
    }
    // A small counterexample: minimize the sizes, then replay it concretely.
    z3::optimize opt(prover.ctx());
    z3::params op(prover.ctx());
    op.set("timeout", options.query_timeout_ms);
    opt.set(op);
    for (const auto &f : prover.facts())
      opt.add(f);
    opt.add(q.violated);
    opt.minimize(prover.size_sum());
    z3::model model = opt.check() == z3::sat ? opt.get_model() : *model_of_check;
    const auto sizes = prover.sizes_of(model);
    const auto block = prover.block_of(model);
    CheckerOptions concrete = options;
    concrete.symbolic = false;
    // One block only: long loops of a large model run in full.
    concrete.unroll_bound = std::max<int64_t>(options.unroll_bound, 1 << 16);
    Machine machine(file, kernel, concrete);
    machine.run(sizes, {block});
    bool replayed = false;
    for (Violation &v : machine.take_violations())
      if (v.kind == "out-of-bounds" && v.range.begin == q.subscript->range.begin) {
        v.data["found_by"] = "z3";
        report.violations.push_back(std::move(v));
        reported.insert(site);
        replayed = true;
        break;
      }
    if (!replayed) {
      std::string at;
      for (const auto &[k, x] : sizes)
        at += (at.empty() ? "" : ", ") + k + " = " + std::to_string(x);
      report.violations.push_back(
          unproven(report, *q.subscript,
                   "could not prove this index within bounds for all sizes: Z3's candidate (" + at +
                       ", block (" + std::to_string(block[0]) + "," + std::to_string(block[1]) +
                       ")) did not replay on the interpreter"));
    }
  }
  count_reach();
}

std::map<std::pair<uint32_t, uint32_t>, bool>
bounds_verdicts_at(const CheckedFile &file, const sema::FunctionInfo &kernel,
                   const std::map<std::string, int64_t> &sizes, unsigned timeout_ms) {
  z3::context &ctx = thread_z3_context();
  BoundsProver prover(file, kernel, &sizes, ctx);
  std::map<std::pair<uint32_t, uint32_t>, bool> out;
  for (Query &q : prover.collect()) {
    if (q.uses_contents)
      continue; // decided by contents, not by the sizes alone
    const auto site =
        std::make_pair(q.subscript->range.begin.line, q.subscript->range.begin.column);
    z3::solver solver(prover.ctx());
    z3::params p(prover.ctx());
    p.set("timeout", timeout_ms);
    solver.set(p);
    solver.add(prover.facts());
    solver.add(q.violated);
    const bool bad = solver.check() == z3::sat;
    out[site] = out[site] || bad;
  }
  return out;
}

} // namespace argus::check::detail
