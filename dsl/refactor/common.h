// Internal: what the refactors share — the kernel being rewritten, AST walks,
// text rewriting, and the verification by re-check.
#pragma once

#include "argus/dsl/refactor.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace argus::refactor::detail {

// One kernel under the requested range. `baseline()` is the checker's report
// of its current text (what verification compares against), computed on first
// use: a range where no refactor has a candidate costs no check.
struct KernelContext {
  const CheckedFile &file;
  const ast::Function &fn;
  Range range; // the requested range
  std::function<const check::KernelReport &()> baseline;
  const check::CheckerOptions &options;
  check::CheckCache &cache; // reports of untouched kernels are reused
};

bool overlaps(const Range &a, const Range &b);
bool contains(const Range &outer, const Range &inner);
std::string text_of(const CheckedFile &file, const Range &range);

// Every statement of a body, nested ones after their parent.
void for_each_stmt(const std::vector<ast::StmtPtr> &body,
                   const std::function<void(const ast::Stmt &)> &visit);
// Every expression of one statement (not of its nested bodies), parents first.
void for_each_expr(const ast::Stmt &stmt, const std::function<void(const ast::Expr &)> &visit);
void for_each_expr(const ast::Expr &expr, const std::function<void(const ast::Expr &)> &visit);
// Every expression of a body, nested statements included.
void for_each_expr(const std::vector<ast::StmtPtr> &body,
                   const std::function<void(const ast::Expr &)> &visit);

// True for `syncthreads()` as a statement.
bool is_barrier(const ast::Stmt &stmt);
// `range(stop)`, `range(start, stop)` or `range(start, stop, 1)` of a for loop.
struct RangeLoop {
  const ast::Expr *start = nullptr; // null: 0
  const ast::Expr *stop = nullptr;
};
std::optional<RangeLoop> range_loop(const ast::Stmt &stmt);

// The leading whitespace of the line a statement starts on, if the statement
// starts the line (else nullopt: it shares its line, e.g. `if c: x = 1`).
std::optional<std::string> indent_of(const CheckedFile &file, const ast::Stmt &stmt);
// The text of `range` with `edits` (all inside it) applied.
std::string rewrite(const CheckedFile &file, const Range &range,
                    std::vector<check::TextEdit> edits);
// Shifts the indentation of every line but the first by `delta` columns.
std::string reindent(const std::string &text, int delta);
// `text` in parentheses unless `expr` is atomic (a name, literal, call or subscript).
std::string operand_text(const CheckedFile &file, const ast::Expr &expr);
// `base`, or `base_2`, `base_3`, ...: a name no identifier of the file uses.
std::string fresh_name(const CheckedFile &file, const std::string &base);

// Violations per kind in a report, and its errors.
struct Counts {
  std::map<std::string, size_t> of_kind;
  size_t errors = 0;
};
Counts counts_of(const check::KernelReport &report);

// Re-checks the file with `edits` applied; true when the edited kernel has
// no kind more often and no more errors than the baseline, and (when `goal`
// is not empty) fewer violations of kind `goal`.
bool verified(const KernelContext &kernel, const std::vector<check::TextEdit> &edits,
              const std::string &goal);

// One file per refactor.
std::vector<Refactor> vectorize_copy(const KernelContext &kernel);
std::vector<Refactor> pad_shared(const KernelContext &kernel);
std::vector<Refactor> double_buffer(const KernelContext &kernel);

} // namespace argus::refactor::detail
