// The planner (argus/agent/planner.h): features from diagnostics and a
// measurement, the rewards, the knowledge base as the prior, learning from
// rewards within an episode, knob moves, the target's techniques only, and
// the trajectory's summary for the proposer.
#include "argus/agent/planner.h"

#include <gtest/gtest.h>

#include <cmath>

namespace argus::agent {
namespace {

using nlohmann::json;

const KnowledgeBase &kb() {
  static const KnowledgeBase base =
      load_knowledge_base(std::string(ARGUS_SOURCE_DIR) + "/agent/kb");
  return base;
}

TEST(PlannerTest, FeaturesComeFromDiagnosticsAndTheRoofline) {
  const json diagnostics = json::array({{{"code", "W0904"}}, {{"code", "E0902"}}});
  Measurement m;
  m.seconds = 1e-3;
  m.flops = 2e11; // 200 TFLOP/s of a 1000 peak: 0.2
  m.bytes = 3e9;  // 3 TB/s of a 4.8 peak: 0.625
  m.peak_flops = 1e15;
  m.peak_bandwidth = 4.8e12;
  m.registers = 232;
  m.shared_bytes = 200 << 10;
  m.shared_limit = 227 << 10;
  m.blocks = 64;
  m.multiprocessors = 132;
  const Features f = features_of(diagnostics, m);
  EXPECT_EQ(
      f, (Features{"E0902", "W0904", "memory-bound", "registers", "shared-memory", "small-grid"}));
  m.flops = 1e10; // 0.01 of peak
  m.bytes = 1e8;  // 0.02 of peak
  EXPECT_TRUE(features_of(json::array(), m).count("latency-bound"));
  EXPECT_TRUE(features_of(json::array(), std::nullopt).empty());
}

TEST(PlannerTest, RewardsAreLogSpeedupsAndPenalties) {
  EXPECT_DOUBLE_EQ(reward_of({Outcome::Kind::Correct, 1.0}, 0), 0); // the baseline
  EXPECT_NEAR(reward_of({Outcome::Kind::Correct, 0.5}, 1.0), std::log(2.0), 1e-12);
  EXPECT_LT(reward_of({Outcome::Kind::Correct, 2.0}, 1.0), 0);
  const Rewards r;
  EXPECT_EQ(reward_of({Outcome::Kind::Violation, 0}, 1.0), r.violation);
  EXPECT_LT(reward_of({Outcome::Kind::WrongResult, 0}, 1.0),
            reward_of({Outcome::Kind::Violation, 0}, 1.0)); // wrong numbers are the worst
  EXPECT_LT(reward_of({Outcome::Kind::NoChange, 0}, 1.0), 0);
}

TEST(PlannerTest, TheKnowledgeBasePointsTheFirstStep) {
  Planner p(kb(), "sm90", {});
  const Action first = p.choose({"W0904", "memory-bound"}).value();
  ASSERT_EQ(first.kind, Action::Kind::Technique);
  const Technique *t = kb().find(first.technique);
  ASSERT_NE(t, nullptr);
  EXPECT_NE(std::find(t->signals.begin(), t->signals.end(), "W0904"), t->signals.end())
      << first.technique;
  // A bank conflict points elsewhere.
  const Action conflict = p.choose({"W0902"}).value();
  const Technique *c = kb().find(conflict.technique);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(std::find(c->signals.begin(), c->signals.end(), "W0902"), c->signals.end());
}

TEST(PlannerTest, OnlyTheTargetsTechniquesAreActions) {
  Planner nv(kb(), "sm90", {}), amd(kb(), "gfx942", {});
  auto has = [](const Planner &p, const std::string &id) {
    for (const Action &a : p.actions())
      if (a.technique == id)
        return true;
    return false;
  };
  EXPECT_TRUE(has(nv, "wgmma"));
  EXPECT_FALSE(has(amd, "wgmma"));
  EXPECT_TRUE(has(amd, "s-setprio"));
  EXPECT_FALSE(has(nv, "s-setprio"));
}

// Within an episode the planner learns: an action that keeps failing is
// dropped for one that pays, which it then keeps choosing.
TEST(PlannerTest, LearnsFromRewards) {
  Planner p(kb(), "sm90", {});
  const Features f = {"W0904", "memory-bound"};
  p.record(Action{}, f, {Outcome::Kind::Correct, 10e-3}); // the baseline
  const Action first = p.choose(f).value();
  for (int i = 0; i < 3; ++i)
    p.record(first, f, {Outcome::Kind::Violation, 0});
  const Action second = p.choose(f).value();
  EXPECT_NE(second.key(), first.key());
  p.record(second, f, {Outcome::Kind::Correct, 5e-3}); // 2x
  EXPECT_DOUBLE_EQ(p.best_seconds(), 5e-3);
  int again = 0;
  for (int i = 0; i < 10; ++i) {
    const Action a = p.choose(f).value();
    again += a.key() == second.key();
    // It keeps paying (5% more each time); the others are slower than the best.
    const double seconds = p.best_seconds() * (a.key() == second.key() ? 0.95 : 1.2);
    p.record(a, f, {Outcome::Kind::Correct, seconds});
  }
  EXPECT_GE(again, 5) << p.summary();
}

TEST(PlannerTest, KnobsMoveToNeighboursAndKeepWhatPaid) {
  Planner p(kb(), "sm90", {{"BM", {32, 64, 128, 256}, 64}});
  std::vector<std::string> moves;
  for (const Action &a : p.actions())
    if (a.kind == Action::Kind::Knob)
      moves.push_back(a.key());
  EXPECT_EQ(moves, (std::vector<std::string>{"knob:BM=32", "knob:BM=128"}));
  Action up;
  up.kind = Action::Kind::Knob;
  up.moves = {{"BM", 64, 128}};
  p.record(Action{}, {}, {Outcome::Kind::Correct, 2e-3});
  p.record(up, {}, {Outcome::Kind::Correct, 1e-3}); // faster: BM is 128 now
  moves.clear();
  for (const Action &a : p.actions())
    if (a.kind == Action::Kind::Knob)
      moves.push_back(a.key());
  // 64 was visited (the start): the search goes on, not back.
  EXPECT_EQ(moves, (std::vector<std::string>{"knob:BM=256"}));
}

// At a local optimum (every neighbour visited) two knobs move together;
// when those are spent, one knob jumps to a value it has not had.
TEST(PlannerTest, TheSearchGoesFromSingleMovesToPairsToJumps) {
  Planner p(kb(), "gfx942", {{"A", {1, 2, 4}, 2}, {"B", {8, 16, 32}, 16}});
  p.record(Action{}, {}, {Outcome::Kind::Correct, 1e-3});
  const auto knob_keys = [&] {
    std::vector<std::string> keys;
    for (const Action &a : p.actions())
      if (a.kind == Action::Kind::Knob)
        keys.push_back(a.key());
    return keys;
  };
  EXPECT_EQ(knob_keys(),
            (std::vector<std::string>{"knob:A=1", "knob:A=4", "knob:B=8", "knob:B=32"}));
  for (const std::string key : {"knob:A=1", "knob:A=4", "knob:B=8", "knob:B=32"})
    p.record(Action::from_key(key).value(), {}, {Outcome::Kind::Correct, 2e-3}); // all slower
  // Moves in the same direction first (they keep the knobs' ratio).
  EXPECT_EQ(knob_keys(), (std::vector<std::string>{"knob:A=1,B=8", "knob:A=4,B=32", "knob:A=1,B=32",
                                                   "knob:A=4,B=8"}));
  // A candidate that gives nothing new is spent: not offered again.
  p.spend(Action::from_key("knob:A=1,B=8").value());
  EXPECT_EQ(knob_keys().front(), "knob:A=4,B=32");
  // A faster version clears what was spent and moves the search there.
  p.record(Action::from_key("knob:A=4,B=32").value(), {}, {Outcome::Kind::Correct, 0.5e-3});
  // From (4, 32) both neighbours, (2, 32) and (4, 16), and the one pair,
  // (2, 16), were visited: the knobs jump to values not had with the other.
  EXPECT_EQ(knob_keys(), (std::vector<std::string>{"knob:A=1", "knob:B=8"}));
  EXPECT_DOUBLE_EQ(p.best_seconds(), 0.5e-3);
}

// Coupled knobs (a tile and the threads that cover it) fail the check alone:
// a pair of moves that each failed goes before pairs of moves that were
// merely slower.
TEST(PlannerTest, PairsOfFailedMovesGoFirst) {
  Planner p(kb(), "gfx942", {{"A", {1, 2, 4}, 2}, {"B", {8, 16, 32}, 16}});
  p.record(Action{}, {}, {Outcome::Kind::Correct, 1e-3});
  for (const std::string key : {"knob:A=1", "knob:B=8"})
    p.record(Action::from_key(key).value(), {}, {Outcome::Kind::Correct, 1.5e-3});
  for (const std::string key : {"knob:A=4", "knob:B=32"})
    p.record(Action::from_key(key).value(), {}, {Outcome::Kind::Violation, 0});
  std::vector<std::string> keys;
  for (const Action &a : p.actions())
    if (a.kind == Action::Kind::Knob)
      keys.push_back(a.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"knob:A=4,B=32", "knob:A=1,B=8", "knob:A=1,B=32",
                                            "knob:A=4,B=8"}));
}

TEST(PlannerTest, ActionsRoundTripThroughTheirKeys) {
  for (const std::string key :
       {"baseline", "technique:double-buffer", "knob:BM=128", "knob:BM=128,BK=32"})
    EXPECT_EQ(Action::from_key(key).value().key(), key);
  for (const std::string bad :
       {"", "knob:", "knob:BM", "knob:BM=", "knob:=4", "knob:BM=4x", "technique:", "vectorize"})
    EXPECT_FALSE(Action::from_key(bad)) << bad;
}

// A round of parallel candidates: rewards against the best before it, and
// only the fastest becomes the best (two knob moves are not combined).
TEST(PlannerTest, ARoundKeepsOnlyItsFastestImprovement) {
  Planner p(kb(), "gfx942", {{"A", {1, 2, 4}, 2}, {"B", {8, 16, 32}, 16}});
  p.record(Action{}, {}, {Outcome::Kind::Correct, 4e-3});
  p.record_round({{Action::from_key("knob:A=4").value(), {}, {Outcome::Kind::Correct, 2e-3}},
                  {Action::from_key("knob:B=32").value(), {}, {Outcome::Kind::Correct, 1e-3}}});
  EXPECT_DOUBLE_EQ(p.best_seconds(), 1e-3);
  const json t = p.trajectory();
  EXPECT_NEAR(t[1]["reward"].get<double>(), std::log(2.0), 1e-12); // against 4 ms, not 1 ms
  EXPECT_NEAR(t[2]["reward"].get<double>(), std::log(4.0), 1e-12);
  // A stays 2 (A=4 was not the best), B is 32: the moves from (2, 32); A=4
  // is worth trying again with B=32, (2, 16) was visited.
  std::vector<std::string> keys;
  for (const Action &a : p.actions())
    if (a.kind == Action::Kind::Knob)
      keys.push_back(a.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"knob:A=1", "knob:A=4"}));
}

TEST(PlannerTest, SummarisesTheTrajectoryForTheProposer) {
  Planner p(kb(), "gfx942", {});
  Action a;
  a.technique = "vectorize-copy";
  p.record(Action{}, {}, {Outcome::Kind::Correct, 4e-3});
  p.record(a, {"W0904"}, {Outcome::Kind::Correct, 2e-3});
  a.technique = "double-buffer";
  p.record(a, {"W0904"}, {Outcome::Kind::Violation, 0});
  const std::string s = p.summary();
  EXPECT_NE(s.find("step 2: technique:vectorize-copy -> correct, 2.0000 ms (reward +0.693)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("step 3: technique:double-buffer -> violation (reward -1.000)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("best so far: 2.0000 ms"), std::string::npos) << s;
  EXPECT_EQ(p.trajectory().size(), 3u);
  EXPECT_EQ(p.trajectory()[2]["outcome"], "violation");
}

} // namespace
} // namespace argus::agent
