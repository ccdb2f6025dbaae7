// `argus agent optimize` (issue 14, items 4b, 5 and 6 in part): the
// optimization loop through the language server with the offline proposer.
//
//   open the kernel ─▶ pull diagnostics (must be clean) ─▶ its verification
//   summary ─▶ benchmark (the baseline) ─▶ repeat for the budget:
//     the planner picks an action for the kernel's features;
//     the offline proposer makes the candidate: a knob moved to a
//       neighbouring value, or the server's refactor code action of the
//       technique (techniques no code action applies are left to a model);
//     didChange ─▶ pull diagnostics: an error rejects it;
//     argus.verification: it must prove at least what the start proved, and
//       keep every assertion (an agent must not delete or weaken assert_tag
//       to get a clean check);
//     argus.benchmark (the runner in its own process): wrong numbers reject
//       it; a faster correct version becomes the best;
//   the best kernel, the trajectory (JSON Lines) and a report.
#pragma once

#include "argus/agent/knowledge_base.h"
#include "argus/agent/llm_proposer.h"
#include "argus/agent/lsp_client.h"
#include "argus/agent/planner.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace argus::agent {

struct OptimizeOptions {
  std::string file;   // the .argus file (read; never written)
  std::string kernel; // the kernel to optimize (its @bench times it)
  int budget = 20;    // steps
  // And/or wall-clock time: no round starts after it is spent (0: none).
  std::chrono::seconds time_budget{0};
  std::string target = "sm90";
  bool emit_only = false; // argus.benchmark with emitOnly (a runner that builds the sources)
  std::vector<std::string> runner_args;
  std::chrono::milliseconds benchmark_timeout{std::chrono::minutes(10)};
  // Knobs: module constants and the values to try; unset: every module
  // constant that is a power of two from 2 to 4096, tried from a quarter to
  // four times its value (discover_knobs); empty: no knob moves.
  std::optional<std::vector<Knob>> knobs;
  // A model endpoint for the techniques no code action applies; without one
  // the loop is offline. After a rejected version the model is asked again
  // with the server's diagnostics, up to `repair_rounds` times.
  std::optional<ModelOptions> model;
  int repair_rounds = 2;
  // Candidates evaluated at once, each by its own language server (and its
  // own runner process: with a Slurm template, its own job).
  int jobs = 1;
  // Where the best version (best.argus), the trajectory (trajectory.jsonl,
  // a line per step, written as each step ends), report.md and report.svg
  // go; empty: nowhere (the result only).
  std::string out_dir;
  // Continue the trajectory in out_dir: its steps are replayed into the
  // planner (no step is run again) and the budget counts them.
  bool resume = false;
  // Each benchmark gets `--seed N` with a new N, so a candidate never sees
  // the inputs of an earlier run (outputs cached between runs do not pass).
  bool fresh_inputs = true;
  // A version must accept every size the start accepted (its assumptions
  // hold at the start's check instances): a tile tuned to the bench's sizes
  // that refuses smaller or odd sizes is refused. Off: such versions count,
  // and only held-out sizes (argus agent eval) catch them.
  bool keep_sizes = true;
};

struct OptimizeResult {
  std::string best_text;
  double baseline_seconds = 0;
  double best_seconds = 0;
  nlohmann::json trajectory = nlohmann::json::array(); // one object per step
  std::string report;                                  // Markdown
  std::string plot;                                    // SVG: speed per step (speed_plot)
  int resumed_steps = 0;  // steps read back from the trajectory (--resume)
  bool exhausted = false; // the search ran out of candidates before the budget
};

// Speed per step as an SVG: the speedup over the baseline of each correct
// version (a point), the best so far (a line), failed steps (a cross on the
// axis) and, when `ceiling` > 0, the roofline's speedup (a dashed line).
std::string speed_plot(const nlohmann::json &trajectory, double baseline_seconds, double ceiling);

// The module constants of `text` that look like tuning knobs (see OptimizeOptions::knobs).
std::vector<Knob> discover_knobs(const std::string &text);
// `text` with the module constant `name` set to `value` (its line's comment kept);
// nullopt when there is no such constant.
std::optional<std::string> set_constant(const std::string &text, const std::string &name,
                                        int64_t value);
// Honest evaluation: whether `candidate` proves at least what `start` did
// (each property's verdict at least as strong: all-sizes > instances >
// absent / not-checked > violated) and keeps every assertion of the start's
// text; `why` says what it lost.
bool proves_at_least(const nlohmann::json &start_summary, const std::string &start_text,
                     const nlohmann::json &candidate_summary, const std::string &candidate_text,
                     std::string &why);
// Applies an LSP WorkspaceEdit's edits for `uri` to `text` (UTF-16 positions).
std::optional<std::string> apply_workspace_edit(const std::string &text, const nlohmann::json &edit,
                                                const std::string &uri);
// file:// URI of an absolute path.
std::string file_uri(const std::string &absolute_path);

// The loop with one language server per job (`clients.size()` >= options.jobs
// >= 1; the first proposes, each evaluates its share of a round).
OptimizeResult optimize(const std::vector<LspClient *> &clients, const KnowledgeBase &kb,
                        const OptimizeOptions &options,
                        const std::function<void(const std::string &)> &progress = {});
inline OptimizeResult optimize(LspClient &client, const KnowledgeBase &kb,
                               const OptimizeOptions &options,
                               const std::function<void(const std::string &)> &progress = {}) {
  return optimize(std::vector<LspClient *>{&client}, kb, options, progress);
}

// FNV-1a of a text: the trajectory's record of which start it continues.
std::string text_fingerprint(const std::string &text);

} // namespace argus::agent
