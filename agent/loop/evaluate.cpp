// `argus agent eval`: evaluate.h.
#include "argus/agent/evaluate.h"
#include "argus/agent/command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

namespace argus::agent {

using nlohmann::json;

namespace {

std::string sizes_text(const std::map<std::string, int64_t> &sizes) {
  std::string out;
  for (const auto &[name, value] : sizes)
    out += (out.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return out;
}

std::optional<std::map<std::string, int64_t>> sizes_of(const json &j) {
  if (!j.is_object() || j.empty())
    return std::nullopt;
  std::map<std::string, int64_t> sizes;
  for (const auto &[name, value] : j.items()) {
    if (!value.is_number_integer() || value.get<int64_t>() < 0 || name.empty())
      return std::nullopt;
    sizes[name] = value.get<int64_t>();
  }
  return sizes;
}

std::string validate(const json &j, const std::filesystem::path &path, Task &task) {
  if (!j.is_object())
    return "expected a JSON object";
  for (const char *field : {"file", "kernel"})
    if (!j.contains(field) || !j[field].is_string() || j[field].get<std::string>().empty())
      return std::string("\"") + field + "\": expected a non-empty string";
  task.name = path.stem().string();
  task.path = path.string();
  std::error_code ec;
  const std::filesystem::path file =
      std::filesystem::weakly_canonical(path.parent_path() / j["file"].get<std::string>(), ec);
  if (ec || !std::filesystem::is_regular_file(file, ec))
    return "\"file\": no such kernel file " + j["file"].get<std::string>();
  task.file = file.string();
  task.kernel = j["kernel"].get<std::string>();
  if (j.contains("budget")) {
    if (!j["budget"].is_number_integer() || j["budget"].get<int64_t>() < 1 ||
        j["budget"].get<int64_t>() > 100000)
      return "\"budget\": expected a number of steps from 1 to 100000";
    task.budget = j["budget"].get<int>();
  }
  const auto sizes = sizes_of(j.value("sizes", json()));
  if (!sizes)
    return "\"sizes\": expected the @bench's sizes, an object of non-negative integers";
  task.sizes = *sizes;
  if (!j.contains("held_out") || !j["held_out"].is_array() || j["held_out"].empty())
    return "\"held_out\": expected a non-empty array of sizes";
  for (const json &h : j["held_out"]) {
    const auto held = sizes_of(h);
    if (!held)
      return "\"held_out\": each entry is an object of non-negative integers";
    if (*held == task.sizes)
      return "\"held_out\": " + sizes_text(*held) + " is the bench's own size (not held out)";
    task.held_out.push_back(*held);
  }
  if (j.contains("library")) {
    if (!j["library"].is_string())
      return "\"library\": expected the reference library's operation, a string";
    task.library = j["library"].get<std::string>();
  }
  return "";
}

// The runner's verdict on the best version at one held-out size.
json held_out_run(LspClient &client, const std::string &uri, const Task &task,
                  const std::map<std::string, int64_t> &sizes, const OptimizeOptions &loop,
                  uint64_t seed) {
  std::vector<std::string> args = loop.runner_args;
  for (const std::string &a :
       {std::string("--kernel"), task.kernel, std::string("--size"), sizes_text(sizes),
        std::string("--no-timing"), std::string("--seed"), std::to_string(seed)})
    args.push_back(a);
  json verdict = {{"sizes", sizes}, {"correct", false}};
  try {
    const json r = client.execute("argus.benchmark",
                                  {{"uri", uri}, {"emitOnly", loop.emit_only}, {"args", args}},
                                  loop.benchmark_timeout);
    const json results = r.value("results", json::array());
    bool correct = r.value("ok", false) && !results.empty();
    std::string why;
    for (const json &one : results)
      if (one.is_object() && !one.value("correct", false)) {
        correct = false;
        why = one.value("why", std::string("not correct"));
      }
    if (!r.value("ok", false))
      why = r.value("stage", std::string("runner")) + ": " +
            (r.contains("error") && r["error"].is_string() ? r["error"].get<std::string>()
                                                           : std::string("failed"));
    verdict["correct"] = correct;
    if (!correct)
      verdict["why"] = why.empty() ? "no result" : why;
  } catch (const LspError &error) {
    verdict["why"] = std::string("argus.benchmark: ") + error.what();
  }
  return verdict;
}

std::optional<double> library_time(const std::string &tmpl, const Task &task,
                                   std::chrono::milliseconds timeout, std::string &why) {
  const auto argv = command_words(
      tmpl, {{"op", task.library}, {"sizes", sizes_text(task.sizes)}, {"task", task.name}});
  if (!argv) {
    why = "--library: an open quote or a placeholder other than {op}, {sizes}, {task}";
    return std::nullopt;
  }
  const CommandResult r = run_command(*argv, timeout);
  if (r.exit_code != 0) {
    why = r.error.empty() ? (*argv)[0] + " exited with " + std::to_string(r.exit_code) : r.error;
    return std::nullopt;
  }
  const size_t brace = r.out.find('{');
  const json j =
      brace == std::string::npos ? json() : json::parse(r.out.substr(brace), nullptr, false);
  if (!j.is_object() || !j.contains("median_ms") || !j["median_ms"].is_number() ||
      j["median_ms"].get<double>() <= 0) {
    why = "the library timer printed no positive \"median_ms\"";
    return std::nullopt;
  }
  return j["median_ms"].get<double>() / 1e3;
}

} // namespace

TaskSuite load_tasks(const std::string &dir) {
  TaskSuite suite;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    suite.errors.push_back(dir + ": not a folder of tasks");
    return suite;
  }
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto &path : files) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const json j = json::parse(text.str(), nullptr, false);
    Task task;
    const std::string error = j.is_discarded() ? "not valid JSON" : validate(j, path, task);
    if (error.empty())
      suite.tasks.push_back(std::move(task));
    else
      suite.errors.push_back(path.string() + ": " + error);
  }
  if (files.empty())
    suite.errors.push_back(dir + ": no task (*.json) in it");
  return suite;
}

EvalSummary evaluate_tasks(const std::vector<LspClient *> &clients, const KnowledgeBase &kb,
                           const std::vector<Task> &tasks, const EvalOptions &o,
                           const std::function<void(const std::string &)> &progress) {
  const auto say = [&](const std::string &line) {
    if (progress)
      progress(line);
  };
  std::random_device entropy;
  std::mt19937_64 seeds(entropy());
  EvalSummary summary;
  for (const Task &task : tasks) {
    TaskResult r;
    r.name = task.name;
    OptimizeOptions loop = o.loop;
    loop.file = task.file;
    loop.kernel = task.kernel;
    loop.budget = o.budget ? std::min(task.budget, *o.budget) : task.budget;
    loop.out_dir = (std::filesystem::path(o.out_dir) / task.name).string();
    // The loop times the kernel at the task's sizes (a file may have several @bench).
    for (const std::string &a :
         {std::string("--kernel"), task.kernel, std::string("--size"), sizes_text(task.sizes)})
      loop.runner_args.push_back(a);
    const std::string uri = file_uri(task.file);
    say("task " + task.name + ": " + task.kernel + " of " + task.file + ", " +
        std::to_string(task.budget) + " steps");
    try {
      const OptimizeResult result =
          optimize(clients, kb, loop, [&](const std::string &line) { say("  " + line); });
      r.baseline_seconds = result.baseline_seconds;
      r.best_seconds = result.best_seconds;
      r.steps = static_cast<int>(result.trajectory.size());
      // The best version at sizes it never saw, with fresh inputs; the
      // sizes shared out over the servers.
      const size_t workers = std::min(clients.size(), task.held_out.size());
      std::vector<json> verdicts(task.held_out.size());
      std::vector<uint64_t> seed(task.held_out.size());
      for (uint64_t &x : seed)
        x = seeds() % 2147483647 + 1;
      std::vector<std::exception_ptr> failures(workers);
      std::vector<std::thread> threads;
      for (size_t w = 0; w < workers; ++w)
        threads.emplace_back([&, w] {
          try {
            clients[w]->change(uri, result.best_text);
            for (size_t i = w; i < task.held_out.size(); i += workers)
              verdicts[i] = held_out_run(*clients[w], uri, task, task.held_out[i], o.loop, seed[i]);
          } catch (...) {
            failures[w] = std::current_exception();
          }
        });
      for (std::thread &t : threads)
        t.join();
      for (const std::exception_ptr &f : failures)
        if (f)
          std::rethrow_exception(f);
      r.correct = true;
      for (size_t i = 0; i < task.held_out.size(); ++i) {
        json &verdict = verdicts[i];
        r.correct = r.correct && verdict["correct"].get<bool>();
        say("  held out " + sizes_text(task.held_out[i]) + ": " +
            (verdict["correct"].get<bool>() ? std::string("correct")
                                            : "NOT correct (" + verdict.value("why", "") + ")"));
        r.held_out.push_back(std::move(verdict));
      }
    } catch (const std::exception &error) {
      r.error = error.what();
      r.correct = false;
      say("  failed: " + r.error);
    }
    for (LspClient *client : clients) {
      try {
        client->close(uri);
      } catch (const std::exception &) {
        // A document that was never opened: nothing to close.
      }
    }
    if (o.library && !task.library.empty()) {
      r.library_seconds = library_time(*o.library, task, o.library_timeout, r.library_error);
      if (r.library_seconds)
        say("  " + task.library + " (library): " + std::to_string(*r.library_seconds * 1e3) +
            " ms");
      else
        say("  library timer: " + r.library_error);
    }
    summary.tasks.push_back(std::move(r));
  }

  // The suite's figures.
  size_t correct = 0, fast = 0, timed = 0;
  double log_speedup = 0;
  for (const TaskResult &r : summary.tasks) {
    if (r.correct) {
      ++correct;
      log_speedup += std::log(r.speedup());
    }
    if (r.library_seconds) {
      ++timed;
      fast += r.correct && r.best_seconds > 0 && *r.library_seconds / r.best_seconds > o.p;
    }
  }
  const size_t n = summary.tasks.size();
  summary.correct_rate = n ? static_cast<double>(correct) / static_cast<double>(n) : 0;
  summary.geomean_speedup = correct ? std::exp(log_speedup / static_cast<double>(correct)) : 1;
  if (n && timed == n)
    summary.fast_p = static_cast<double>(fast) / static_cast<double>(n);

  json tasks_json = json::array();
  std::string table = "| task | steps | start | best | speedup | held-out | library | faster |\n"
                      "|---|---:|---:|---:|---:|---|---:|---|\n";
  char line[512];
  for (const TaskResult &r : summary.tasks) {
    json t = {{"task", r.name},
              {"correct", r.correct},
              {"steps", r.steps},
              {"baseline_seconds", r.baseline_seconds},
              {"best_seconds", r.best_seconds},
              {"speedup", r.speedup()},
              {"held_out", r.held_out}};
    if (!r.error.empty())
      t["error"] = r.error;
    if (r.library_seconds)
      t["library_seconds"] = *r.library_seconds;
    else if (!r.library_error.empty())
      t["library_error"] = r.library_error;
    tasks_json.push_back(t);
    std::snprintf(
        line, sizeof line, "| %s | %d | %.4f ms | %.4f ms | %.2fx | %s | %s | %s |\n",
        r.name.c_str(), r.steps, r.baseline_seconds * 1e3, r.best_seconds * 1e3, r.speedup(),
        !r.error.empty() ? ("failed: " + r.error.substr(0, 60)).c_str()
        : r.correct      ? "correct"
                         : "NOT correct",
        r.library_seconds ? (std::to_string(*r.library_seconds * 1e3) + " ms").c_str() : "-",
        !r.library_seconds                                       ? "-"
        : r.correct && *r.library_seconds / r.best_seconds > o.p ? "yes"
                                                                 : "no");
    table += line;
  }
  summary.json = {{"tasks", tasks_json},
                  {"correct_rate", summary.correct_rate},
                  {"geomean_speedup", summary.geomean_speedup},
                  {"p", o.p},
                  {"fast_p", summary.fast_p ? json(*summary.fast_p) : json()}};
  std::snprintf(
      line, sizeof line,
      "# argus agent eval\n\n%zu tasks: correct at held-out sizes %zu (%.0f%%), "
      "speedup over the start %.2fx (geometric mean of the correct), fast_%.1f %s\n\n",
      n, correct, 100 * summary.correct_rate, summary.geomean_speedup, o.p,
      summary.fast_p
          ? (std::to_string(static_cast<int>(std::lround(100 * *summary.fast_p))) + "%").c_str()
          : "unknown (no library time for every task)");
  summary.report = line + table;
  return summary;
}

} // namespace argus::agent
