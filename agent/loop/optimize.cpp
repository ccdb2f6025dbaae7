// `argus agent optimize`: optimize.h.
#include "argus/agent/optimize.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

namespace argus::agent {

using nlohmann::json;

namespace {

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line))
    lines.push_back(line);
  return lines;
}

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

OptimizeResult optimize(LspClient &client, const KnowledgeBase &kb, const OptimizeOptions &o,
                        const std::function<void(const std::string &)> &progress) {
  const auto say = [&](const std::string &line) {
    if (progress)
      progress(line);
  };
  std::ifstream in(o.file);
  if (!in)
    throw std::runtime_error("cannot read " + o.file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string start_text = buffer.str();
  const std::string uri = file_uri(o.file);

  const auto errors_of = [](const json &diagnostics) {
    std::vector<std::string> errors;
    for (const json &d : diagnostics)
      if (d.value("severity", 0) == 1)
        errors.push_back(d.value("code", "") + " " + d.value("message", ""));
    return errors;
  };
  const auto benchmark = [&]() {
    json args = {{"uri", uri}, {"emitOnly", o.emit_only}};
    if (!o.runner_args.empty())
      args["args"] = o.runner_args;
    return read_benchmark(client.execute("argus.benchmark", args, o.benchmark_timeout), o.kernel);
  };

  client.open(uri, start_text);
  json diagnostics = client.diagnostics(uri);
  if (const auto errors = errors_of(diagnostics); !errors.empty())
    throw std::runtime_error("the starting kernel does not check clean: " + errors.front());
  const json start_verification = client.execute("argus.verification", {{"uri", uri}});
  const json *start_summary = kernel_summary(start_verification, o.kernel);
  if (!start_summary)
    throw std::runtime_error("no kernel '" + o.kernel + "' in " + o.file);
  const Benchmark baseline = benchmark();
  if (!baseline.ok || !baseline.correct || baseline.measurement.seconds <= 0)
    throw std::runtime_error("the starting kernel's benchmark failed" +
                             (baseline.stage.empty() ? "" : " at " + baseline.stage) +
                             (baseline.error.empty() ? "" : ": " + baseline.error) +
                             (baseline.ok && !baseline.correct ? ": results are not correct" : ""));

  // Offline, techniques are applied through the server's refactor code
  // actions only; with a model, every technique of the target is an action.
  std::optional<ChatClient> model;
  if (o.model)
    model.emplace(*o.model);
  KnowledgeBase techniques;
  for (const Technique &t : kb.techniques)
    if (model || !t.refactor.empty())
      techniques.techniques.push_back(t);
  Planner planner(techniques, o.target, o.knobs ? *o.knobs : discover_knobs(start_text));
  planner.record(Action{}, features_of(diagnostics, baseline.measurement),
                 {Outcome::Kind::Correct, baseline.measurement.seconds});
  say("baseline: " + ms(baseline.measurement.seconds));
  OptimizeResult result;
  result.baseline_seconds = baseline.measurement.seconds;
  std::string best_text = start_text;
  Measurement best_measurement = baseline.measurement;

  // A candidate, as the server and the runner see it.
  struct Verdict {
    Outcome outcome{Outcome::Kind::NoChange, 0};
    std::string note;
    json diagnostics;
    Measurement measurement;
  };
  const auto evaluate = [&](const std::string &text) {
    Verdict v;
    client.change(uri, text);
    v.diagnostics = client.diagnostics(uri);
    if (const auto errors = errors_of(v.diagnostics); !errors.empty()) {
      const bool checker = errors.front().starts_with("E09");
      v.outcome.kind = checker ? Outcome::Kind::Violation : Outcome::Kind::CompileError;
      v.note = errors.front();
      return v;
    }
    const json verification = client.execute("argus.verification", {{"uri", uri}});
    const json *summary = kernel_summary(verification, o.kernel);
    std::string why;
    if (!summary || !proves_at_least(*start_summary, start_text, *summary, text, why)) {
      v.outcome.kind = Outcome::Kind::Violation;
      v.note = "proves less than the start: " + (summary ? why : "the kernel is gone");
      return v;
    }
    const Benchmark b = benchmark();
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

  // The server's account of the first checker error of the document as it is
  // now: its counterexample's history (argus.explain), for a repair prompt.
  const auto explanation = [&](const json &diagnostics) -> std::string {
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

  for (int step = 1; step <= o.budget; ++step) {
    const Features features = features_of(diagnostics, best_measurement);
    const Action action = planner.choose(features);
    // The proposers: knob moves and refactor code actions offline; a model
    // for the other techniques when one is given.
    std::optional<std::string> candidate;
    std::string note;
    ProposalContext context{
        best_text,         o.kernel, nullptr, diagnostics, measured(best_measurement),
        planner.summary(), "",       ""};
    const auto ask_model = [&]() -> std::optional<std::string> {
      try {
        const std::string answer = model->complete(proposal_messages(context));
        auto file = file_from_answer(answer);
        if (!file)
          note = "the model's answer has no file in a code block";
        return file;
      } catch (const ModelError &error) {
        note = std::string("model: ") + error.what();
        return std::nullopt;
      }
    };
    if (action.kind == Action::Kind::Knob) {
      candidate = set_constant(best_text, action.knob, action.to);
    } else if (const Technique *t = techniques.find(action.technique); t) {
      if (!t->refactor.empty()) {
        const json whole = {{"start", {{"line", 0}, {"character", 0}}},
                            {"end", {{"line", 1 << 20}, {"character", 0}}}};
        for (const json &a : client.code_actions(uri, whole))
          if (a.value("kind", "") == t->refactor && a.contains("edit")) {
            candidate = apply_workspace_edit(best_text, a["edit"], uri);
            break;
          }
      }
      if (!candidate && model) {
        context.technique = t;
        candidate = ask_model();
      } else if (!candidate) {
        note = "no " + t->refactor + " here";
      }
    }
    Verdict verdict;
    int repairs = 0;
    std::string text = best_text;
    if (candidate && *candidate != best_text) {
      text = *candidate;
      verdict = evaluate(text);
      // Repair rounds: the model sees what the server said of its version.
      while (model && action.kind == Action::Kind::Technique && repairs < o.repair_rounds &&
             (verdict.outcome.kind == Outcome::Kind::Violation ||
              verdict.outcome.kind == Outcome::Kind::CompileError)) {
        ++repairs;
        context.rejection = verdict.note + "\nIts diagnostics: " + verdict.diagnostics.dump(1) +
                            explanation(verdict.diagnostics);
        context.rejected_text = text;
        const auto repaired = ask_model();
        if (!repaired || *repaired == best_text)
          break;
        text = *repaired;
        verdict = evaluate(text);
      }
      note = verdict.note.empty() ? note : verdict.note;
      if (verdict.outcome.kind == Outcome::Kind::Correct &&
          verdict.outcome.seconds < planner.best_seconds()) {
        best_text = text;
        best_measurement = verdict.measurement;
        diagnostics = verdict.diagnostics;
      }
      if (best_text != text)
        client.change(uri, best_text); // back to the best version
    }
    const Outcome outcome = verdict.outcome;
    planner.record(action, features, outcome);
    json entry = planner.trajectory().back();
    entry["note"] = note;
    entry["repairs"] = repairs;
    result.trajectory.push_back(entry);
    say("step " + std::to_string(step) + "/" + std::to_string(o.budget) + ": " + action.key() +
        " -> " + entry["outcome"].get<std::string>() +
        (outcome.kind == Outcome::Kind::Correct ? " " + ms(outcome.seconds) : "") +
        (repairs ? " after " + std::to_string(repairs) + " repair" + (repairs == 1 ? "" : "s")
                 : "") +
        " (best " + ms(planner.best_seconds()) + ")" + (note.empty() ? "" : " — " + note));
  }
  result.best_text = best_text;
  result.best_seconds = planner.best_seconds();
  char line[256];
  std::snprintf(
      line, sizeof line,
      "# argus agent optimize: %s, kernel %s\n\nbaseline %s, best %s (%.2fx) after %d "
      "steps\n\n| step | action | outcome | time | reward | note |\n|---:|---|---|---:|---:|---|\n",
      o.file.c_str(), o.kernel.c_str(), ms(result.baseline_seconds).c_str(),
      ms(result.best_seconds).c_str(), result.baseline_seconds / result.best_seconds, o.budget);
  result.report = line;
  for (const json &s : result.trajectory) {
    std::snprintf(line, sizeof line, "| %d | %s | %s | %s | %+.3f | %s |\n",
                  s["step"].get<int>() - 1, s["action"].get<std::string>().c_str(),
                  s["outcome"].get<std::string>().c_str(),
                  s["outcome"] == "correct" ? ms(s["seconds"].get<double>()).c_str() : "",
                  s["reward"].get<double>(), s["note"].get<std::string>().substr(0, 80).c_str());
    result.report += line;
  }
  // The roofline: the least time the baseline's FLOPs and bytes allow.
  const Measurement &b = baseline.measurement;
  double floor_seconds = 0;
  if (b.flops > 0 && b.peak_flops > 0)
    floor_seconds = b.flops / b.peak_flops;
  if (b.bytes > 0 && b.peak_bandwidth > 0)
    floor_seconds = std::max(floor_seconds, b.bytes / b.peak_bandwidth);
  result.plot = speed_plot(result.trajectory, result.baseline_seconds,
                           floor_seconds > 0 ? result.baseline_seconds / floor_seconds : 0);
  result.report += "\n![speed per step](report.svg)\n";
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
