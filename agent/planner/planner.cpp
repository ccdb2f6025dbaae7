// The agent's planner: planner.h.
#include "argus/agent/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

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
  if (kind == Kind::Technique)
    return technique.empty() ? "baseline" : "technique:" + technique;
  std::string key = "knob:";
  for (const KnobMove &m : moves)
    key += (key.size() > 5 ? "," : "") + m.knob + "=" + std::to_string(m.to);
  return key;
}

std::optional<Action> Action::from_key(const std::string &key) {
  Action a;
  if (key == "baseline")
    return a;
  if (key.starts_with("technique:") && key.size() > 10) {
    a.technique = key.substr(10);
    return a;
  }
  if (!key.starts_with("knob:"))
    return std::nullopt;
  a.kind = Kind::Knob;
  std::string_view rest = std::string_view(key).substr(5);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view move = rest.substr(0, comma);
    const size_t eq = move.find('=');
    if (eq == 0 || eq == std::string_view::npos || eq + 1 == move.size())
      return std::nullopt;
    KnobMove m;
    m.knob = std::string(move.substr(0, eq));
    try {
      size_t used = 0;
      const std::string digits(move.substr(eq + 1));
      m.to = std::stoll(digits, &used);
      if (used != digits.size())
        return std::nullopt;
    } catch (const std::exception &) {
      return std::nullopt;
    }
    a.moves.push_back(m);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  if (a.moves.empty())
    return std::nullopt;
  return a;
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
    : kb_(kb), target_(std::move(target)), knobs_(std::move(knobs)), explore_(explore) {
  visited_.insert(configuration());
}

std::string Planner::configuration(const std::vector<KnobMove> &moves) const {
  std::string out;
  for (const Knob &k : knobs_) {
    int64_t v = k.current;
    for (const KnobMove &m : moves)
      if (m.knob == k.name)
        v = m.to;
    out += (out.empty() ? "" : ",") + k.name + "=" + std::to_string(v);
  }
  return out;
}

std::vector<Action> Planner::knob_moves() const {
  // Each knob's neighbouring values, then the other values it may take.
  std::vector<std::vector<KnobMove>> near(knobs_.size()), far(knobs_.size());
  for (size_t i = 0; i < knobs_.size(); ++i) {
    const Knob &k = knobs_[i];
    const auto at = std::find(k.values.begin(), k.values.end(), k.current);
    for (auto v = k.values.begin(); v != k.values.end(); ++v) {
      if (*v == k.current)
        continue;
      const bool neighbour = at != k.values.end() && (v + 1 == at || v == at + 1);
      (neighbour ? near : far)[i].push_back({k.name, k.current, *v});
    }
  }
  std::vector<Action> out;
  const auto add = [&](std::vector<KnobMove> moves) {
    if (visited_.count(configuration(moves)))
      return;
    Action a;
    a.kind = Action::Kind::Knob;
    a.moves = std::move(moves);
    if (!spent_.count(a.key()))
      out.push_back(std::move(a));
  };
  for (const auto &moves : near)
    for (const KnobMove &m : moves)
      add({m});
  if (!out.empty())
    return out;
  // Pairs, most promising first: knobs that are coupled (a tile and the
  // threads that cover it) fail alone and pay together, so a pair of moves
  // that each failed the check comes first, and moves in the same direction
  // (which keep the knobs' ratios) before opposite ones.
  const auto failed = [&](const KnobMove &m) {
    Action single;
    single.kind = Action::Kind::Knob;
    single.moves = {m};
    const auto it = estimates_.find({single.key(), kAnyFeature});
    return it != estimates_.end() && it->second.count > 0 &&
           it->second.total / static_cast<double>(it->second.count) <= -1.0 + 1e-9;
  };
  std::vector<std::pair<int, std::vector<KnobMove>>> pairs;
  for (size_t i = 0; i < knobs_.size(); ++i)
    for (size_t j = i + 1; j < knobs_.size(); ++j)
      for (const KnobMove &a : near[i])
        for (const KnobMove &b : near[j]) {
          const bool same_direction = (a.to > a.from) == (b.to > b.from);
          pairs.push_back({2 * (failed(a) && failed(b)) + same_direction, {a, b}});
        }
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto &x, const auto &y) { return x.first > y.first; });
  for (auto &[score, moves] : pairs)
    add(std::move(moves));
  if (!out.empty())
    return out;
  for (const auto &moves : far)
    for (const KnobMove &m : moves)
      add({m});
  return out;
}

std::vector<Action> Planner::actions() const {
  std::vector<Action> out;
  for (const Technique &t : kb_.techniques)
    if (std::find(t.targets.begin(), t.targets.end(), target_) != t.targets.end() &&
        !spent_.count("technique:" + t.id)) {
      Action a;
      a.kind = Action::Kind::Technique;
      a.technique = t.id;
      out.push_back(a);
    }
  for (Action &a : knob_moves())
    out.push_back(std::move(a));
  return out;
}

void Planner::spend(const Action &action) { spent_.insert(action.key()); }

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

std::optional<Action> Planner::choose(const Features &features,
                                      const std::set<std::string> &skip) const {
  const std::vector<Action> candidates = actions();
  const double steps = static_cast<double>(trajectory_.size());
  double best_score = -1e300;
  std::optional<size_t> best;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string key = candidates[i].key();
    if (skip.count(key))
      continue;
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
  if (!best)
    return std::nullopt;
  return candidates[*best];
}

void Planner::record(const Action &action, const Features &features, const Outcome &outcome) {
  record_round({{action, features, outcome}});
}

void Planner::record_round(const std::vector<Step> &round) {
  // Rewards against the best before the round: its candidates were made
  // from the same version. Only the fastest improvement becomes the best.
  const double best_before = best_seconds_;
  std::optional<size_t> winner;
  for (size_t i = 0; i < round.size(); ++i) {
    const Outcome &o = round[i].outcome;
    if (o.kind == Outcome::Kind::Correct && o.seconds > 0 &&
        (best_before <= 0 || o.seconds < best_before) &&
        (!winner || o.seconds < round[*winner].outcome.seconds))
      winner = i;
  }
  for (const Step &step : round)
    if (step.action.kind == Action::Kind::Knob)
      visited_.insert(configuration(step.action.moves));
  if (winner) {
    const Action &action = round[*winner].action;
    const bool first = best_before <= 0;
    best_seconds_ = round[*winner].outcome.seconds;
    for (const KnobMove &m : action.moves)
      for (Knob &k : knobs_)
        if (k.name == m.knob)
          k.current = m.to;
    // A new best version: what was spent on the old one may pay on it, and
    // after a technique changed the text, configurations are worth a new try.
    if (!first)
      spent_.clear();
    if (action.kind == Action::Kind::Technique && !action.technique.empty()) {
      visited_.clear();
      visited_.insert(configuration());
    }
  }
  for (const Step &step : round) {
    const double r = reward_of(step.outcome, best_before);
    const std::string key = step.action.key();
    ++tried_[key];
    auto update = [&](const std::string &feature) {
      Estimate &e = estimates_[{key, feature}];
      e.total += r;
      ++e.count;
    };
    update(kAnyFeature);
    for (const std::string &f : step.features)
      update(f);
    trajectory_.push_back(
        {{"step", trajectory_.size() + 1},
         {"action", key},
         {"features", json(std::vector<std::string>(step.features.begin(), step.features.end()))},
         {"outcome", outcome_name(step.outcome.kind)},
         {"seconds", step.outcome.seconds},
         {"reward", r},
         {"best_seconds", best_seconds_}});
  }
}

std::optional<Outcome::Kind> outcome_kind(const std::string &name) {
  for (const auto kind :
       {Outcome::Kind::Correct, Outcome::Kind::Violation, Outcome::Kind::CompileError,
        Outcome::Kind::WrongResult, Outcome::Kind::Timeout, Outcome::Kind::NoChange})
    if (outcome_name(kind) == name)
      return kind;
  return std::nullopt;
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
