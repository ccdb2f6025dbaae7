// Internal: warp-specialized roles run as separate agents.
//
// The Machine runs a block's threads in lockstep and the two sides of a
// divergent `if` one after the other. That cannot run a producer and its
// consumers: each waits on an mbarrier for arrivals the other makes later.
// So an `if` whose sides both have threads and which waits on an mbarrier
// or a named barrier runs each side as an agent, a thread of the host that holds the machine
// alone (a baton): it runs until it blocks on a wait whose phase has not
// completed, or finishes its side; then the next agent that can go on runs
// (round robin, in the order they were made: the result does not depend on
// the host's scheduler). Nested ifs nest agents; the `if`'s own agent waits
// for its sides and merges their locals by lanes.
//
// When no agent can go on, the one made first among those waiting is woken
// with a deadlock: an error when every thread of the block is accounted for
// (waiting, returned, or finished a side after which it arrives on nothing),
// else W0901 (threads parked elsewhere might arrive: not modelled).
#pragma once

#include "machine.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace argus::check::detail {

class Agents {
public:
  explicit Agents(Machine &machine);
  ~Agents();
  Agents(const Agents &) = delete;
  Agents &operator=(const Agents &) = delete;

  // Runs the sides of `s` (threads `yes` the body, `no` the orelse) as agents
  // and returns when both finished, with the threads still active after each
  // side in yes_after / no_after and the Machine's locals merged.
  void fork(const ast::Stmt &s, const Mask &yes, const Mask &no, Mask &yes_after, Mask &no_after);

  // What a blocked agent waits for: a phase of an mbarrier to complete, or
  // (bar null) a named barrier's use to complete.
  struct Await {
    Machine::MBarrier *bar = nullptr;
    int64_t phase = 0; // the phase number that must complete
    const Machine::NamedRendezvous *named = nullptr;
    int64_t generation = 0; // runs on once named->generation is past it
  };
  enum class Wake { Completed, Deadlock, Unmodelled };
  // Another role's wait, for a deadlock's message: its threads and what they
  // wait for, and where.
  struct OtherWait {
    std::string text;
    Range at;
  };
  // Blocks the running agent until every awaited phase completed. `waiting`:
  // the threads at the wait (at `at`); `what`: what they wait for. On a
  // deadlock, `others` gets the other agents' waits.
  Wake block(std::vector<Await> awaits, const Mask &waiting, const std::string &what,
             const Range &at, std::vector<OtherWait> &others);
  // The running agent released something (an mbarrier phase completed by
  // its arrivals): if another agent can now go on, it runs first, until it
  // blocks, before this one continues. A release is where a role promises it
  // is done with what the barrier guards; letting the waiters act at once is
  // the legal interleaving that exposes an early release (a stage freed
  // while this role's wgmma still reads it).
  void yield_after_release();
  // Only the block's own agent is left (the Machine then drops this).
  bool only_root() const;

private:
  std::vector<Mask> side_agents(const std::vector<ast::StmtPtr> &body, const Mask &lanes);
  enum class State { Ready, Running, Waiting, Joining, Done };
  struct Agent {
    int parent = -1;
    State state = State::Ready;
    Mask lanes;      // the side's threads
    Mask final_mask; // Done: the threads still active after the side
    const std::vector<ast::StmtPtr> *body = nullptr;
    AgentContext ctx;
    std::vector<int> children;
    std::vector<Await> awaits;
    Mask waiting;
    std::string what;
    Range at;
    Wake wake = Wake::Completed;
    std::vector<OtherWait> others;
    std::condition_variable cv;
    std::thread thread;
    std::exception_ptr error;
  };

  void agent_main(int id);
  // The running agent `id` stops (blocked, joining or done): the next one
  // that can go on runs; returns when `id` runs again (at once when done).
  void switch_from(int id);
  int pick_next(int from);
  bool can_go_on(Agent &a);
  // No agent can go on: the agent to wake, with its Wake and message set.
  int resolve_deadlock();
  int new_slot();

  Machine &machine_;
  std::vector<std::unique_ptr<Agent>> agents_; // slot 0: the block's own agent
  std::mutex mutex_;
  int running_ = 0;
};

} // namespace argus::check::detail
