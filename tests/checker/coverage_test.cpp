// Interpreter coverage: every statement of every example and corpus kernel
// (with the @device bodies it inlines) is either executed by the interpreter
// at some size instance or covered by a W0901 at it or at a statement around
// it. "Clean" then never hides a statement nobody ran.
//
// The rule is the union over the instances the checker chose: a statement is
// checked when some instance executed it (a guard that only some sizes take is
// checked at those sizes); one that no instance reached gets the checker's own
// W0901 "not reached at any size instance", which this test requires.
#include "argus/dsl/checker.h"
#include "argus/dsl/codes.h"
#include "argus/dsl/driver.h"
#include "contents.h"
#include "machine.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <unordered_set>

namespace argus {
namespace {

namespace fs = std::filesystem;

bool inside(const Position &p, const Range &r) { return !(p < r.begin) && p < r.end; }

// Walks a kernel's statements and the @device functions called from them
// (independently of the checker's own walk in checker.cpp).
class StatementWalk {
public:
  explicit StatementWalk(const sema::SemaResult &sema) : sema_(sema) {}

  struct Entry {
    const ast::Stmt *stmt;
    std::vector<const ast::Stmt *> enclosing; // outermost first
  };
  std::vector<Entry> entries;

  void body(const std::vector<ast::StmtPtr> &stmts, std::vector<const ast::Stmt *> &path) {
    for (const auto &s : stmts) {
      entries.push_back(Entry{s.get(), path});
      path.push_back(s.get());
      for (const ast::Expr *e : {s->value.get(), s->target.get(), s->annotation.get()})
        if (e)
          calls(*e, path);
      for (const auto &t : s->targets)
        calls(*t, path);
      body(s->body, path);
      body(s->orelse, path);
      path.pop_back();
    }
  }

private:
  const sema::SemaResult &sema_;
  std::set<const ast::Function *> inlined_;

  void calls(const ast::Expr &e, std::vector<const ast::Stmt *> &path) {
    if (e.kind == ast::ExprKind::Call && !e.operands.empty())
      if (const sema::FunctionInfo *fn = sema_.function_info(e.callee().dotted_name());
          fn && fn->role == sema::FunctionRole::Device && fn->function &&
          inlined_.insert(fn->function).second)
        body(fn->function->body, path); // the call site encloses the inlined body
    for (const auto &x : e.operands)
      if (x)
        calls(*x, path);
    for (const auto &k : e.keywords)
      if (k.value)
        calls(*k.value, path);
  }
};

// A W0901 at statement `s` itself: in its header, before its first nested statement.
bool at_statement(const Range &w, const ast::Stmt &s) {
  if (!inside(w.begin, s.range))
    return false;
  for (const auto *nested : {&s.body, &s.orelse})
    if (!nested->empty() && !(w.begin < nested->front()->range.begin))
      return false;
  return true;
}

class CoverageTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(CoverageTest, EveryStatementIsExecutedOrReportedUnproven) {
  const fs::path &path = GetParam();
  FrontendOptions front;
  front.invariants = false;
  const CheckedFile file =
      check_source(path.filename().string(), checker_test::read_file(path), front);
  if (file.has_errors())
    GTEST_SKIP() << path.filename() << " has front-end errors (a corpus file about them)";
  check::CheckerOptions options;
  options.symbolic = false;
  options.fixes = false;
  size_t statements = 0;
  for (const check::KernelReport &report : check::check_kernels(file, options)) {
    const sema::FunctionInfo *kernel = file.sema->function_info(report.kernel);
    ASSERT_NE(kernel, nullptr);
    std::vector<Range> unproven;
    bool budget = false;
    for (const check::Violation &v : report.violations)
      if (v.kind == "unproven") {
        unproven.push_back(v.range);
        budget = budget || v.check == "budget"; // "what follows is not checked"
      }
    std::unordered_set<const ast::Stmt *> visited;
    ASSERT_FALSE(report.instances.empty()) << report.kernel;
    for (const auto &sizes : report.instances) {
      // Each instance runs at every content choice the checker runs it at (a kernel that
      // states facts about its tensors' contents); a kernel that states none runs once.
      auto choice = check::detail::choose_contents(file, *kernel, sizes, options.query_timeout_ms);
      if (choice.choices.empty())
        choice.choices.emplace_back();
      for (const auto &contents : choice.choices) {
        check::detail::Machine machine(file, *kernel, options);
        machine.contents_ = contents;
        machine.run(sizes);
        visited.insert(machine.visited_.begin(), machine.visited_.end());
        for (const check::Violation &v : machine.take_violations())
          if (v.kind == "unproven")
            unproven.push_back(v.range);
      }
    }
    StatementWalk walk(*file.sema);
    std::vector<const ast::Stmt *> path_to;
    walk.body(kernel->function->body, path_to);
    std::unordered_set<const ast::Stmt *> walked;
    for (const auto &entry : walk.entries) {
      ++statements;
      walked.insert(entry.stmt);
      if (visited.count(entry.stmt) || budget)
        continue;
      bool covered = false;
      std::vector<const ast::Stmt *> chain = entry.enclosing;
      chain.push_back(entry.stmt);
      for (const ast::Stmt *s : chain)
        for (const Range &w : unproven)
          covered = covered || at_statement(w, *s);
      EXPECT_TRUE(covered) << path.filename().string() << ":" << entry.stmt->range.begin.line + 1
                           << ": kernel " << report.kernel
                           << ": a statement the interpreter never executed at any size "
                              "instance, with no W0901 at it or around it";
    }
    // The interpreter runs nothing the walk does not know (the walk is complete).
    for (const ast::Stmt *s : visited)
      EXPECT_TRUE(walked.count(s)) << path.filename().string() << ":" << s->range.begin.line + 1;
  }
  EXPECT_GT(statements, 0u) << path.filename();
}

INSTANTIATE_TEST_SUITE_P(Files, CoverageTest, ::testing::ValuesIn(checker_test::sweep_files()),
                         [](const ::testing::TestParamInfo<fs::path> &info) {
                           return checker_test::test_name(info.param);
                         });

// The rule above can fail: a branch no thread takes at any instance is
// reported, and nothing inside it is counted as checked.
TEST(Coverage, AStatementNoInstanceReachesIsUnproven) {
  const std::string text = "THREADS = 64\n"
                           "@kernel(grid=1, block=THREADS)\n"
                           "def never(X: Tensor((THREADS,), f32)):\n"
                           "    t = thread_id()\n"
                           "    if t >= THREADS:\n"
                           "        X[t] = 1.0\n";
  FrontendOptions front;
  front.invariants = false;
  const CheckedFile file = check_source("never.argus", text, front);
  ASSERT_FALSE(file.has_errors());
  check::CheckerOptions options;
  options.symbolic = false;
  options.fixes = false;
  const auto reports = check::check_kernels(file, options);
  ASSERT_EQ(reports.size(), 1u);
  size_t unreached = 0;
  for (const check::Violation &v : reports[0].violations) {
    EXPECT_EQ(v.kind, "unproven") << v.message;
    if (v.check == "unreached") {
      ++unreached;
      EXPECT_EQ(v.range.begin.line, 5u); // X[t] = 1.0, not the if
    }
  }
  EXPECT_EQ(unreached, 1u);
}

} // namespace
} // namespace argus
