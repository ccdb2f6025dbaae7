// The agent's planner (issue 14, item 3): in-context reinforcement learning
// over what to try next.
//
// State: the kernel's features, a set of signals named as the knowledge base
// names them (diagnostic codes and lints from the pulled diagnostics, resource
// pressure from argus.compile, the roofline position of the last timing).
// Actions: a knowledge-base technique for the kernel's target, or a move of
// the kernel's knobs (module constants) through their values: the search. Reward: the log speedup
// over the best correct version so far; violations, compile errors, wrong results and time-outs are
// penalties. Policy: UCB1 over (action, feature) pairs, with the knowledge
// base's signals as a prior, so an untried technique that the features point
// to goes first; the trajectory is summarised for the proposer's prompt.
//
// The knobs are searched, not swept: each configuration is tried once (the
// planner remembers what it visited); from the best configuration a move
// goes to a neighbouring value of one knob; when every such neighbour was
// visited (a local optimum of coordinate descent) two knobs move together,
// and when those are spent too a knob jumps to any value it has not had.
// UCB orders the moves that are left, so a direction that paid goes first.
#pragma once

#include "argus/agent/knowledge_base.h"

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace argus::agent {

using Features = std::set<std::string>;

// What a compile and a benchmark said, as far as the planner needs it.
struct Measurement {
  double seconds = 0;        // the kernel's median time
  double flops = 0;          // from @bench (0: unknown)
  double bytes = 0;          // bytes it must move (0: unknown)
  double peak_flops = 0;     // the target's peak (FLOP/s)
  double peak_bandwidth = 0; // and memory bandwidth (B/s)
  int64_t registers = 0;     // per thread
  int64_t spill_bytes = 0;
  int64_t shared_bytes = 0; // per block
  int64_t shared_limit = 0; // per block, the target's
  int64_t blocks = 0;       // in the grid
  int64_t multiprocessors = 0;
};

// The signals of a kernel: each diagnostic's code (E0902, W0904, ...) and,
// from a measurement, memory-bound / compute-bound (the roofline: which
// ceiling the time is closer to), registers (over 200 per thread), spills,
// shared-memory (over 3/4 of the limit), small-grid (fewer blocks than
// multiprocessors) and latency-bound (under a third of both ceilings).
Features features_of(const nlohmann::json &diagnostics,
                     const std::optional<Measurement> &measurement = std::nullopt);

// A knob and the values it may take (in order: moves go to a neighbour).
struct Knob {
  std::string name;
  std::vector<int64_t> values;
  int64_t current = 0;
};

// One knob's move: `knob` from its value to `to`.
struct KnobMove {
  std::string knob;
  int64_t from = 0, to = 0;
};

struct Action {
  enum class Kind { Technique, Knob };
  Kind kind = Kind::Technique;
  std::string technique;       // Technique: its id (empty: the baseline)
  std::vector<KnobMove> moves; // Knob: one move, or two at a local optimum
  std::string key() const;     // "technique:ID", "knob:NAME=TO[,NAME=TO]" or "baseline"
  // The action a key names (a trajectory read back by --resume); nullopt for
  // a key that is none of the forms above.
  static std::optional<Action> from_key(const std::string &key);
};

struct Outcome {
  enum class Kind { Correct, Violation, CompileError, WrongResult, Timeout, NoChange };
  Kind kind = Kind::Correct;
  double seconds = 0; // Correct: the new median time
};

// Penalties (negative rewards) and the reward of a correct result: the log
// of the speedup over the best correct time so far (a slower version earns
// less than nothing, a faster one more).
struct Rewards {
  double violation = -1.0;
  double compile_error = -1.0;
  double wrong_result = -2.0; // a clean check but wrong numbers: the checker missed something
  double timeout = -1.5;
  double no_change = -0.25;
};
double reward_of(const Outcome &outcome, double best_seconds, const Rewards &rewards = {});
// An outcome's kind from its name in the trajectory ("correct", "violation",
// "compile-error", "wrong-result", "timeout", "no-change").
std::optional<Outcome::Kind> outcome_kind(const std::string &name);

class Planner {
public:
  // `target`: sm90 or gfx942 (techniques for other targets are not actions).
  // `explore`: the UCB bonus's scale, in the rewards' unit (log speedup):
  // 0.3 makes an untried action worth about a 35% speedup, so a technique
  // that pays is tried again before every unrelated one is tried once.
  Planner(const KnowledgeBase &kb, std::string target, std::vector<Knob> knobs,
          double explore = 0.3);

  // The actions available now: every technique of the target not spent at
  // the current best version, and the knob moves to configurations not yet
  // visited (one knob to a neighbour; else two; else one to any value).
  std::vector<Action> actions() const;
  // The next action for these features (UCB1 with the knowledge base's prior;
  // ties broken by the order of actions()), none of `skip` (keys: the other
  // actions of a round of parallel candidates); nullopt when the search has
  // nothing left to try.
  std::optional<Action> choose(const Features &features,
                               const std::set<std::string> &skip = {}) const;
  // Records a step: its reward updates the estimates of (action, feature) for
  // each feature, a knob move's configuration is visited, and a move that
  // helped becomes the knobs' values.
  void record(const Action &action, const Features &features, const Outcome &outcome);
  // A round of candidates made from the same version and evaluated together
  // (--jobs): each is rewarded against the best before the round, and only
  // the fastest improvement becomes the best (two knob moves that each paid
  // are not combined untried).
  struct Step {
    Action action;
    Features features;
    Outcome outcome;
  };
  void record_round(const std::vector<Step> &round);
  // An action that cannot give a new version of the current best (its
  // candidate is one already evaluated, or no code action applies): not
  // offered again until the best changes. No step is spent on it.
  void spend(const Action &action);

  double best_seconds() const { return best_seconds_; }
  size_t steps() const { return trajectory_.size(); }
  // The trajectory as text for the proposer's context: one line per step
  // (action, outcome, reward), the best time, and what paid so far.
  std::string summary(size_t last = 12) const;
  // The trajectory as JSON (one object per step) for the log.
  nlohmann::json trajectory() const { return trajectory_; }

private:
  struct Estimate {
    double total = 0;
    int64_t count = 0;
  };
  double prior(const Action &action, const Features &features) const;
  // "A=64,B=32": the knobs' values after `moves` (none: the current ones).
  std::string configuration(const std::vector<KnobMove> &moves = {}) const;
  std::vector<Action> knob_moves() const;

  const KnowledgeBase &kb_;
  std::string target_;
  std::vector<Knob> knobs_;
  double explore_;
  std::map<std::pair<std::string, std::string>, Estimate> estimates_; // (action, feature)
  std::map<std::string, int64_t> tried_;                              // per action
  std::set<std::string> visited_; // configurations (of the current best text)
  std::set<std::string> spent_;   // action keys, at the current best
  double best_seconds_ = 0;
  nlohmann::json trajectory_ = nlohmann::json::array();
};

} // namespace argus::agent
