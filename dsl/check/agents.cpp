// Warp-specialized roles as agents (agents.h). One agent holds the machine at
// a time: the baton is `running_`, handed over under `mutex_`, so every
// access to the Machine by one agent happens before the next agent's.
#include "agents.h"
#include "summary.h"

#include <algorithm>

namespace argus::check::detail {

namespace {

// "threads 0–127, 256–383" for the lanes in `m`.
std::string lane_ranges(const Mask &m) {
  std::string out;
  for (size_t i = 0; i < m.size();) {
    if (!m[i]) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j + 1 < m.size() && m[j + 1])
      ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(i) +
           (j > i ? "\u2013" + std::to_string(j) : std::string());
    i = j + 1;
  }
  return (out.find_first_of(",\u2013") == std::string::npos ? "thread " : "threads ") + out;
}

} // namespace

Agents::Agents(Machine &machine) : machine_(machine) {
  agents_.push_back(std::make_unique<Agent>());
  agents_[0]->state = State::Running;
}

Agents::~Agents() {
  for (auto &a : agents_)
    if (a && a->thread.joinable())
      a->thread.join();
}

bool Agents::only_root() const {
  return std::count_if(agents_.begin(), agents_.end(),
                       [](const auto &a) { return a != nullptr; }) == 1;
}

int Agents::new_slot() {
  for (size_t i = 1; i < agents_.size(); ++i)
    if (!agents_[i]) {
      agents_[i] = std::make_unique<Agent>();
      return static_cast<int>(i);
    }
  agents_.push_back(std::make_unique<Agent>());
  return static_cast<int>(agents_.size() - 1);
}

// The lanes of a side, one mask per agent: the whole side, or one per
// warpgroup when its warpgroups meet each other at named barriers (a
// FlashAttention-3 ping-pong: two consumer warpgroups running the same code
// take turns at barriers with different ids, so neither may wait for the
// other in lockstep).
std::vector<Mask> Agents::side_agents(const std::vector<ast::StmtPtr> &body, const Mask &lanes) {
  bool named = false;
  for (const auto &st : body)
    named = named || (st && machine_.has_named_barrier(*st));
  std::vector<Mask> out;
  if (named)
    for (size_t w0 = 0; w0 < lanes.size(); w0 += static_cast<size_t>(kWarpgroup)) {
      Mask m(lanes.size(), 0);
      for (size_t l = w0; l < std::min(lanes.size(), w0 + static_cast<size_t>(kWarpgroup)); ++l)
        m[l] = lanes[l];
      if (machine_.any(m))
        out.push_back(std::move(m));
    }
  if (out.size() <= 1)
    return {lanes};
  return out;
}

void Agents::fork(const ast::Stmt &s, const Mask &yes, const Mask &no, Mask &yes_after,
                  Mask &no_after) {
  const int parent = running_;
  std::vector<int> kids;
  std::vector<Mask *> afters;
  std::vector<std::pair<const std::vector<ast::StmtPtr> *, Mask>> parts;
  const std::pair<const std::vector<ast::StmtPtr> *, const Mask *> sides[2] = {{&s.body, &yes},
                                                                               {&s.orelse, &no}};
  for (const auto &[body, lanes] : sides) {
    if (!machine_.any(*lanes))
      continue;
    Mask *after = lanes == &yes ? &yes_after : &no_after;
    std::fill(after->begin(), after->end(), 0);
    for (Mask &m : side_agents(*body, *lanes)) {
      afters.push_back(after);
      parts.emplace_back(body, std::move(m));
    }
  }
  for (auto &[body, lanes] : parts) {
    const int id = new_slot();
    Agent &a = *agents_[static_cast<size_t>(id)];
    a.parent = parent;
    a.lanes = a.final_mask = lanes;
    a.body = body;
    a.ctx = machine_.save_context(/*copy_env=*/true);
    if (body->empty()) {
      a.state = State::Done;
    } else {
      a.state = State::Ready;
      a.thread = std::thread([this, agent = &a, id] {
        {
          std::unique_lock lock(mutex_);
          agent->cv.wait(lock, [&] { return running_ == id; });
        }
        agent_main(id);
      });
    }
    kids.push_back(id);
  }
  Agent &p = *agents_[static_cast<size_t>(parent)];
  p.children = kids;
  p.state = State::Joining;
  switch_from(parent);

  // Every side finished: merge the locals by lanes, and the loop exits.
  std::exception_ptr error;
  for (size_t k = 0; k < kids.size(); ++k) {
    Agent &a = *agents_[static_cast<size_t>(kids[k])];
    if (a.thread.joinable())
      a.thread.join();
    if (a.error && !error)
      error = a.error;
    if (k == 0) {
      machine_.env_ = std::move(a.ctx.env);
    } else {
      for (auto &[sym, v] : a.ctx.env) {
        auto it = machine_.env_.find(sym);
        if (it == machine_.env_.end())
          machine_.env_.emplace(sym, std::move(v));
        else
          machine_.assign_lanes(it->second, v, a.lanes);
      }
    }
    for (size_t level = 0; level < machine_.exits_.size() && level < a.ctx.exits.size(); ++level)
      for (size_t i = 0; i < machine_.exits_[level].broken.size(); ++i) {
        machine_.exits_[level].broken[i] |= a.ctx.exits[level].broken[i];
        machine_.exits_[level].continued[i] |= a.ctx.exits[level].continued[i];
      }
    // Several agents of one side: their threads still active, together.
    afters[k]->resize(a.final_mask.size(), 0);
    for (size_t i = 0; i < a.final_mask.size(); ++i)
      (*afters[k])[i] |= a.final_mask[i];
  }
  for (int id : kids)
    agents_[static_cast<size_t>(id)].reset();
  p.children.clear();
  if (error)
    std::rethrow_exception(error);
}

void Agents::agent_main(int id) {
  Agent &a = *agents_[static_cast<size_t>(id)];
  machine_.load_context(std::move(a.ctx));
  Mask m = a.lanes;
  try {
    machine_.exec_body(*a.body, m);
  } catch (...) {
    a.error = std::current_exception();
  }
  a.final_mask = m;
  a.ctx = machine_.save_context(/*copy_env=*/false);
  a.state = State::Done;
  switch_from(id);
}

Agents::Wake Agents::block(std::vector<Await> awaits, const Mask &waiting, const std::string &what,
                           const Range &at, std::vector<OtherWait> &others) {
  const int id = running_;
  Agent &a = *agents_[static_cast<size_t>(id)];
  a.awaits = std::move(awaits);
  a.waiting = waiting;
  a.what = what;
  a.at = at;
  a.wake = Wake::Completed;
  a.others.clear();
  a.state = State::Waiting;
  switch_from(id);
  others = a.others;
  return a.wake;
}

void Agents::yield_after_release() {
  const int id = running_;
  bool other = false;
  for (size_t i = 0; i < agents_.size() && !other; ++i)
    other = static_cast<int>(i) != id && agents_[i] && agents_[i]->state == State::Waiting &&
            can_go_on(*agents_[i]);
  if (!other)
    return;
  agents_[static_cast<size_t>(id)]->state = State::Ready;
  switch_from(id);
}

void Agents::switch_from(int id) {
  Agent &a = *agents_[static_cast<size_t>(id)];
  const bool done = a.state == State::Done;
  if (!done)
    a.ctx = machine_.save_context(/*copy_env=*/false);
  const int next = pick_next(id);
  agents_[static_cast<size_t>(next)]->state = State::Running;
  if (next != id) {
    std::unique_lock lock(mutex_);
    running_ = next;
    agents_[static_cast<size_t>(next)]->cv.notify_one();
    if (done)
      return; // this agent's thread ends; its parent joins it
    a.cv.wait(lock, [&] { return running_ == id; });
  }
  machine_.load_context(std::move(a.ctx));
}

bool Agents::can_go_on(Agent &a) {
  switch (a.state) {
  case State::Ready:
    return true;
  case State::Joining:
    return std::all_of(a.children.begin(), a.children.end(), [&](int k) {
      return agents_[static_cast<size_t>(k)]->state == State::Done;
    });
  case State::Waiting:
    for (const Await &w : a.awaits) {
      if (w.named) {
        if (w.named->generation <= w.generation)
          return false;
        continue;
      }
      if (w.bar->phase <= w.phase) {
        // The copies counted on it land when a waiter observes the phase.
        machine_.land_bulk_copies(*w.bar);
        machine_.complete_phase_if_done(*w.bar);
      }
      if (w.bar->phase <= w.phase)
        return false;
    }
    return true;
  case State::Running:
  case State::Done:
    return false;
  }
  return false;
}

int Agents::pick_next(int from) {
  const size_t n = agents_.size();
  for (size_t k = 1; k <= n; ++k) {
    const size_t i = (static_cast<size_t>(from) + k) % n;
    if (agents_[i] && can_go_on(*agents_[i]))
      return static_cast<int>(i);
  }
  return resolve_deadlock();
}

int Agents::resolve_deadlock() {
  int chosen = -1;
  for (size_t i = 0; i < agents_.size(); ++i)
    if (agents_[i] && agents_[i]->state == State::Waiting) {
      chosen = static_cast<int>(i);
      break;
    }
  if (chosen < 0)
    return 0; // not reached: a joining agent's leaves wait or can go on
  // Every thread must be accounted for: waiting here, returned, or done with
  // a side after which it arrives on nothing.
  Mask accounted = machine_.returned_;
  accounted.resize(static_cast<size_t>(machine_.lanes_), 0);
  bool parked_may_arrive = false;
  for (const auto &slot : agents_) {
    if (!slot)
      continue;
    const Agent &a = *slot;
    if (a.state == State::Waiting) {
      for (size_t i = 0; i < a.waiting.size() && i < accounted.size(); ++i)
        accounted[i] |= a.waiting[i];
    } else if (a.state == State::Done && machine_.any(a.final_mask)) {
      const Agent &p = *agents_[static_cast<size_t>(a.parent)];
      if (machine_.continuation_arrives(p.ctx.body_stack))
        parked_may_arrive = true;
      else
        for (size_t i = 0; i < a.final_mask.size() && i < accounted.size(); ++i)
          accounted[i] |= a.final_mask[i];
    }
  }
  const bool all = !parked_may_arrive && std::all_of(accounted.begin(), accounted.end(),
                                                     [](uint8_t b) { return b != 0; });
  Agent &c = *agents_[static_cast<size_t>(chosen)];
  c.wake = all ? Wake::Deadlock : Wake::Unmodelled;
  c.others.clear();
  for (size_t i = 0; i < agents_.size(); ++i)
    if (static_cast<int>(i) != chosen && agents_[i] && agents_[i]->state == State::Waiting)
      c.others.push_back(
          {lane_ranges(agents_[i]->waiting) + " " + agents_[i]->what, agents_[i]->at});
  return chosen;
}

} // namespace argus::check::detail

// --- The Machine's side -----------------------------------------------------

namespace argus::check::detail {

AgentContext Machine::save_context(bool copy_env) {
  AgentContext c;
  if (copy_env) {
    c.env = env_;
    c.loops = loops_;
    c.exits = exits_;
    c.return_slots = return_slots_;
    c.body_stack = body_stack_;
  } else {
    c.env = std::move(env_);
    c.loops = std::move(loops_);
    c.exits = std::move(exits_);
    c.return_slots = std::move(return_slots_);
    c.body_stack = std::move(body_stack_);
  }
  c.current_stmt = current_stmt_;
  c.current_site = current_site_;
  c.range_checked = range_checked_by_hardware_;
  return c;
}

void Machine::load_context(AgentContext &&c) {
  env_ = std::move(c.env);
  loops_ = std::move(c.loops);
  exits_ = std::move(c.exits);
  return_slots_ = std::move(c.return_slots);
  body_stack_ = std::move(c.body_stack);
  current_stmt_ = c.current_stmt;
  current_site_ = c.current_site;
  range_checked_by_hardware_ = c.range_checked;
}

uint8_t Machine::barrier_ops(const ast::Stmt &s) {
  if (auto it = barrier_ops_.find(&s); it != barrier_ops_.end())
    return it->second;
  const Callees calls = calls_in(sema_, s);
  // A named barrier is both: its participants wait for each other.
  // (cluster_sync() is neither here: it completes no mbarrier phase, and an
  // `if` around it alone is no pair of roles.)
  uint8_t ops =
      calls.has(BuiltinId::NvvmMbarrierWait) || calls.has(BuiltinId::Barrier) ? kWaits : 0;
  // A @device function is taken to arrive (its body is not looked into here).
  if (calls.device || calls.has(BuiltinId::Barrier) || calls.has(BuiltinId::BarrierArrive) ||
      calls.has(BuiltinId::NvvmMbarrierArrive) || calls.has(BuiltinId::NvvmMbarrierExpectTx) ||
      calls.has(BuiltinId::NvvmCpAsyncBulk) || calls.has(BuiltinId::NvvmTmaLoad) ||
      calls.has(BuiltinId::NvvmTmaLoadMulticast) ||
      calls.has(BuiltinId::NvvmMbarrierArriveCluster) || calls.has(BuiltinId::NvvmMbarrierInit))
    ops |= kArrives;
  if (calls.has(BuiltinId::Barrier) || calls.has(BuiltinId::BarrierArrive))
    ops |= kNamedBarrier;
  barrier_ops_.emplace(&s, ops);
  return ops;
}

bool Machine::continuation_arrives(const std::vector<BodyPos> &stack) {
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    const std::vector<ast::StmtPtr> &body = *it->body;
    for (size_t i = it->loop ? 0 : it->index + 1; i < body.size(); ++i)
      if (barrier_ops(*body[i]) & kArrives)
        return true;
  }
  return false;
}

void Machine::fork_roles(const ast::Stmt &s, const Mask &yes, const Mask &no, Mask &yes_after,
                         Mask &no_after) {
  if (!agents_)
    agents_ = std::make_shared<Agents>(*this);
  std::shared_ptr<Agents> agents = agents_; // the root's fork drops agents_ below
  agents->fork(s, yes, no, yes_after, no_after);
  if (agents->only_root())
    agents_.reset();
}

} // namespace argus::check::detail
