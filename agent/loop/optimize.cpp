// `argus agent optimize`: optimize.h.
#include "argus/agent/optimize.h"
#include "argus/agent/text.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

namespace argus::agent {

using nlohmann::json;

namespace {

// A module constant: `NAME = 123` at the start of a line (a comment may follow).
const std::regex kConstant(R"(^([A-Z][A-Z0-9_]*)(\s*=\s*)([0-9]+)(\s*(#.*)?)$)");

int rank(const std::string &verdict) {
  if (verdict == "all-sizes")
    return 3;
  if (verdict == "instances")
    return 2;
  if (verdict == "violated")
    return -1;
  return 0; // absent, not-checked
}

size_t assertions_in(const std::string &text) {
  static const std::regex assertion(R"(\bassert_(tag|tag_eq|covered)\s*\()");
  return static_cast<size_t>(std::distance(
      std::sregex_iterator(text.begin(), text.end(), assertion), std::sregex_iterator()));
}

// The byte offset of an LSP position (UTF-16 code units in its line).
size_t offset_of(const std::string &text, const json &position) {
  const int64_t want_line = position.value("line", 0), want_char = position.value("character", 0);
  size_t at = 0;
  for (int64_t line = 0; line < want_line && at < text.size(); ++line) {
    const size_t nl = text.find('\n', at);
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  int64_t units = 0;
  while (at < text.size() && text[at] != '\n' && units < want_char) {
    const auto c = static_cast<unsigned char>(text[at]);
    const size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    units += len == 4 ? 2 : 1;
    at += len;
  }
  return std::min(at, text.size());
}

const json *kernel_summary(const json &verification, const std::string &kernel) {
  if (!verification.is_object() || !verification.contains("kernels") ||
      !verification["kernels"].is_array())
    return nullptr;
  for (const json &k : verification["kernels"]) // by reference: the pointer outlives the loop
    if (k.value("kernel", "") == kernel && k.contains("summary") && k["summary"].is_object())
      return &k["summary"];
  return nullptr;
}

// The first of `sizes` the kernel's entry of an argus.verification answer
// (asked with "accepts") says it refuses, as "M=128,N=128"; empty when none.
std::string refused_sizes(const json &verification, const std::string &kernel, const json &sizes) {
  if (!verification.is_object() || !verification.contains("kernels"))
    return "";
  for (const json &k : verification["kernels"]) {
    if (k.value("kernel", "") != kernel || !k.contains("accepts") || !k["accepts"].is_array())
      continue;
    for (size_t i = 0; i < k["accepts"].size() && i < sizes.size(); ++i)
      if (k["accepts"][i] == false) {
        std::string text;
        for (const auto &[name, value] : sizes[i].items())
          text += (text.empty() ? "" : ",") + name + "=" + value.dump();
        return text;
      }
  }
  return "";
}

struct Benchmark {
  bool ok = false;
  bool correct = false;
  std::string stage, error;
  Measurement measurement;
};

Benchmark read_benchmark(const json &result, const std::string &kernel) {
  Benchmark b;
  b.ok = result.value("ok", false);
  b.stage = result.value("stage", "");
  b.error = result.contains("error") && result["error"].is_string()
                ? result["error"].get<std::string>()
                : "";
  const json results = result.value("results", json::array());
  const json *mine = nullptr;
  for (const json &r : results)
    if (r.is_object() && r.value("kernel", "") == kernel)
      mine = &r;
  if (!mine && !results.empty() && results[0].is_object())
    mine = &results[0];
  if (!mine)
    return b;
  b.correct = mine->value("correct", false);
  // The runner's reason (which output, how wrong) says more than its exit status.
  if (!b.correct && mine->contains("why") && (*mine)["why"].is_string())
    b.error = (*mine)["why"].get<std::string>();
  Measurement &m = b.measurement;
  m.seconds = mine->value("median_ms", 0.0) / 1e3;
  const double tflops = mine->value("tflops", 0.0), fraction = mine->value("peak_fraction", 0.0);
  if (tflops > 0 && m.seconds > 0) {
    m.flops = tflops * 1e12 * m.seconds;
    if (fraction > 0)
      m.peak_flops = tflops * 1e12 / fraction;
  }
  return b;
}

std::string ms(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f ms", seconds * 1e3);
  return text;
}

} // namespace

std::vector<Knob> discover_knobs(const std::string &text) {
  std::vector<Knob> knobs;
  for (const std::string &line : lines_of(text)) {
    std::smatch m;
    if (!std::regex_match(line, m, kConstant))
      continue;
    int64_t v = 0;
    try {
      v = std::stoll(m[3].str());
    } catch (const std::exception &) {
      continue;
    }
    if (v < 2 || v > 4096 || (v & (v - 1)) != 0)
      continue;
    Knob k;
    k.name = m[1].str();
    k.current = v;
    for (int64_t x = std::max<int64_t>(2, v / 4); x <= std::min<int64_t>(4096, v * 4); x *= 2)
      k.values.push_back(x);
    knobs.push_back(std::move(k));
  }
  return knobs;
}

std::optional<std::string> set_constant(const std::string &text, const std::string &name,
                                        int64_t value) {
  std::vector<std::string> lines = lines_of(text);
  bool found = false;
  for (std::string &line : lines) {
    std::smatch m;
    if (std::regex_match(line, m, kConstant) && m[1].str() == name) {
      line = m[1].str() + m[2].str() + std::to_string(value) + m[4].str();
      found = true;
      break;
    }
  }
  if (!found)
    return std::nullopt;
  std::string out;
  for (const std::string &line : lines)
    out += line + "\n";
  if (!text.empty() && text.back() != '\n')
    out.pop_back();
  return out;
}

bool proves_at_least(const json &start_summary, const std::string &start_text,
                     const json &candidate_summary, const std::string &candidate_text,
                     std::string &why) {
  const json start = start_summary.value("properties", json::object());
  const json candidate = candidate_summary.value("properties", json::object());
  for (const auto &[property, verdict] : start.items()) {
    const std::string was = verdict.value("verdict", "");
    const std::string now = candidate.contains(property)
                                ? candidate[property].value("verdict", std::string("absent"))
                                : "absent";
    if (rank(now) < rank(was)) {
      why = property + " was " + was + ", now " + now;
      return false;
    }
  }
  const size_t before = assertions_in(start_text), after = assertions_in(candidate_text);
  if (after < before) {
    why = "assertions removed (" + std::to_string(before) + " before, " + std::to_string(after) +
          " now)";
    return false;
  }
  return true;
}

std::optional<std::string> apply_workspace_edit(const std::string &text, const json &edit,
                                                const std::string &uri) {
  json edits = json::array();
  if (edit.contains("changes") && edit["changes"].contains(uri))
    edits = edit["changes"][uri];
  for (const json &change : edit.value("documentChanges", json::array()))
    if (change.contains("textDocument") && change["textDocument"].value("uri", "") == uri)
      for (const json &e : change.value("edits", json::array()))
        edits.push_back(e);
  if (edits.empty())
    return std::nullopt;
  struct Replace {
    size_t begin, end;
    std::string with;
  };
  std::vector<Replace> replaces;
  for (const json &e : edits)
    replaces.push_back({offset_of(text, e["range"]["start"]), offset_of(text, e["range"]["end"]),
                        e.value("newText", "")});
  std::sort(replaces.begin(), replaces.end(),
            [](const Replace &a, const Replace &b) { return a.begin > b.begin; });
  std::string out = text;
  for (const Replace &r : replaces)
    out.replace(r.begin, r.end - r.begin, r.with);
  return out;
}

std::string file_uri(const std::string &absolute_path) {
  static const char *hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (const char ch : absolute_path) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || std::string_view("/-_.~").find(ch) != std::string_view::npos) {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string text_fingerprint(const std::string &text) {
  uint64_t h = 1469598103934665603ull;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

namespace {

std::string read_text(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

json measurement_json(const Measurement &m) {
  return {{"seconds", m.seconds},
          {"flops", m.flops},
          {"bytes", m.bytes},
          {"peak_flops", m.peak_flops},
          {"peak_bandwidth", m.peak_bandwidth}};
}

Measurement measurement_from(const json &j) {
  Measurement m;
  if (!j.is_object())
    return m;
  m.seconds = j.value("seconds", 0.0);
  m.flops = j.value("flops", 0.0);
  m.bytes = j.value("bytes", 0.0);
  m.peak_flops = j.value("peak_flops", 0.0);
  m.peak_bandwidth = j.value("peak_bandwidth", 0.0);
  return m;
}

// The trajectory file as --resume reads it: the baseline line and the steps.
struct SavedRun {
  json baseline;
  std::vector<json> steps;
};

SavedRun read_trajectory(const std::filesystem::path &path) {
  SavedRun run;
  std::ifstream in(path);
  if (!in)
    return run;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty())
      continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("action") || !j["action"].is_string())
      throw std::runtime_error("--resume: line " + std::to_string(number) + " of " + path.string() +
                               " is not a step of a trajectory");
    if (j["action"] == "baseline")
      run.baseline = std::move(j);
    else
      run.steps.push_back(std::move(j));
  }
  return run;
}

} // namespace

OptimizeResult optimize(const std::vector<LspClient *> &clients, const KnowledgeBase &kb,
                        const OptimizeOptions &o,
                        const std::function<void(const std::string &)> &progress) {
  const auto say = [&](const std::string &line) {
    if (progress)
      progress(line);
  };
  const size_t jobs = static_cast<size_t>(std::max(1, o.jobs));
  if (clients.size() < jobs || std::find(clients.begin(), clients.end(), nullptr) != clients.end())
    throw std::invalid_argument("optimize: one language server per job is needed");
  const std::string start_text = read_text(o.file);
  const std::string uri = file_uri(o.file);
  const std::filesystem::path out = o.out_dir;
  std::random_device entropy;
  std::mt19937_64 seeds(entropy());

  const auto errors_of = [](const json &diagnostics) {
    std::vector<std::string> errors;
    for (const json &d : diagnostics)
      if (d.value("severity", 0) == 1)
        errors.push_back(d.value("code", "") + " " + d.value("message", ""));
    return errors;
  };
  std::mutex seed_mutex;
  const auto benchmark = [&](LspClient &client) {
    json args = {{"uri", uri}, {"emitOnly", o.emit_only}};
    std::vector<std::string> extra = o.runner_args;
    if (o.fresh_inputs) {
      std::lock_guard lock(seed_mutex);
      extra.push_back("--seed");
      extra.push_back(std::to_string(seeds() % 2147483647 + 1));
    }
    if (!extra.empty())
      args["args"] = extra;
    return read_benchmark(client.execute("argus.benchmark", args, o.benchmark_timeout), o.kernel);
  };

  // Every server opens the start: it must check clean; its summary is what
  // every candidate must keep proving.
  for (size_t i = 0; i < jobs; ++i)
    clients[i]->open(uri, start_text);
  LspClient &proposer = *clients[0];
  json diagnostics = proposer.diagnostics(uri);
  if (const auto errors = errors_of(diagnostics); !errors.empty())
    throw std::runtime_error("the starting kernel does not check clean: " + errors.front());
  const json start_verification = proposer.execute("argus.verification", {{"uri", uri}});
  const json *start_summary_ptr = kernel_summary(start_verification, o.kernel);
  if (!start_summary_ptr)
    throw std::runtime_error("no kernel '" + o.kernel + "' in " + o.file);
  const json start_summary = *start_summary_ptr;
  // The sizes the start's check ran at (they satisfy its assumptions).
  const json start_instances = start_summary.value("instances", json::array());

  // Offline, techniques are applied through the server's refactor code
  // actions only; with a model, every technique of the target is an action.
  std::optional<ChatClient> model;
  if (o.model)
    model.emplace(*o.model);
  std::mutex model_mutex; // one request at a time: the token budget is the episode's
  KnowledgeBase techniques;
  for (const Technique &t : kb.techniques)
    if (model || !t.refactor.empty())
      techniques.techniques.push_back(t);
  Planner planner(techniques, o.target, o.knobs ? *o.knobs : discover_knobs(start_text));
  OptimizeResult result;
  std::string best_text = start_text;
  Measurement best_measurement;
  Measurement baseline_measurement;
  const std::string fingerprint = text_fingerprint(start_text);

  // The baseline: measured now, or read back with the steps after it.
  const SavedRun saved = o.resume ? read_trajectory(out / "trajectory.jsonl") : SavedRun{};
  if (o.resume && !saved.baseline.is_null()) {
    if (saved.baseline.value("kernel", "") != o.kernel ||
        saved.baseline.value("start", "") != fingerprint)
      throw std::runtime_error("--resume: " + (out / "trajectory.jsonl").string() +
                               " continues another kernel or another version of " + o.file);
    baseline_measurement = measurement_from(saved.baseline.value("measurement", json()));
    if (baseline_measurement.seconds <= 0)
      throw std::runtime_error("--resume: the trajectory's baseline has no time");
    planner.record(Action{}, features_of(diagnostics, baseline_measurement),
                   {Outcome::Kind::Correct, baseline_measurement.seconds});
    best_measurement = baseline_measurement;
    for (const json &step : saved.steps) {
      const auto action = Action::from_key(step["action"].get<std::string>());
      const auto kind = outcome_kind(step.value("outcome", ""));
      if (!action || !kind)
        throw std::runtime_error("--resume: a step of " + (out / "trajectory.jsonl").string() +
                                 " has an unknown action or outcome: " + step.dump());
      Features features;
      for (const json &f : step.value("features", json::array()))
        if (f.is_string())
          features.insert(f.get<std::string>());
      const double seconds = step.value("seconds", 0.0);
      if (*kind == Outcome::Kind::Correct && seconds > 0 && seconds < planner.best_seconds())
        best_measurement = measurement_from(step.value("measurement", json()));
      planner.record(*action, features, {*kind, seconds});
      result.trajectory.push_back(step);
    }
    result.resumed_steps = static_cast<int>(saved.steps.size());
    if (result.resumed_steps > 0) {
      best_text = read_text((out / "best.argus").string());
      for (size_t i = 0; i < jobs; ++i)
        clients[i]->change(uri, best_text);
      diagnostics = proposer.diagnostics(uri);
      if (const auto errors = errors_of(diagnostics); !errors.empty())
        throw std::runtime_error("--resume: the saved best version does not check clean: " +
                                 errors.front());
    }
    say("resumed: " + std::to_string(result.resumed_steps) + " steps, baseline " +
        ms(baseline_measurement.seconds) + ", best " + ms(planner.best_seconds()));
  } else {
    const Benchmark baseline = benchmark(proposer);
    if (!baseline.ok || !baseline.correct || baseline.measurement.seconds <= 0)
      throw std::runtime_error(
          "the starting kernel's benchmark failed" +
          (baseline.stage.empty() ? "" : " at " + baseline.stage) +
          (baseline.error.empty() ? "" : ": " + baseline.error) +
          (baseline.ok && !baseline.correct ? ": results are not correct" : ""));
    baseline_measurement = best_measurement = baseline.measurement;
    planner.record(Action{}, features_of(diagnostics, baseline.measurement),
                   {Outcome::Kind::Correct, baseline.measurement.seconds});
    say("baseline: " + ms(baseline.measurement.seconds));
    if (!o.out_dir.empty()) {
      std::filesystem::create_directories(out);
      json line = planner.trajectory().back();
      line["kernel"] = o.kernel;
      line["start"] = fingerprint;
      line["measurement"] = measurement_json(baseline.measurement);
      std::ofstream(out / "trajectory.jsonl") << line.dump() << "\n";
      std::ofstream(out / "best.argus") << best_text;
    }
  }
  result.baseline_seconds = baseline_measurement.seconds;

  // A candidate, as the server and the runner see it.
  struct Verdict {
    Outcome outcome{Outcome::Kind::NoChange, 0};
    std::string note;
    json diagnostics;
    Measurement measurement;
  };
  const auto evaluate = [&](LspClient &client, const std::string &text) {
    Verdict v;
    client.change(uri, text);
    v.diagnostics = client.diagnostics(uri);
    if (const auto errors = errors_of(v.diagnostics); !errors.empty()) {
      const bool checker = errors.front().starts_with("E09");
      v.outcome.kind = checker ? Outcome::Kind::Violation : Outcome::Kind::CompileError;
      v.note = errors.front();
      return v;
    }
    const json verification =
        client.execute("argus.verification", {{"uri", uri}, {"accepts", start_instances}});
    const json *summary = kernel_summary(verification, o.kernel);
    std::string why;
    if (!summary || !proves_at_least(start_summary, start_text, *summary, text, why)) {
      v.outcome.kind = Outcome::Kind::Violation;
      v.note = "proves less than the start: " + (summary ? why : "the kernel is gone");
      return v;
    }
    // A version must run at every size its start ran at: a knob that narrows
    // an assume (K % BK == 0 with a larger BK) would pass at the bench's
    // sizes and fail at the held-out ones.
    if (const std::string refused = refused_sizes(verification, o.kernel, start_instances);
        o.keep_sizes && !refused.empty()) {
      v.outcome.kind = Outcome::Kind::Violation;
      v.note = "accepts fewer sizes than the start: its assumptions refuse " + refused;
      return v;
    }
    const Benchmark b = benchmark(client);
    if (!b.ok && b.stage == "timeout")
      v.outcome.kind = Outcome::Kind::Timeout;
    else if (!b.ok && (b.stage == "compile" || b.measurement.seconds <= 0))
      v.outcome.kind = Outcome::Kind::CompileError;
    else if (!b.correct)
      v.outcome.kind = Outcome::Kind::WrongResult;
    else
      v.outcome = {Outcome::Kind::Correct, b.measurement.seconds};
    if (v.outcome.kind != Outcome::Kind::Correct)
      v.note = b.error.empty() ? b.stage : b.error;
    v.measurement = b.measurement;
    return v;
  };
  const auto measured = [&](const Measurement &m) {
    return ms(m.seconds) +
           (m.flops > 0 ? ", " + std::to_string(static_cast<int64_t>(m.flops / m.seconds / 1e12)) +
                              " TFLOP/s"
                        : "");
  };

  // The server's account of the first checker error of a document as it is
  // now: its counterexample's history (argus.explain), for a repair prompt.
  const auto explanation = [&](LspClient &client, const json &diagnostics) -> std::string {
    for (const json &d : diagnostics)
      if (d.value("severity", 0) == 1 && d.value("code", "").starts_with("E09")) {
        try {
          const json e = client.execute("argus.explain", {{"uri", uri}, {"diagnostic", d}});
          const std::string text = e.value("markdown", "");
          if (!text.empty())
            return "\nThe server's explanation of " + d.value("code", "") + ", step by step:\n" +
                   text;
        } catch (const LspError &) {
          // No explanation: the diagnostics above still say it.
        }
        break;
      }
    return "";
  };
  const auto ask_model = [&](const ProposalContext &context,
                             std::string &note) -> std::optional<std::string> {
    std::lock_guard lock(model_mutex);
    try {
      const std::string answer = model->complete(proposal_messages(context));
      auto file = file_from_answer(answer, context.rejection.empty() ? context.file_text
                                                                     : context.rejected_text);
      if (!file)
        note = "the model's answer has neither a file in a code block nor a diff that applies";
      return file;
    } catch (const ModelError &error) {
      note = std::string("model: ") + error.what();
      return std::nullopt;
    }
  };

  // What every text evaluated so far came to: a candidate seen before is not
  // run again (the search spends that action instead of a step).
  std::set<std::string> evaluated = {best_text, start_text};
  std::vector<std::string> document(jobs, best_text); // each server's text now
  int steps = result.resumed_steps;
  const auto started = std::chrono::steady_clock::now();
  const auto time_left = [&] {
    return o.time_budget.count() <= 0 || std::chrono::steady_clock::now() - started < o.time_budget;
  };
  while (steps < o.budget) {
    if (!time_left()) {
      say("the time budget of " + std::to_string(o.time_budget.count()) + " s is spent after " +
          std::to_string(steps) + " steps");
      break;
    }
    const Features features = features_of(diagnostics, best_measurement);
    // A round: up to `jobs` distinct candidates made from the best version.
    struct Candidate {
      Action action;
      std::string text, note;
      Verdict verdict;
      int repairs = 0;
    };
    std::vector<Candidate> round;
    std::set<std::string> picked;
    const size_t want = std::min<size_t>(jobs, static_cast<size_t>(o.budget - steps));
    while (round.size() < want) {
      const auto action = planner.choose(features, picked);
      if (!action)
        break;
      picked.insert(action->key());
      Candidate c;
      c.action = *action;
      std::optional<std::string> text;
      if (action->kind == Action::Kind::Knob) {
        text = best_text;
        for (const KnobMove &m : action->moves)
          if (text)
            text = set_constant(*text, m.knob, m.to);
        if (!text)
          c.note = "a knob is not a module constant";
      } else if (const Technique *t = techniques.find(action->technique); t) {
        if (!t->refactor.empty()) {
          if (document[0] != best_text) {
            proposer.change(uri, best_text);
            document[0] = best_text;
          }
          const json whole = {{"start", {{"line", 0}, {"character", 0}}},
                              {"end", {{"line", 1 << 20}, {"character", 0}}}};
          for (const json &a : proposer.code_actions(uri, whole))
            if (a.value("kind", "") == t->refactor && a.contains("edit")) {
              text = apply_workspace_edit(best_text, a["edit"], uri);
              break;
            }
        }
        if (!text && model) {
          ProposalContext context{
              best_text,         o.kernel, t, diagnostics, measured(best_measurement),
              planner.summary(), "",       ""};
          text = ask_model(context, c.note);
        } else if (!text) {
          c.note = "no " + t->refactor + " here";
        }
      }
      if (!text || evaluated.count(*text)) {
        // Nothing new from this action on this version: spend it, not a step.
        say("skip " + action->key() + ": " +
            (text ? std::string("its version was evaluated before") : c.note));
        planner.spend(*action);
        continue;
      }
      c.text = *text;
      evaluated.insert(c.text);
      round.push_back(std::move(c));
    }
    if (round.empty()) {
      result.exhausted = true;
      say("the search has nothing left to try after " + std::to_string(steps) + " steps");
      break;
    }
    // Evaluate the round, each candidate by its own server; a model's
    // version may go back to it with the server's verdict (repair rounds).
    const auto run = [&](size_t i) {
      Candidate &c = round[i];
      LspClient &client = *clients[i];
      document[i] = c.text;
      c.verdict = evaluate(client, c.text);
      const bool by_model = model && c.action.kind == Action::Kind::Technique &&
                            !techniques.find(c.action.technique)->refactor.size();
      while (by_model && c.repairs < o.repair_rounds &&
             (c.verdict.outcome.kind == Outcome::Kind::Violation ||
              c.verdict.outcome.kind == Outcome::Kind::CompileError)) {
        ++c.repairs;
        ProposalContext context{best_text,
                                o.kernel,
                                techniques.find(c.action.technique),
                                diagnostics,
                                measured(best_measurement),
                                planner.summary(),
                                c.verdict.note +
                                    "\nIts diagnostics: " + c.verdict.diagnostics.dump(1) +
                                    explanation(client, c.verdict.diagnostics),
                                c.text};
        std::string note;
        const auto repaired = ask_model(context, note);
        if (!repaired || *repaired == best_text)
          break;
        c.text = *repaired;
        document[i] = c.text;
        c.verdict = evaluate(client, c.text);
      }
    };
    std::vector<std::exception_ptr> failures(round.size());
    std::vector<std::thread> threads;
    for (size_t i = 1; i < round.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          run(i);
        } catch (...) {
          failures[i] = std::current_exception();
        }
      });
    try {
      run(0);
    } catch (...) {
      failures[0] = std::current_exception();
    }
    for (std::thread &t : threads)
      t.join();
    for (const std::exception_ptr &f : failures)
      if (f)
        std::rethrow_exception(f);

    for (const Candidate &c : round)
      evaluated.insert(c.text); // repairs included
    std::vector<Planner::Step> recorded;
    const double best_before = planner.best_seconds();
    for (const Candidate &c : round)
      recorded.push_back({c.action, features, c.verdict.outcome});
    planner.record_round(recorded);
    for (size_t i = 0; i < round.size(); ++i) {
      const Candidate &c = round[i];
      const Outcome &outcome = c.verdict.outcome;
      if (outcome.kind == Outcome::Kind::Correct && outcome.seconds == planner.best_seconds() &&
          outcome.seconds < best_before) {
        best_text = c.text;
        best_measurement = c.verdict.measurement;
        diagnostics = c.verdict.diagnostics;
        if (!o.out_dir.empty())
          std::ofstream(out / "best.argus") << best_text;
      }
      ++steps;
      json entry = planner.trajectory()[planner.trajectory().size() - round.size() + i];
      entry["note"] = c.verdict.note.empty() ? c.note : c.verdict.note;
      entry["repairs"] = c.repairs;
      if (outcome.kind == Outcome::Kind::Correct)
        entry["measurement"] = measurement_json(c.verdict.measurement);
      result.trajectory.push_back(entry);
      if (!o.out_dir.empty())
        std::ofstream(out / "trajectory.jsonl", std::ios::app) << entry.dump() << "\n";
      const std::string note = entry["note"].get<std::string>();
      say("step " + std::to_string(steps) + "/" + std::to_string(o.budget) + ": " + c.action.key() +
          " -> " + entry["outcome"].get<std::string>() +
          (outcome.kind == Outcome::Kind::Correct ? " " + ms(outcome.seconds) : "") +
          (c.repairs
               ? " after " + std::to_string(c.repairs) + " repair" + (c.repairs == 1 ? "" : "s")
               : "") +
          " (best " + ms(planner.best_seconds()) + ")" + (note.empty() ? "" : " — " + note));
    }
  }
  result.best_text = best_text;
  result.best_seconds = planner.best_seconds();
  char line[256];
  std::snprintf(line, sizeof line,
                "# argus agent optimize: %s, kernel %s\n\nbaseline %s, best %s (%.2fx) after %d "
                "steps%s\n\n| step | action | outcome | time | reward | note "
                "|\n|---:|---|---|---:|---:|---|\n",
                o.file.c_str(), o.kernel.c_str(), ms(result.baseline_seconds).c_str(),
                ms(result.best_seconds).c_str(), result.baseline_seconds / result.best_seconds,
                steps, result.exhausted ? " (the search ran out of candidates)" : "");
  result.report = line;
  for (const json &s : result.trajectory) {
    std::snprintf(line, sizeof line, "| %d | %s | %s | %s | %+.3f | %s |\n",
                  s["step"].get<int>() - 1, s["action"].get<std::string>().c_str(),
                  s["outcome"].get<std::string>().c_str(),
                  s["outcome"] == "correct" ? ms(s["seconds"].get<double>()).c_str() : "",
                  s["reward"].get<double>(), s.value("note", "").substr(0, 80).c_str());
    result.report += line;
  }
  // The roofline: the least time the baseline's FLOPs and bytes allow.
  const Measurement &b = baseline_measurement;
  double floor_seconds = 0;
  if (b.flops > 0 && b.peak_flops > 0)
    floor_seconds = b.flops / b.peak_flops;
  if (b.bytes > 0 && b.peak_bandwidth > 0)
    floor_seconds = std::max(floor_seconds, b.bytes / b.peak_bandwidth);
  result.plot = speed_plot(result.trajectory, result.baseline_seconds,
                           floor_seconds > 0 ? result.baseline_seconds / floor_seconds : 0);
  result.report += "\n![speed per step](report.svg)\n";
  if (!o.out_dir.empty()) {
    std::ofstream(out / "best.argus") << result.best_text;
    std::ofstream(out / "report.md") << result.report;
    std::ofstream(out / "report.svg") << result.plot;
  }
  return result;
}

std::string speed_plot(const json &trajectory, double baseline_seconds, double ceiling) {
  const double width = 640, height = 360, left = 56, right = 16, top = 32, bottom = 44;
  const size_t steps = trajectory.size();
  double top_speed = std::max(1.0, ceiling);
  for (const json &s : trajectory)
    if (s.value("outcome", "") == "correct" && s.value("seconds", 0.0) > 0)
      top_speed = std::max(top_speed, baseline_seconds / s["seconds"].get<double>());
  top_speed *= 1.1;
  const auto x = [&](double step) {
    return left + (width - left - right) * (steps ? step / static_cast<double>(steps) : 0);
  };
  const auto y = [&](double speed) {
    return top + (height - top - bottom) * (1 - speed / top_speed);
  };
  std::string svg;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
                width, height, width, height);
  svg += buf;
  svg += "<title>speed per step, relative to the starting kernel</title>\n";
  std::snprintf(buf, sizeof buf,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
                left, top, left, height - bottom, left, height - bottom, width - right,
                height - bottom);
  svg += buf;
  for (int tick = 0; tick <= 4; ++tick) {
    const double speed = top_speed * tick / 4;
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.2fx</text>\n",
                  left - 4, y(speed) + 4, speed);
    svg += buf;
  }
  std::snprintf(buf, sizeof buf,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">step (of %zu)</text>\n",
                (left + width - right) / 2, height - 10, steps);
  svg += buf;
  if (ceiling > 0) {
    std::snprintf(buf, sizeof buf,
                  "<line class=\"roofline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                  "stroke=\"gray\" stroke-dasharray=\"4 3\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                  "text-anchor=\"end\" fill=\"gray\">roofline %.2fx</text>\n",
                  left, y(ceiling), width - right, y(ceiling), width - right, y(ceiling) - 4,
                  ceiling);
    svg += buf;
  }
  // The best so far, as a step line from the baseline.
  std::string best = "<polyline class=\"best\" fill=\"none\" stroke=\"#1f77b4\" points=\"";
  double best_speed = 1;
  std::snprintf(buf, sizeof buf, "%.1f,%.1f", x(0), y(1));
  best += buf;
  std::string marks;
  for (size_t i = 0; i < steps; ++i) {
    const json &s = trajectory[i];
    const double step = static_cast<double>(s.value("step", static_cast<int>(i + 1)) - 1);
    if (s.value("outcome", "") == "correct" && s.value("seconds", 0.0) > 0) {
      const double speed = baseline_seconds / s["seconds"].get<double>();
      std::snprintf(buf, sizeof buf,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#ff7f0e\"><title>%s: "
                    "%.2fx</title></circle>\n",
                    x(step), y(speed), s.value("action", "").c_str(), speed);
      marks += buf;
      best_speed = std::max(best_speed, speed);
    } else if (s.value("outcome", "") != "no-change") {
      std::snprintf(buf, sizeof buf,
                    "<text class=\"failed\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                    "fill=\"#d62728\">x<title>%s: %s</title></text>\n",
                    x(step), height - bottom + 4, s.value("action", "").c_str(),
                    s.value("outcome", "").c_str());
      marks += buf;
    }
    std::snprintf(buf, sizeof buf, " %.1f,%.1f", x(step), y(best_speed));
    best += buf;
  }
  svg += best + "\"/>\n" + marks + "</svg>\n";
  return svg;
}

} // namespace argus::agent
