// The verification summary of a kernel (argus/dsl/verification.h): each
// property's verdict from the report's violations, what the kernel contains,
// and how far the Z3 proofs reached.
#include "summary.h"

#include <set>

namespace argus::check {

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
  case Verdict::AllSizes:
    return "all-sizes";
  case Verdict::Instances:
    return "instances";
  case Verdict::Violated:
    return "violated";
  case Verdict::NotChecked:
    return "not-checked";
  case Verdict::Absent:
    return "absent";
  }
  return "not-checked";
}

nlohmann::json to_json(const VerificationSummary &summary) {
  nlohmann::json properties = nlohmann::json::object();
  for (const PropertyVerdict &p : summary.properties)
    properties[p.property] = {{"verdict", verdict_name(p.verdict)}, {"detail", p.detail}};
  return {{"kernel", summary.kernel},
          {"instances", summary.instances},
          {"unproven", summary.unproven},
          {"properties", std::move(properties)}};
}

std::string summary_line(const VerificationSummary &summary) {
  // Properties grouped by verdict, in the order of the verdicts.
  std::string line = summary.kernel + ":";
  const std::string at = "at " + std::to_string(summary.instances.size()) + " instance" +
                         (summary.instances.size() == 1 ? "" : "s");
  bool first = true;
  for (Verdict v : {Verdict::Violated, Verdict::AllSizes, Verdict::Instances, Verdict::NotChecked,
                    Verdict::Absent}) {
    std::string names;
    for (const PropertyVerdict &p : summary.properties)
      if (p.verdict == v)
        names += (names.empty() ? "" : ", ") + p.property;
    if (names.empty())
      continue;
    const std::string what = v == Verdict::AllSizes    ? "proved for all sizes"
                             : v == Verdict::Instances ? "checked " + at
                                                       : std::string(verdict_name(v));
    line += (first ? " " : "; ") + names + " " + what;
    first = false;
  }
  if (summary.unproven > 0)
    line += "; " + std::to_string(summary.unproven) + " W0901 (not covered)";
  return line;
}

namespace detail {

namespace {

using ast::Expr;
using ast::ExprKind;

void callees_in(const sema::SemaResult &sema, const Expr &e, Callees &names,
                std::set<const ast::Function *> &walked);

void callees_in(const sema::SemaResult &sema, const std::vector<ast::StmtPtr> &body, Callees &names,
                std::set<const ast::Function *> &walked);

void callees_in(const sema::SemaResult &sema, const ast::Stmt &s, Callees &names,
                std::set<const ast::Function *> &walked) {
  for (const Expr *e : {s.value.get(), s.target.get(), s.annotation.get()})
    if (e)
      callees_in(sema, *e, names, walked);
  for (const auto &t : s.targets)
    callees_in(sema, *t, names, walked);
  callees_in(sema, s.body, names, walked);
  callees_in(sema, s.orelse, names, walked);
}

void callees_in(const sema::SemaResult &sema, const std::vector<ast::StmtPtr> &body, Callees &names,
                std::set<const ast::Function *> &walked) {
  for (const auto &s : body)
    callees_in(sema, *s, names, walked);
}

void callees_in(const sema::SemaResult &sema, const Expr &e, Callees &names,
                std::set<const ast::Function *> &walked) {
  if (e.kind == ExprKind::Call && !e.operands.empty()) {
    const sema::CallTarget target = sema.call_of(e);
    if (target.kind == sema::CallKind::Builtin)
      ++names.builtins[target.builtin];
    if (target.kind == sema::CallKind::Device && target.device) {
      names.device = true;
      if (const sema::FunctionInfo *fn = sema.function_info(target.device->name))
        for (const sema::Symbol *p : fn->params)
          if (p && p->type.is_tensor())
            names.device_tensors = true;
      if (walked.insert(target.device).second)
        callees_in(sema, target.device->body, names, walked);
    }
  }
  for (const auto &x : e.operands)
    if (x)
      callees_in(sema, *x, names, walked);
  for (const auto &k : e.keywords)
    if (k.value)
      callees_in(sema, *k.value, names, walked);
}

} // namespace

Callees calls_in(const sema::SemaResult &sema, const ast::Function &kernel) {
  Callees calls;
  std::set<const ast::Function *> walked;
  callees_in(sema, kernel.body, calls, walked);
  return calls;
}

Callees calls_in(const sema::SemaResult &sema, const ast::Stmt &stmt) {
  Callees calls;
  std::set<const ast::Function *> walked;
  callees_in(sema, stmt, calls, walked);
  return calls;
}

namespace {

// The property an error violation breaks.
std::string property_of(const Violation &v) {
  if (v.kind == "tag-mismatch")
    return v.check == "store" ? "stores" : v.check == "mma-operands" ? "operands" : "tags";
  if (v.kind == "operand-layout")
    return "operands";
  if (v.kind == "race")
    return "races";
  if (v.kind == "out-of-bounds")
    return "bounds";
  if (v.kind == "uninitialized-read")
    return "initialization";
  if (v.kind == "barrier-divergence")
    return "barriers";
  if (v.kind == "async-read-before-wait")
    return "async";
  if (v.kind == "not-covered" || v.kind == "covered-twice")
    return "coverage";
  return "";
}

} // namespace

VerificationSummary summarize(const CheckedFile &file, const sema::FunctionInfo &kernel,
                              const CheckerOptions &options, const KernelReport &report,
                              const ProofReach &reach) {
  VerificationSummary out;
  out.kernel = report.kernel;
  out.instances = report.instances;
  std::map<std::string, int> errors;
  for (const Violation &v : report.violations) {
    if (v.kind == "unproven")
      ++out.unproven;
    else if (!v.warning)
      ++errors[property_of(v)];
  }
  const Callees calls = calls_in(*file.sema, *kernel.function);
  const bool has_wgmma = calls.any(is_wgmma);
  const bool has_mma = calls.any(is_matrix_multiply) || has_wgmma;
  const bool has_async = calls.any(is_cp_async) || calls.has(BuiltinId::AsyncCommit) ||
                         calls.has(BuiltinId::AsyncWait) || has_wgmma;

  const std::string at = "at the " + std::to_string(report.instances.size()) + " size instance" +
                         (report.instances.size() == 1 ? "" : "s") +
                         " the interpreter ran, every thread of every block it ran";
  const std::string not_symbolic = "; not proved for all sizes (the Z3 proofs cover global "
                                   "indices, races, tags and stores only)";
  std::string not_checked;
  if (report.interrupted)
    not_checked = "the check was cut short (cancelled or past its time limit)";
  else if (report.instances.empty())
    not_checked = "no size instance ran (no sizes satisfy the assumptions, or none were found)";

  const auto add = [&](const std::string &property, bool present, Verdict verdict,
                       std::string detail) {
    PropertyVerdict p{property, verdict, std::move(detail)};
    if (auto it = errors.find(property); it != errors.end()) {
      p.verdict = Verdict::Violated;
      p.detail = std::to_string(it->second) + " error" + (it->second == 1 ? "" : "s");
    } else if (!not_checked.empty()) {
      p.verdict = Verdict::NotChecked;
      p.detail = not_checked;
    } else if (!present) {
      p.verdict = Verdict::Absent;
      p.detail = "the kernel has none";
    }
    out.properties.push_back(std::move(p));
  };

  // Global bounds: for all sizes when every global access is one the prover
  // translated and each of its indices was proved.
  if (!options.symbolic) {
    add("bounds", true, Verdict::Instances, at + "; the Z3 proofs are off");
  } else if (calls.device_tensors) {
    add("bounds", true, Verdict::Instances,
        std::to_string(reach.global_proved) + " of " + std::to_string(reach.global_accesses) +
            " global accesses of the kernel's body proved for all sizes by Z3; the accesses "
            "inside @device functions that take tensors (the proof does not inline them) " +
            at);
  } else if (reach.global_accesses == reach.global_proved && reach.opaque_tensors.empty()) {
    add("bounds", true, Verdict::AllSizes,
        "every global index (" + std::to_string(reach.global_accesses) +
            " accesses) proved in bounds by Z3 for all sizes, blocks, threads and iterations; "
            "shared and register indices " +
            at);
  } else {
    std::string why = std::to_string(reach.global_proved) + " of " +
                      std::to_string(reach.global_accesses) +
                      " global accesses proved for all sizes by Z3";
    if (!reach.opaque_tensors.empty()) {
      std::string names;
      for (const std::string &n : reach.opaque_tensors)
        names += (names.empty() ? "" : ", ") + n;
      why += "; " + names +
             " also used whole (passed on, or through a view the prover does "
             "not follow)";
    }
    add("bounds", true, Verdict::Instances,
        why + "; the rest (indices that are not closed forms, or not proved) " + at);
  }
  std::string races = "within a block: " + at + "; between blocks: ";
  if (reach.grid_sampled)
    races += reach.grid_proved ? "proved for every block pair by Z3 (the interpreter sampled "
                                 "the grid)"
                               : "only among the blocks the interpreter ran (W0901 says which)";
  else
    races += "every block of each instance ran";
  if (reach.races_proved)
    add("races", true, Verdict::AllSizes,
        std::string("no two threads of one block touch one element (global or shared) where one "
                    "writes it") +
            (calls.has(BuiltinId::Syncthreads) ? " between the same two barriers" : "") +
            ", and no two blocks one global element, proved by Z3 for all sizes");
  else
    add("races", true, Verdict::Instances,
        races + "; not proved for all sizes: " +
            (reach.races_why.empty() ? "the proof did not cover the kernel" : reach.races_why));
  const std::string history = " (every write a read can see, in every block, thread and "
                              "iteration), given that reads see written memory "
                              "(`initialization`)";
  if (reach.tags_proved)
    add("tags", calls.has(BuiltinId::AssertTag) || calls.has(BuiltinId::AssertTagEq),
        Verdict::AllSizes, "every assert_tag field proved by Z3 for all sizes" + history);
  else
    add("tags", calls.has(BuiltinId::AssertTag) || calls.has(BuiltinId::AssertTagEq),
        Verdict::Instances,
        at + "; not proved for all sizes: " +
            (reach.tags_why.empty() ? "the proof did not run" : reach.tags_why));
  if (reach.stores_proved)
    add("stores", calls.has(BuiltinId::Tag), Verdict::AllSizes,
        "every store into a tagged tensor delivers the element's fields, proved by Z3 for all "
        "sizes" +
            history);
  else
    add("stores", calls.has(BuiltinId::Tag), Verdict::Instances,
        "the store contract of tagged tensors " + at + "; not proved for all sizes: " +
            (reach.stores_why.empty() ? "the proof did not run" : reach.stores_why));
  if (reach.operands_proved)
    add("operands", has_mma, Verdict::AllSizes,
        "A's column k and B's row k of every matrix instruction agree on every field both "
        "carry, for every k, proved by Z3 for all sizes" +
            history);
  else
    add("operands", has_mma, Verdict::Instances,
        "the matrix-instruction operand contract " + at + "; not proved for all sizes: " +
            (reach.operands_why.empty() ? "the proof did not run" : reach.operands_why));
  add("initialization", true, Verdict::Instances,
      "reads of shared and register memory before any write " + at);
  add("barriers",
      calls.has(BuiltinId::Syncthreads) || calls.has(BuiltinId::Barrier) ||
          calls.has(BuiltinId::BarrierArrive) || calls.has(BuiltinId::ClusterSync),
      Verdict::Instances, at);
  add("async", has_async, Verdict::Instances, at);
  add("coverage", calls.has(BuiltinId::AssertCovered), Verdict::Instances, at + not_symbolic);
  return out;
}

} // namespace detail

} // namespace argus::check
