// The agent's planner: planner.h.
#include "argus/agent/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace argus::agent {

using nlohmann::json;

namespace {

// Every feature's estimate also feeds this one: an action's overall worth.
const std::string kAnyFeature = "*";

std::string outcome_name(Outcome::Kind kind) {
  switch (kind) {
  case Outcome::Kind::Correct:
    return "correct";
  case Outcome::Kind::Violation:
    return "violation";
  case Outcome::Kind::CompileError:
    return "compile-error";
  case Outcome::Kind::WrongResult:
    return "wrong-result";
  case Outcome::Kind::Timeout:
    return "timeout";
  case Outcome::Kind::NoChange:
    return "no-change";
  }
  return "?";
}

} // namespace

Features features_of(const json &diagnostics, const std::optional<Measurement> &m) {
  Features f;
  if (diagnostics.is_array())
    for (const json &d : diagnostics)
      if (d.is_object() && d.contains("code") && d["code"].is_string())
        f.insert(d["code"].get<std::string>());
  if (!m)
    return f;
  double compute = -1, memory = -1; // fractions of the ceilings
  if (m->seconds > 0 && m->flops > 0 && m->peak_flops > 0)
    compute = m->flops / m->seconds / m->peak_flops;
  if (m->seconds > 0 && m->bytes > 0 && m->peak_bandwidth > 0)
    memory = m->bytes / m->seconds / m->peak_bandwidth;
  if (compute >= 0 && memory >= 0) {
    f.insert(memory > compute ? "memory-bound" : "compute-bound");
    if (std::max(compute, memory) < 1.0 / 3.0)
      f.insert("latency-bound");
  } else if (compute >= 0.5 || memory >= 0.5) { // one ceiling known: only when near it
    f.insert(compute >= 0.5 ? "compute-bound" : "memory-bound");
  }
  if (m->registers > 200)
    f.insert("registers");
  if (m->spill_bytes > 0)
    f.insert("spills");
  if (m->shared_limit > 0 && m->shared_bytes * 4 > m->shared_limit * 3)
    f.insert("shared-memory");
  if (m->multiprocessors > 0 && m->blocks > 0 && m->blocks < m->multiprocessors)
    f.insert("small-grid");
  return f;
}

std::string Action::key() const {
  return kind == Kind::Technique ? "technique:" + technique
                                 : "knob:" + knob + "=" + std::to_string(to);
}

double reward_of(const Outcome &outcome, double best_seconds, const Rewards &rewards) {
  switch (outcome.kind) {
  case Outcome::Kind::Correct:
    if (best_seconds <= 0 || outcome.seconds <= 0)
      return 0; // the first correct time is the baseline
    return std::log(best_seconds / outcome.seconds);
  case Outcome::Kind::Violation:
    return rewards.violation;
  case Outcome::Kind::CompileError:
    return rewards.compile_error;
  case Outcome::Kind::WrongResult:
    return rewards.wrong_result;
  case Outcome::Kind::Timeout:
    return rewards.timeout;
  case Outcome::Kind::NoChange:
    return rewards.no_change;
  }
  return 0;
}

Planner::Planner(const KnowledgeBase &kb, std::string target, std::vector<Knob> knobs,
                 double explore)
    : kb_(kb), target_(std::move(target)), knobs_(std::move(knobs)), explore_(explore) {}

std::vector<Action> Planner::actions() const {
  std::vector<Action> out;
  for (const Technique &t : kb_.techniques)
    if (std::find(t.targets.begin(), t.targets.end(), target_) != t.targets.end()) {
      Action a;
      a.kind = Action::Kind::Technique;
      a.technique = t.id;
      out.push_back(a);
    }
  for (const Knob &k : knobs_) {
    const auto at = std::find(k.values.begin(), k.values.end(), k.current);
    if (at == k.values.end())
      continue;
    for (auto to : {at == k.values.begin() ? k.values.end() : at - 1, at + 1})
      if (to != k.values.end()) {
        Action a;
        a.kind = Action::Kind::Knob;
        a.knob = k.name;
        a.from = k.current;
        a.to = *to;
        out.push_back(a);
      }
  }
  return out;
}

// What the knowledge base says before any reward: a technique whose signals
// are among the features (half a point each, at most one), a knob move a
// little (knobs always apply), anything else nothing.
double Planner::prior(const Action &action, const Features &features) const {
  if (action.kind == Action::Kind::Knob)
    return 0.1;
  const Technique *t = kb_.find(action.technique);
  if (!t)
    return 0;
  double p = 0;
  for (const std::string &s : t->signals)
    if (features.count(s))
      p += 0.5;
  return std::min(p, 1.0);
}

Action Planner::choose(const Features &features) const {
  const std::vector<Action> candidates = actions();
  if (candidates.empty())
    return Action{};
  const double steps = static_cast<double>(trajectory_.size());
  double best_score = -1e300;
  size_t best = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string key = candidates[i].key();
    double value = 0;
    int64_t seen = 0;
    const auto add = [&](const std::string &feature) {
      auto it = estimates_.find({key, feature});
      if (it != estimates_.end() && it->second.count > 0) {
        value += it->second.total / static_cast<double>(it->second.count);
        ++seen;
      }
    };
    add(kAnyFeature);
    for (const std::string &f : features)
      add(f);
    const double mean = seen ? value / static_cast<double>(seen) : 0;
    const auto tried = tried_.find(key);
    const double n = tried == tried_.end() ? 0 : static_cast<double>(tried->second);
    const double bonus = explore_ * std::sqrt(std::log(steps + 2) / (n + 1));
    const double score = prior(candidates[i], features) + mean + bonus;
    if (score > best_score + 1e-12) {
      best_score = score;
      best = i;
    }
  }
  return candidates[best];
}

void Planner::record(const Action &action, const Features &features, const Outcome &outcome) {
  const double r = reward_of(outcome, best_seconds_);
  const std::string key = action.key();
  ++tried_[key];
  auto update = [&](const std::string &feature) {
    Estimate &e = estimates_[{key, feature}];
    e.total += r;
    ++e.count;
  };
  update(kAnyFeature);
  for (const std::string &f : features)
    update(f);
  const bool improved = outcome.kind == Outcome::Kind::Correct && outcome.seconds > 0 &&
                        (best_seconds_ <= 0 || outcome.seconds < best_seconds_);
  if (improved) {
    best_seconds_ = outcome.seconds;
    if (action.kind == Action::Kind::Knob)
      for (Knob &k : knobs_)
        if (k.name == action.knob)
          k.current = action.to;
  }
  trajectory_.push_back(
      {{"step", trajectory_.size() + 1},
       {"action", key},
       {"features", json(std::vector<std::string>(features.begin(), features.end()))},
       {"outcome", outcome_name(outcome.kind)},
       {"seconds", outcome.seconds},
       {"reward", r},
       {"best_seconds", best_seconds_}});
}

std::string Planner::summary(size_t last) const {
  std::string out;
  char line[256];
  const size_t from = trajectory_.size() > last ? trajectory_.size() - last : 0;
  if (from > 0)
    out += "(" + std::to_string(from) + " earlier steps)\n";
  for (size_t i = from; i < trajectory_.size(); ++i) {
    const json &s = trajectory_[i];
    const std::string outcome = s["outcome"].get<std::string>();
    if (outcome == "correct")
      std::snprintf(line, sizeof line, "step %zu: %s -> correct, %.4f ms (reward %+.3f)\n", i + 1,
                    s["action"].get<std::string>().c_str(), s["seconds"].get<double>() * 1e3,
                    s["reward"].get<double>());
    else
      std::snprintf(line, sizeof line, "step %zu: %s -> %s (reward %+.3f)\n", i + 1,
                    s["action"].get<std::string>().c_str(), outcome.c_str(),
                    s["reward"].get<double>());
    out += line;
  }
  if (best_seconds_ > 0) {
    std::snprintf(line, sizeof line, "best so far: %.4f ms\n", best_seconds_ * 1e3);
    out += line;
  }
  // What paid: actions by their mean reward over all features.
  std::vector<std::pair<double, std::string>> paid;
  for (const auto &[k, e] : estimates_)
    if (k.second == kAnyFeature && e.count > 0)
      paid.emplace_back(e.total / static_cast<double>(e.count), k.first);
  std::sort(paid.rbegin(), paid.rend());
  if (!paid.empty()) {
    out += "mean reward per action:";
    for (size_t i = 0; i < paid.size() && i < 5; ++i) {
      std::snprintf(line, sizeof line, " %s %+.3f%s", paid[i].second.c_str(), paid[i].first,
                    i + 1 < std::min<size_t>(paid.size(), 5) ? ";" : "");
      out += line;
    }
    out += "\n";
  }
  return out;
}

} // namespace argus::agent
