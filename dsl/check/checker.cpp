// The checker's driver: instances, executions, symbolic proofs, fixes,
// caching per kernel, and the conversion of violations to diagnostics.
#include "argus/dsl/checker.h"

#include "argus/dsl/codes.h"
#include "contents.h"
#include "fixes.h"
#include "instances.h"
#include "machine.h"
#include "relocate.h"
#include "run_outcome.h"
#include "symbolic.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <unordered_set>

namespace argus::check {

namespace {

uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool is_docstring(TSNode statement) {
  // The first statement of a function body that is a lone string: the AST
  // leaves it out, so the checker never sees it.
  if (std::string_view(ts_node_type(statement)) != "expression_statement" ||
      ts_node_named_child_count(statement) != 1 ||
      std::string_view(ts_node_type(ts_node_named_child(statement, 0))) != "string")
    return false;
  const TSNode block = ts_node_parent(statement);
  return !ts_node_is_null(block) && std::string_view(ts_node_type(block)) == "block" &&
         ts_node_eq(ts_node_named_child(block, 0), statement) &&
         std::string_view(ts_node_type(ts_node_parent(block))) == "function_definition";
}

// Hashes the tokens of bytes [begin, end) with their lines counted from the
// range's first line and their columns as they are, leaving out comments and
// docstrings. Text that moved up or down keeps its hash (its report is
// shifted: relocate.h); typing in a comment or a docstring, or trailing
// spaces, does not change it; a token that moved inside the range does. A
// range that moved sideways (rare: functions and constants start lines) gets
// another hash, so a report never needs a column shift.
uint64_t hash_tokens(const CheckedFile &file, Range range, uint64_t h) {
  const uint32_t begin = static_cast<uint32_t>(file.source->offset(range.begin));
  const uint32_t end = static_cast<uint32_t>(file.source->offset(range.end));
  const std::string &text = file.source->text();
  TSTreeCursor cursor = ts_tree_cursor_new(file.tree->root());
  for (bool more = true; more;) {
    const TSNode node = ts_tree_cursor_current_node(&cursor);
    const bool outside = ts_node_end_byte(node) <= begin || ts_node_start_byte(node) >= end;
    const bool skipped =
        outside || std::string_view(ts_node_type(node)) == "comment" || is_docstring(node);
    if (!skipped && ts_tree_cursor_goto_first_child(&cursor))
      continue;
    if (!skipped) {
      const TSPoint at = ts_node_start_point(node);
      const int64_t row = static_cast<int64_t>(at.row) - static_cast<int64_t>(range.begin.line);
      const uint32_t from = std::max(ts_node_start_byte(node), begin);
      const uint32_t to = std::min(ts_node_end_byte(node), end);
      h = fnv1a(std::to_string(row) + ":" + std::to_string(at.column) + ":", h);
      h = fnv1a(std::string_view(text).substr(from, to - from), h);
    }
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        more = false;
        break;
      }
    }
  }
  ts_tree_cursor_delete(&cursor);
  return h;
}

// The identifiers in bytes [begin, end) of `range`.
void names_in(const CheckedFile &file, Range range, std::set<std::string> &out) {
  const uint32_t begin = static_cast<uint32_t>(file.source->offset(range.begin));
  const uint32_t end = static_cast<uint32_t>(file.source->offset(range.end));
  TSTreeCursor cursor = ts_tree_cursor_new(file.tree->root());
  for (bool more = true; more;) {
    const TSNode node = ts_tree_cursor_current_node(&cursor);
    const bool outside = ts_node_end_byte(node) <= begin || ts_node_start_byte(node) >= end;
    if (!outside && std::string_view(ts_node_type(node)) == "identifier")
      out.insert(file.source->text().substr(ts_node_start_byte(node),
                                            ts_node_end_byte(node) - ts_node_start_byte(node)));
    else if (!outside && ts_tree_cursor_goto_first_child(&cursor))
      continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        more = false;
        break;
      }
    }
  }
  ts_tree_cursor_delete(&cursor);
}

// The module constants and @device functions the kernel names, and those they
// name in turn, in source order: all its result can depend on besides its own
// text. By name, not by resolution: a local that shadows a constant only adds
// it needlessly. Without a tree, every one of them.
std::vector<Range> kernel_dependencies(const CheckedFile &file, const sema::FunctionInfo &kernel) {
  std::map<std::string, Range> named; // constants and @device functions by name
  for (const auto &c : file.module.constants)
    named.emplace(c.name, c.range);
  for (const auto &fn : file.sema->functions)
    if (fn.role == sema::FunctionRole::Device && fn.function)
      named.emplace(fn.function->name, fn.function->range);
  std::vector<Range> out;
  if (!file.tree || !*file.tree) {
    for (const auto &[name, range] : named)
      out.push_back(range);
  } else {
    std::set<std::string> seen;
    std::vector<Range> todo{kernel.function->range};
    while (!todo.empty()) {
      const Range range = todo.back();
      todo.pop_back();
      std::set<std::string> names;
      names_in(file, range, names);
      for (const std::string &name : names)
        if (auto it = named.find(name); it != named.end() && seen.insert(name).second) {
          out.push_back(it->second);
          todo.push_back(it->second);
        }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Range &a, const Range &b) { return a.begin < b.begin; });
  return out;
}

struct KernelKey {
  uint64_t hash = 0;
  std::vector<Range> segments; // KernelReport::segments of this text
};

// The kernel (its range holds its decorators) and the constants and @device
// functions it depends on (kernel_dependencies), as tokens with positions
// relative to each one's start (hash_tokens), and the options: what its
// result can depend on. Editing another kernel, a constant or function it does
// not use, a comment, or moving text up or down leaves the hash unchanged;
// the segments say where each piece is now.
KernelKey kernel_key(const CheckedFile &file, const sema::FunctionInfo &kernel,
                     const CheckerOptions &options) {
  KernelKey key;
  const auto add = [&](const Range &range, uint64_t h) {
    key.segments.push_back(range);
    if (file.tree && *file.tree)
      return hash_tokens(file, range, fnv1a("|", h));
    return fnv1a(
        std::to_string(range.begin.column) + ":" + std::string(file.source->text_in(range)), h);
  };
  uint64_t h = add(kernel.function->range, fnv1a("kernel"));
  for (const Range &range : kernel_dependencies(file, kernel))
    h = add(range, h);
  h = fnv1a(std::to_string(options.fixes), h);
  h = fnv1a(std::to_string(options.unroll_bound) + "/" + std::to_string(options.max_blocks) + "/" +
                std::to_string(options.query_timeout_ms) + "/" + std::to_string(options.symbolic) +
                std::to_string(options.max_steps) + "/" + std::to_string(options.max_block_cells) +
                std::to_string(options.lints) + "/" + std::to_string(options.max_global_cells),
            h);
  for (const auto *list : {&options.forced_instances, &options.extra_instances})
    for (const auto &inst : *list) {
      for (const auto &[k, v] : inst)
        h = fnv1a(k + "=" + std::to_string(v), h);
      h = fnv1a(";", h);
    }
  key.hash = h;
  return key;
}

} // namespace

std::optional<KernelReport> CheckCache::find(uint64_t key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = reports_.find(key);
  if (it == reports_.end())
    return std::nullopt;
  return it->second;
}

void CheckCache::store(uint64_t key, const KernelReport &report) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (reports_.insert_or_assign(key, report).second)
    order_.push_back(key);
  while (reports_.size() > capacity_) {
    reports_.erase(order_.front());
    order_.pop_front();
  }
}

size_t CheckCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reports_.size();
}

void CheckCache::count_proved() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.proved;
}

void CheckCache::count_reused(bool moved) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.reused;
  stats_.moved += moved ? 1 : 0;
}

CheckCache::Stats CheckCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

namespace detail {

// The report of a kernel the check did not reach before it was cancelled or
// ran past its deadline.
KernelReport not_checked(const sema::FunctionInfo &kernel, const std::string &why) {
  KernelReport report;
  report.kernel = kernel.function->name;
  report.interrupted = true; // never cached
  report.summary.kernel = report.kernel;
  Violation v;
  v.kind = "unproven";
  v.check = "budget";
  v.range = kernel.function->name_range;
  v.warning = true;
  v.message = why;
  v.data = {{"kind", "unproven"},
            {"check", "budget"},
            {"kernel", report.kernel},
            {"thread", nullptr},
            {"fixes", nlohmann::json::array()}};
  report.violations.push_back(std::move(v));
  return report;
}

namespace {

void device_calls(const sema::SemaResult &sema, const ast::Expr &e,
                  std::vector<const ast::Function *> &out) {
  if (e.kind == ast::ExprKind::Call && !e.operands.empty())
    if (const sema::CallTarget target = sema.call_of(e);
        target.kind == sema::CallKind::Device && target.device)
      out.push_back(target.device);
  for (const auto &x : e.operands)
    if (x)
      device_calls(sema, *x, out);
  for (const auto &k : e.keywords)
    if (k.value)
      device_calls(sema, *k.value, out);
}

void collect_unreached(const sema::SemaResult &sema, const std::vector<ast::StmtPtr> &body,
                       const std::unordered_set<const ast::Stmt *> &visited,
                       std::set<const ast::Function *> &walked,
                       std::vector<const ast::Stmt *> &out) {
  for (const auto &s : body) {
    if (!visited.count(s.get())) {
      out.push_back(s.get()); // its nested statements are not reached either
      continue;
    }
    std::vector<const ast::Function *> callees;
    for (const ast::Expr *e : {s->value.get(), s->target.get(), s->annotation.get()})
      if (e)
        device_calls(sema, *e, callees);
    for (const auto &t : s->targets)
      device_calls(sema, *t, callees);
    for (const ast::Function *f : callees)
      if (walked.insert(f).second)
        collect_unreached(sema, f->body, visited, walked, out);
    collect_unreached(sema, s->body, visited, walked, out);
    collect_unreached(sema, s->orelse, visited, walked, out);
  }
}

// The loops around `target` in `body`, outermost first (empty when it is
// not in `body`).
bool find_enclosing(const std::vector<ast::StmtPtr> &body, const ast::Stmt *target,
                    std::vector<const ast::Stmt *> &path) {
  for (const auto &s : body) {
    if (s.get() == target)
      return true;
    const bool loop = s->kind == ast::StmtKind::For || s->kind == ast::StmtKind::While;
    if (loop)
      path.push_back(s.get());
    if (find_enclosing(s->body, target, path) || find_enclosing(s->orelse, target, path))
      return true;
    if (loop)
      path.pop_back();
  }
  return false;
}

} // namespace

std::vector<const ast::Stmt *> enclosing_loops(const std::vector<ast::StmtPtr> &body,
                                               const ast::Stmt *target) {
  std::vector<const ast::Stmt *> path;
  if (!find_enclosing(body, target, path))
    path.clear();
  return path;
}

// The outermost statements of the kernel, and of the @device functions its
// executed statements call, that no thread executed.
std::vector<const ast::Stmt *>
unreached_statements(const sema::SemaResult &sema, const ast::Function &kernel,
                     const std::unordered_set<const ast::Stmt *> &visited) {
  std::vector<const ast::Stmt *> out;
  std::set<const ast::Function *> walked;
  collect_unreached(sema, kernel.body, visited, walked, out);
  return out;
}

// "the grid of 128 blocks at sizes {...}: the interpreter ran blocks 0, 1, 126, 127 ...".
std::string sampled_grid_text(const std::map<std::string, int64_t> &sizes,
                              const std::array<int64_t, 3> &grid,
                              const std::vector<std::array<int64_t, 3>> &blocks) {
  const int dims = grid[2] > 1 ? 3 : grid[1] > 1 ? 2 : 1;
  std::string shape, ran;
  for (int d = 0; d < dims; ++d)
    shape += (d ? " x " : "") + std::to_string(grid[static_cast<size_t>(d)]);
  for (const auto &b : blocks) {
    std::string one;
    for (int d = 0; d < dims; ++d)
      one += (d ? "," : "") + std::to_string(b[static_cast<size_t>(d)]);
    ran += (ran.empty() ? "" : ", ") + (dims > 1 ? "(" + one + ")" : one);
  }
  const int64_t total = grid[0] * grid[1] * grid[2];
  return "the grid of " + std::to_string(total) + " blocks" +
         (dims > 1 ? " (" + shape + ")" : std::string()) + " at sizes " +
         nlohmann::json(sizes).dump() + " is larger than the interpreter runs: it ran blocks " +
         ran + " only (the first and last two of each dimension), not the others";
}

// `sampled_grid`: the first instance whose grid was larger than max_blocks
// and which of its blocks ran (left empty when every block of every instance ran).
KernelReport execute(const CheckedFile &file, const sema::FunctionInfo &kernel,
                     const CheckerOptions &options, std::string &sampled_grid) {
  KernelReport report;
  report.kernel = kernel.function->name;
  std::vector<std::map<std::string, int64_t>> instances = options.forced_instances;
  if (instances.empty()) {
    InstanceChoice choice = choose_instances(file, kernel, options.query_timeout_ms);
    for (const ast::Expr *a : choice.untranslated) {
      Violation v;
      v.kind = "unproven";
      v.check = "assume";
      v.range = a->range;
      v.warning = true;
      v.message = "this assumption is outside what the checker can reason about (integer "
                  "arithmetic, comparisons, and/or/not); sizes were chosen without it";
      v.data = {{"kind", "unproven"},
                {"check", "assume"},
                {"kernel", report.kernel},
                {"fixes", nlohmann::json::array()}};
      report.violations.push_back(std::move(v));
    }
    if (choice.unsatisfiable) {
      Violation v;
      v.kind = "unproven";
      v.check = "assume";
      v.range = kernel.function->name_range;
      v.warning = true;
      v.message = "no sizes satisfy the assumptions of kernel '" + report.kernel +
                  "' (or Z3 found none within " + std::to_string(options.query_timeout_ms) +
                  " ms): nothing was checked";
      v.data = {{"kind", "unproven"},
                {"check", "assume"},
                {"kernel", report.kernel},
                {"fixes", nlohmann::json::array()}};
      report.violations.push_back(std::move(v));
    }
    for (const auto &[param, tried] : choice.sampled) {
      std::string values;
      for (int64_t x : tried)
        values += (values.empty() ? "" : ", ") + std::to_string(x);
      Violation v;
      v.kind = "unproven";
      v.check = "assume";
      v.range = kernel.function->name_range;
      for (const ast::Param &fp : kernel.function->params)
        if (fp.name == param->name)
          v.range = fp.range;
      v.warning = true;
      v.message = "no assume bounds '" + param->name +
                  "' on every side: the kernel was checked "
                  "only with " +
                  param->name + " in {" + values +
                  "} (state its range: assume(0 <= " + param->name + ", " + param->name + " < n))";
      v.data = {{"kind", "unproven"},
                {"check", "assume"},
                {"kernel", report.kernel},
                {"fixes", nlohmann::json::array()}};
      report.violations.push_back(std::move(v));
    }
    instances = choice.instances;
  }
  // Sizes asked for on top (argus check --sizes): completed from the
  // smallest instance, run only when they satisfy the assumptions.
  for (const auto &extra : options.extra_instances) {
    std::map<std::string, int64_t> sizes = instances.empty() ? extra : instances.front();
    bool relevant = false;
    for (const auto &[name, value] : extra)
      if (sizes.count(name)) {
        sizes[name] = value;
        relevant = true;
      }
    if (!relevant)
      continue;
    if (!satisfies_assumptions(file, kernel, sizes, options.query_timeout_ms)) {
      Violation v;
      v.kind = "unproven";
      v.check = "sizes";
      v.range = kernel.function->name_range;
      v.warning = true;
      v.message = "the sizes " + nlohmann::json(sizes).dump() +
                  " do not satisfy the assumptions of '" + report.kernel + "': not run";
      v.data = {{"kind", "unproven"},
                {"check", "sizes"},
                {"kernel", report.kernel},
                {"sizes", sizes},
                {"fixes", nlohmann::json::array()}};
      report.violations.push_back(std::move(v));
      continue;
    }
    instances.push_back(sizes);
  }
  std::set<std::pair<std::string, std::pair<uint32_t, uint32_t>>> seen;
  std::unordered_set<const ast::Stmt *> visited; // over all instances
  bool stopped = false;
  // Runs in order: every size instance, at each of its content choices.
  struct Run {
    std::map<std::string, int64_t> sizes;
    Contents contents;
  };
  std::vector<Run> runs;
  std::set<const ast::Expr *> content_failures;
  // The runs of one size instance: one per content choice.
  auto add_runs = [&](const std::map<std::string, int64_t> &sizes) {
    ContentChoice contents = choose_contents(file, kernel, sizes, options.query_timeout_ms);
    if (!contents.failure.empty()) {
      const ast::Expr *at = contents.failed_at;
      if (content_failures.insert(at).second) {
        Violation v;
        v.kind = "unproven";
        v.check = "assume";
        v.range = at ? at->range : kernel.function->name_range;
        v.warning = true;
        v.message = contents.failure;
        v.data = {{"kind", "unproven"},
                  {"check", "assume"},
                  {"kernel", report.kernel},
                  {"sizes", sizes},
                  {"fixes", nlohmann::json::array()}};
        report.violations.push_back(std::move(v));
      }
      if (contents.choices.empty() && !at)
        return; // no contents satisfy the facts at these sizes: nothing to run
    }
    if (contents.choices.empty())
      runs.push_back(Run{sizes, {}});
    for (auto &c : contents.choices)
      runs.push_back(Run{sizes, std::move(c)});
  };
  for (const auto &sizes : instances)
    add_runs(sizes);
  std::unordered_map<const ast::Stmt *, int64_t> loop_iterations; // over all runs
  // The same per instance: a loop is grown from an instance where it ran.
  std::map<std::map<std::string, int64_t>, std::unordered_map<const ast::Stmt *, int64_t>>
      iterations_at;
  // Runs `runs[from..]`, up to options.run_threads at once, merged in the
  // runs' order (the report is the same as one run after the other); false
  // once the check was interrupted.
  auto execute_runs = [&](size_t from) {
    std::vector<std::optional<RunOutcome>> outcomes(runs.size());
    std::mutex done_mutex;
    std::condition_variable done;
    // The largest runs first (the most global elements; among equals the
    // later: later content choices are the fuller ones), so that the short
    // ones fill in at the end. Every run is taken: an interrupted check
    // (cancel, deadline) ends each of them at once.
    // (One run thread takes them in order: no sizes to estimate.)
    std::atomic<size_t> taken{0};
    std::vector<size_t> order;
    for (size_t r = runs.size(); r-- > from;)
      order.push_back(r);
    std::vector<double> size_of(runs.size(), 0.0);
    double total = 0;
    if (options.run_threads > 1)
      for (size_t r : order) {
        size_of[r] = static_cast<double>(
            global_elements(file, kernel, runs[r].sizes).value_or(int64_t{1} << 40));
        total += size_of[r];
      }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return size_of[a] > size_of[b]; });
    // A run larger than all the others together (or alone) would keep one
    // thread busy while the others wait: with threads to spare, its grid in
    // two halves at once first, where its blocks cannot meet (run_split).
    if (options.run_threads > 1 && !order.empty() &&
        (order.size() == 1 || 2 * size_of[order[0]] > total)) {
      const size_t r = order[0];
      outcomes[r] = run_split(file, kernel, options, runs[r].sizes, runs[r].contents);
      if (outcomes[r])
        order.erase(order.begin());
    }
    const size_t count = order.size();
    const auto work = [&] {
      for (size_t k; (k = taken++) < count;) {
        const size_t r = order[k];
        RunOutcome outcome = run_once(file, kernel, options, runs[r].sizes, runs[r].contents);
        const std::lock_guard<std::mutex> lock(done_mutex);
        outcomes[r] = std::move(outcome);
        done.notify_all();
      }
    };
    // The calling thread merges; with one run thread (or one run left) it
    // runs them too.
    const size_t workers =
        options.run_threads > 1 && count > 1 ? std::min<size_t>(options.run_threads, count) : 0;
    std::vector<std::thread> threads;
    for (size_t t = 0; t < workers; ++t)
      threads.emplace_back(work);
    for (size_t r = from; r < runs.size(); ++r) {
      if (workers == 0) {
        if (!outcomes[r])
          outcomes[r] = run_once(file, kernel, options, runs[r].sizes, runs[r].contents);
      } else {
        // The merge stops at the first interrupted run.
        std::unique_lock<std::mutex> lock(done_mutex);
        done.wait(lock, [&] { return outcomes[r].has_value(); });
      }
      RunOutcome &outcome = *outcomes[r];
      const Run &run = runs[r];
      const auto &sizes = run.sizes;
      visited.insert(outcome.visited.begin(), outcome.visited.end());
      for (const auto &[loop, most] : outcome.loop_iterations) {
        int64_t &all = loop_iterations[loop];
        all = std::max(all, most);
        int64_t &here = iterations_at[sizes][loop];
        here = std::max(here, most);
      }
      stopped = stopped || outcome.stopped;
      report.interrupted = report.interrupted || outcome.interrupted;
      if (report.instances.empty() || report.instances.back() != sizes)
        report.instances.push_back(sizes);
      report.blocks_run += outcome.blocks_run;
      if (sampled_grid.empty() && !outcome.sampled_blocks.empty())
        sampled_grid = sampled_grid_text(sizes, outcome.grid_dim, outcome.sampled_blocks);
      for (const auto &[range, name] : outcome.bounded_loops) {
        const auto key = std::make_pair(std::string("unproven"),
                                        std::make_pair(range.begin.line, range.begin.column));
        if (!seen.insert(key).second)
          continue;
        report.bounded_loops.push_back("line " + std::to_string(range.begin.line + 1) + ": " +
                                       name + " (first " + std::to_string(options.unroll_bound) +
                                       " iterations)");
        Violation v;
        v.kind = "unproven";
        v.check = "loop-bound";
        v.range = range;
        v.warning = true;
        v.message = "the checker ran the first " + std::to_string(options.unroll_bound) +
                    " iterations of this loop (" + name +
                    ") and skipped the rest: later "
                    "iterations are not checked (--unroll-bound)";
        v.data = {{"kind", "unproven"},
                  {"check", "loop-bound"},
                  {"kernel", report.kernel},
                  {"sizes", sizes},
                  {"fixes", nlohmann::json::array()}};
        report.violations.push_back(std::move(v));
      }
      for (Violation &v : outcome.violations) {
        const auto key =
            std::make_pair(v.kind, std::make_pair(v.range.begin.line, v.range.begin.column));
        if (!seen.insert(key).second)
          continue;
        if (!run.contents.empty())
          v.data["contents"] = run.contents; // the counterexample replays with them
        report.violations.push_back(std::move(v));
      }
      outcomes[r].reset();
      if (report.interrupted)
        break;
    }
    for (std::thread &t : threads)
      t.join();
    return !report.interrupted;
  };
  // Loops that ran at most once wherever they ran.
  auto single_iteration_loops = [&] {
    std::vector<const ast::Stmt *> out;
    for (const auto &[loop, most] : loop_iterations)
      if (most == 1)
        out.push_back(loop);
    std::sort(out.begin(), out.end(), [](const ast::Stmt *a, const ast::Stmt *b) {
      return std::make_pair(a->range.begin.line, a->range.begin.column) <
             std::make_pair(b->range.begin.line, b->range.begin.column);
    });
    return out;
  };
  bool finished = execute_runs(0);
  // A loop whose bounds depend on sizes or data but that no instance ran
  // twice: what one iteration leaves for the next was not checked. Run once
  // more at larger sizes (matrix dimensions of at least 256 where the
  // assumptions allow), then say what is still not covered.
  std::map<std::string, int64_t> grown_sizes;
  auto run_grown = [&](const std::optional<std::map<std::string, int64_t>> &grown) {
    if (!finished || stopped || !grown ||
        std::find(instances.begin(), instances.end(), *grown) != instances.end() ||
        global_elements(file, kernel, *grown).value_or(INT64_MAX) > options.max_global_cells / 2)
      return;
    instances.push_back(*grown);
    grown_sizes = *grown;
    const size_t from = runs.size();
    add_runs(*grown);
    finished = execute_runs(from);
  };
  if (options.forced_instances.empty() && !instances.empty()) {
    // The sizes the loops' bounds depend on, one at a time: grown by the
    // loop's constant step (a grid-stride loop over N runs twice once N
    // exceeds the stride), then doubled, until every such loop runs twice;
    // where the bounds depend on no size, every matrix dimension at least 256.
    const auto base = instances.back();
    // Statements not reached inside a loop over sizes (a prefetch guarded by
    // `kt + STAGES - 2 < k_tiles` needs more tiles than stages).
    auto unreached_in_loops = [&] {
      std::set<const ast::Stmt *> loops;
      if (!stopped)
        for (const ast::Stmt *s : unreached_statements(*file.sema, *kernel.function, visited))
          for (const ast::Stmt *loop : enclosing_loops(kernel.function->body, s))
            if (loop_iterations.count(loop))
              loops.insert(loop);
      return loops;
    };
    // A loop is short when it never ran twice, holds a statement not reached,
    // or is a loop over stages (`stage = kt % STAGES`) that never wrapped
    // around (a buffer's reuse was never checked).
    std::map<const ast::Stmt *, int64_t> needed;
    for (const auto &[loop, most] : loop_iterations)
      needed[loop] = std::max<int64_t>(2, wraparound_iterations(file, *loop));
    auto short_loops = [&] {
      std::set<const ast::Stmt *> out = unreached_in_loops();
      for (const auto &[loop, most] : loop_iterations)
        if (most >= 1 && most < needed[loop])
          out.insert(loop);
      return out;
    };
    // The sizes that drive each short loop, with the loop's constant step.
    std::map<std::string, int64_t> driving;
    std::map<std::string, std::set<const ast::Stmt *>> loops_of;
    for (const ast::Stmt *loop : short_loops()) {
      int64_t step = 0;
      if (loop->kind == ast::StmtKind::For && loop->value && loop->value->arg_count() == 3)
        step = file.sema->constant_of(loop->value->arg(2)).value_or(0);
      for (const std::string &size : sizes_driving(file, kernel, *loop)) {
        driving[size] = std::max(driving[size], step);
        loops_of[size].insert(loop);
      }
    }
    auto cheapest_with = [&](const std::map<std::string, int64_t> &from, const std::string &size) {
      const std::map<std::string, int64_t> *cheapest = &from;
      int64_t least = global_elements(file, kernel, from).value_or(INT64_MAX);
      for (const auto &inst : instances)
        if (const int64_t n = global_elements(file, kernel, inst).value_or(INT64_MAX); n < least) {
          least = n;
          cheapest = &inst;
        }
      auto at = *cheapest;
      at[size] = from.at(size);
      if (at == from || !satisfies_assumptions(file, kernel, at, options.query_timeout_ms))
        return from;
      return at;
    };
    // Whether the loops of `size` ran at `inst` (a guard on another size can
    // keep a block out of them).
    auto runs_loops_of = [&](const std::string &size, const std::map<std::string, int64_t> &inst) {
      const auto &ran = iterations_at[inst];
      return std::all_of(loops_of[size].begin(), loops_of[size].end(), [&](const ast::Stmt *l) {
        const auto it = ran.find(l);
        return it != ran.end() && it->second >= 1;
      });
    };
    for (const auto &[size, step] : driving) {
      auto still_short = [&] {
        const auto now = short_loops();
        return std::any_of(loops_of[size].begin(), loops_of[size].end(),
                           [&](const ast::Stmt *l) { return now.count(l) > 0; });
      };
      // Loop trips grow about in proportion to the size: scale it by the
      // iterations the shortest of its loops still needs (a 4-stage loop that
      // ran once: 5x), at least 2x, then double.
      auto factor = [&] {
        int64_t f = 2;
        for (const ast::Stmt *l : loops_of[size])
          if (const int64_t ran = loop_iterations[l]; ran >= 1)
            f = std::max(f, (needed[l] + ran - 1) / ran);
        return std::min<int64_t>(f, 16);
      };
      // Grown from the cheapest instance with this size taken from the
      // last: the loop's trips follow this size, and the other sizes' blocks
      // and tiles were checked at the instances already (a K loop grown on
      // the 18-block instance ran 18 blocks for the iterations one needs).
      // Where the loops did not run there at all, grown from the last instead.
      auto first_target = [&](const std::map<std::string, int64_t> &from) {
        return std::max(factor() * from.at(size), from.at(size) + std::min<int64_t>(step, 1 << 20));
      };
      auto at = cheapest_with(base, size);
      bool cheap = at != base;
      int64_t target = first_target(at);
      for (int attempt = 0; attempt < 3 && still_short(); ++attempt) {
        auto grown = grow_instance(file, kernel, at, target, options.query_timeout_ms, {size});
        if (!grown)
          break;
        run_grown(grown);
        if (cheap && !runs_loops_of(size, *grown)) {
          cheap = false;
          at = base;
          target = first_target(at);
          continue;
        }
        at = *grown;
        target = factor() * at.at(size);
      }
    }
    if (driving.empty() && !single_iteration_loops().empty())
      run_grown(grow_instance(file, kernel, base, 256, options.query_timeout_ms));
  }
  if (finished && !stopped)
    for (const ast::Stmt *loop : single_iteration_loops()) {
      const ast::Expr *header = loop->value ? loop->value.get() : nullptr;
      const auto where = header ? header->range : loop->range;
      const auto key = std::make_pair(std::string("unproven"),
                                      std::make_pair(where.begin.line, where.begin.column));
      if (!seen.insert(key).second)
        continue;
      Violation v;
      v.kind = "unproven";
      v.check = "single-iteration";
      v.range = where;
      v.warning = true;
      v.message = "this loop ran at most one iteration at every size instance" +
                  std::string(grown_sizes.empty()
                                  ? ""
                                  : " (the largest: " + nlohmann::json(grown_sizes).dump() + ")") +
                  ": what an iteration leaves for the next (a reused buffer, a barrier, an "
                  "accumulator) is not checked; `argus check --sizes=...` adds sizes where it "
                  "runs twice";
      v.data = {{"kind", "unproven"},
                {"check", "single-iteration"},
                {"kernel", report.kernel},
                {"thread", nullptr},
                {"fixes", nlohmann::json::array()}};
      report.violations.push_back(std::move(v));
    }
  // A statement no instance executed was not checked: say so (a budget stop
  // already says that what follows it is not checked).
  if (!stopped && !instances.empty())
    for (const ast::Stmt *s : unreached_statements(*file.sema, *kernel.function, visited)) {
      const auto key = std::make_pair(std::string("unproven"),
                                      std::make_pair(s->range.begin.line, s->range.begin.column));
      if (!seen.insert(key).second)
        continue;
      Violation v;
      v.kind = "unproven";
      v.check = "unreached";
      v.range = s->range;
      v.warning = true;
      v.message = "not reached at any size instance: this statement is not checked (no thread "
                  "of any checked block executed it at the sizes the checker chose)";
      v.data = {{"kind", "unproven"},
                {"check", "unreached"},
                {"kernel", report.kernel},
                {"thread", nullptr},
                {"fixes", nlohmann::json::array()}};
      report.violations.push_back(std::move(v));
    }
  return report;
}

} // namespace detail

namespace {

// One kernel's check: execute, prove, fix, summarize; never throws.
KernelReport check_one(const CheckedFile &file, const sema::FunctionInfo &kernel,
                       const CheckerOptions &file_options, const KernelKey &key,
                       CheckCache *cache) {
  const std::string &name = kernel.function->name;
  CheckerOptions options = file_options;
  if (options.kernel_time_limit.count() > 0)
    options.deadline =
        std::min(options.deadline, std::chrono::steady_clock::now() + options.kernel_time_limit);
  if (options.cancelled() || options.past_deadline())
    return detail::not_checked(
        kernel,
        options.cancelled()
            ? "the check was cancelled before kernel '" + name + "': it is not checked"
            : "the check ran past its time limit before kernel '" + name + "': it is not checked");
  if (cache)
    cache->count_proved();
  KernelReport report;
  try {
    std::string sampled_grid;
    detail::ProofReach reach;
    report = detail::execute(file, kernel, options, sampled_grid);
    report.segments = key.segments;
    if (!report.interrupted && options.symbolic)
      detail::prove_symbolically(file, kernel, options, report, reach);
    if (!report.interrupted)
      detail::prove_grid_races(file, kernel, options, sampled_grid, report, reach);
    if (!report.interrupted)
      reach.races_proved = detail::prove_races_for_all_sizes(file, kernel, options, report, reach);
    if (!report.interrupted)
      detail::prove_tags_for_all_sizes(file, kernel, options, report, reach);
    if (!report.interrupted)
      detail::attach_fixes(file, kernel, options, report);
    if (options.cancelled() || options.past_deadline())
      report.interrupted = true; // a proof or a fix may have been cut short
    report.summary = detail::summarize(file, kernel, options, report, reach);
  } catch (const std::exception &error) {
    // Z3 reports its own failures by throwing (z3::exception: an operation it
    // refuses, a resource it ran out of). One kernel's check is lost, not the
    // file's: the caller (a language-server job) must always get an answer.
    return detail::not_checked(kernel, "the checker failed on kernel '" + name + "' (" +
                                           error.what() + "): it is not checked");
  }
  if (cache && !report.interrupted)
    cache->store(key.hash, report);
  return report;
}

} // namespace

std::vector<KernelReport> check_kernels(const CheckedFile &file, const CheckerOptions &options,
                                        CheckCache *cache, const KernelDone &on_kernel,
                                        std::optional<uint32_t> priority_line) {
  std::vector<KernelReport> reports;
  if (!file.sema || file.has_errors())
    return reports;
  // Cache hits first, in order; the rest are checked on up to kernel_threads threads.
  struct Pending {
    size_t slot;
    const sema::FunctionInfo *kernel;
    KernelKey key;
  };
  std::vector<Pending> pending;
  for (const sema::FunctionInfo &kernel : file.sema->functions) {
    if (kernel.role != sema::FunctionRole::Kernel || !kernel.function)
      continue;
    if (!options.only_kernel.empty() && kernel.function->name != options.only_kernel)
      continue;
    KernelKey key = kernel_key(file, kernel, options);
    if (cache)
      if (auto hit = cache->find(key.hash)) {
        const bool moved = !std::equal(
            hit->segments.begin(), hit->segments.end(), key.segments.begin(), key.segments.end(),
            [](const Range &a, const Range &b) { return a.begin.line == b.begin.line; });
        if (auto here = detail::relocate(std::move(*hit), key.segments)) {
          here->from_cache = true;
          cache->count_reused(moved);
          reports.push_back(std::move(*here));
          continue;
        }
      }
    reports.emplace_back();
    pending.push_back({reports.size() - 1, &kernel, std::move(key)});
  }
  std::mutex told;
  if (on_kernel)
    for (size_t i = 0; i < reports.size(); ++i)
      if (reports[i].from_cache)
        on_kernel(i, reports[i]);
  if (priority_line) {
    // The kernel being edited first; the rest keep the file's order.
    const auto edited = [&](const Pending &p) {
      const Range &r = p.kernel->function->range;
      return r.begin.line <= *priority_line && *priority_line <= r.end.line;
    };
    std::stable_partition(pending.begin(), pending.end(), edited);
  }
  // The threads not needed for kernels check the runs (size instances and
  // content choices) of each kernel: one kernel gets them all.
  CheckerOptions kernel_options = options;
  if (!pending.empty() && options.kernel_threads > 1)
    kernel_options.run_threads = std::max<unsigned>(
        options.run_threads, options.kernel_threads / static_cast<unsigned>(std::min<size_t>(
                                                          options.kernel_threads, pending.size())));
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i; (i = next++) < pending.size();) {
      KernelReport report =
          check_one(file, *pending[i].kernel, kernel_options, pending[i].key, cache);
      const std::lock_guard<std::mutex> lock(told);
      reports[pending[i].slot] = std::move(report);
      if (on_kernel)
        on_kernel(pending[i].slot, reports[pending[i].slot]);
    }
  };
  const size_t helpers =
      std::min<size_t>(options.kernel_threads > 1 ? options.kernel_threads - 1 : 0,
                       pending.size() > 1 ? pending.size() - 1 : 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < helpers; ++t)
    threads.emplace_back(work);
  work();
  for (std::thread &t : threads)
    t.join();
  return reports;
}

std::string_view code_of_kind(const std::string &kind) {
  static const std::map<std::string, std::string_view> codes = {
      {"tag-mismatch", codes::kTagMismatch},
      {"race", codes::kDataRace},
      {"out-of-bounds", codes::kOutOfBounds},
      {"uninitialized-read", codes::kUninitializedRead},
      {"barrier-divergence", codes::kBarrierDivergence},
      {"async-read-before-wait", codes::kAsyncReadBeforeWait},
      {"not-covered", codes::kNotCovered},
      {"covered-twice", codes::kCoveredTwice},
      {"operand-layout", codes::kOperandLayout},
      {"unproven", codes::kUnproven},
      {"bank-conflict", codes::kBankConflict},
      {"uncoalesced", codes::kUncoalesced},
      {"unvectorized", codes::kUnvectorized},
      {"fragment-reload", codes::kFragmentReload},
  };
  auto it = codes.find(kind);
  return it == codes.end() ? codes::kUnproven : it->second;
}

std::vector<Diagnostic> to_diagnostics(const std::vector<KernelReport> &reports) {
  std::vector<Diagnostic> out;
  for (const KernelReport &r : reports)
    for (const Violation &v : r.violations) {
      Diagnostic d;
      d.severity = v.warning ? Severity::Warning : Severity::Error;
      d.code = std::string(code_of_kind(v.kind));
      d.range = v.range;
      d.message = v.message;
      d.data = v.data;
      d.related = v.related;
      out.push_back(std::move(d));
    }
  return out;
}

bool replay(const CheckedFile &file, const std::string &kernel, const nlohmann::json &data,
            nlohmann::json *history) {
  if (!file.sema || !data.is_object() || !data.contains("kind"))
    return false;
  const sema::FunctionInfo *info = file.sema->function_info(kernel);
  if (!info || info->role != sema::FunctionRole::Kernel)
    return false;
  std::map<std::string, int64_t> sizes;
  if (data.contains("sizes") && data["sizes"].is_object())
    for (auto it = data["sizes"].begin(); it != data["sizes"].end(); ++it)
      if (it.value().is_number_integer())
        sizes[it.key()] = it.value().get<int64_t>();
  CheckerOptions options;
  options.symbolic = false;
  options.lints = true;
  options.unroll_bound = 1 << 16; // one block: long loops of a large model run in full
  // One block; an inter-block race: the other block, then this one.
  std::vector<std::array<int64_t, 3>> blocks;
  auto block_of = [](const nlohmann::json &b) {
    return std::array<int64_t, 3>{b[0].get<int64_t>(), b[1].get<int64_t>(), b[2].get<int64_t>()};
  };
  const bool whole_grid = !data.contains("thread") || data["thread"].is_null();
  if (!whole_grid) {
    if (data.contains("other_block") && data["other_block"].is_array() &&
        data["other_block"].size() == 3)
      blocks.push_back(block_of(data["other_block"]));
    blocks.push_back(block_of(data["thread"]["block"]));
  }
  detail::Machine machine(file, *info, options);
  if (data.contains("contents") && data["contents"].is_object())
    for (auto it = data["contents"].begin(); it != data["contents"].end(); ++it)
      if (it.value().is_array())
        for (const auto &x : it.value())
          machine.contents_[it.key()].push_back(x.is_number_integer() ? x.get<int64_t>() : 0);
  if (history)
    machine.trace_ = std::make_unique<detail::Trace>();
  machine.run(sizes, blocks);
  const std::string kind = data["kind"].get<std::string>();
  for (const Violation &v : machine.take_violations()) {
    if (v.kind != kind)
      continue;
    if (data.contains("program_point")) {
      const auto &p = data["program_point"];
      if (v.range.begin.line != p["line"].get<uint32_t>() ||
          v.range.begin.column != p["character"].get<uint32_t>())
        continue;
    }
    // The same thread (unless grid-wide): the interpreter finds the first
    // failing thread in the same order.
    if (whole_grid || (v.data.contains("thread") && v.data["thread"] == data["thread"])) {
      if (history)
        *history = v.history.is_array() ? v.history : nlohmann::json::array();
      return true;
    }
  }
  return false;
}

std::optional<bool> accepts_sizes(const CheckedFile &file, const std::string &kernel,
                                  const std::map<std::string, int64_t> &sizes) {
  if (!file.sema)
    return std::nullopt;
  for (const sema::FunctionInfo &fn : file.sema->functions)
    if (fn.role == sema::FunctionRole::Kernel && fn.function && fn.function->name == kernel)
      return detail::satisfies_assumptions(file, fn, sizes, CheckerOptions{}.query_timeout_ms);
  return std::nullopt;
}

} // namespace argus::check
