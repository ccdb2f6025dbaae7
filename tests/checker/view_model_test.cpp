// The front end's view model (view_model.h: what the code generator and the
// editor queries use) and the checker's interpreter (per-thread integers)
// derive the same layout for every kind of view: each local view of the
// kernel below, evaluated at its sizes, has the interpreter's shape, strides
// and byte offset.
#include "argus/dsl/driver.h"
#include "argus/dsl/view_model.h"
#include "machine.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <map>

namespace argus {
namespace {

using layout::ExprRef;

const char *kViews = R"(
@kernel(grid=1, block=1)
def views(X: Tensor((M, K), f32), S: Tensor((M, K), (1, M), f32), M: i32, K: i32):
    assume(K % 8 == 0, M >= 6)
    xv = view(X, Tensor((M, K // 4, 4), f32))
    row = xv[3]
    tiled = X.tile((2, 4))
    tile = tiled[1, 1]
    part = subview(X, (1, 2), (2, 3), (1, 2))
    column = S[2]
    part_of_row = subview(row, (1, 0), (2, 4))
    X[0, 0] = row[0, 0] + tile[0, 0] + part[0, 0] + column[0] + part_of_row[0, 0]
)";

// An integer of the kernel (sizes, constants, + - * // %) as a term.
ExprRef term_of(layout::ExprContext &ctx, const sema::SemaResult &sema, const ast::Expr &e,
                const std::map<std::string, int64_t> &sizes) {
  if (auto c = sema.constant_of(e))
    return ctx.constant(*c);
  if (e.kind == ast::ExprKind::Name)
    return ctx.constant(sizes.at(e.name));
  if (e.kind == ast::ExprKind::Binary) {
    const ExprRef a = term_of(ctx, sema, *e.operands[0], sizes);
    const ExprRef b = term_of(ctx, sema, *e.operands[1], sizes);
    switch (e.binary_op) {
    case ast::BinaryOp::Add:
      return a + b;
    case ast::BinaryOp::Sub:
      return a - b;
    case ast::BinaryOp::Mul:
      return a * b;
    case ast::BinaryOp::FloorDiv:
      return a / b;
    case ast::BinaryOp::Mod:
      return ctx.mod(a, b);
    default:
      break;
    }
  }
  ADD_FAILURE() << "no term for " << ast::to_string(e.kind);
  return ctx.constant(0);
}

TEST(ViewModel, TheInterpreterAndTheModelAgreeOnEveryKindOfView) {
  FrontendOptions front;
  front.invariants = false;
  const CheckedFile file = check_source("views.argus", kViews, front);
  ASSERT_FALSE(file.has_errors());
  const sema::FunctionInfo *kernel = file.sema->function_info("views");
  ASSERT_NE(kernel, nullptr);
  const std::map<std::string, int64_t> sizes{{"M", 8}, {"K", 16}};
  check::CheckerOptions options;
  options.symbolic = false;
  check::detail::Machine machine(file, *kernel, options);
  machine.run(sizes);

  layout::ExprContext ctx;
  std::map<std::string, int> buffers{{"X", 0}, {"S", 1}};
  sema::ViewHooks hooks;
  hooks.integer = [&](const ast::Expr &e) { return term_of(ctx, *file.sema, e, sizes); };
  hooks.error = [](const Range &, const std::string &why) { ADD_FAILURE() << why; };
  // Parameters as the launcher passes them; a local through its defining value.
  std::function<std::optional<sema::SymbolicView>(const ast::Expr &)> base =
      [&](const ast::Expr &e) -> std::optional<sema::SymbolicView> {
    if (e.kind == ast::ExprKind::Name && buffers.count(e.name)) {
      sema::SymbolicView v;
      v.buffer = buffers[e.name];
      v.shape = {ctx.constant(8), ctx.constant(16)};
      v.strides = e.name == "X" ? sema::row_major(ctx, v.shape)
                                : std::vector<ExprRef>{ctx.constant(1), ctx.constant(8)};
      v.offset = ctx.constant(0);
      return v;
    }
    for (const auto &stmt : kernel->function->body)
      if (stmt->kind == ast::StmtKind::Assign && stmt->targets.size() == 1 &&
          stmt->targets[0]->kind == ast::ExprKind::Name && stmt->targets[0]->name == e.name)
        return sema::view_of(*file.sema, ctx, *stmt->value, hooks);
    return std::nullopt;
  };
  hooks.base = base;

  int compared = 0;
  for (const auto &stmt : kernel->function->body) {
    if (stmt->kind != ast::StmtKind::Assign || stmt->targets.size() != 1 ||
        stmt->targets[0]->kind != ast::ExprKind::Name || stmt->targets[0]->name == "X")
      continue;
    const std::string &name = stmt->targets[0]->name;
    const sema::Symbol *symbol = nullptr;
    for (const sema::Symbol &s : file.sema->symbols)
      if (s.name == name && s.kind == sema::SymbolKind::Local)
        symbol = &s;
    ASSERT_NE(symbol, nullptr) << name;
    auto it = machine.env_.find(symbol);
    ASSERT_NE(it, machine.env_.end()) << name;
    ASSERT_EQ(it->second.kind, check::detail::ValueKind::View) << name;
    const check::detail::View &run = *it->second.view;
    const auto model = sema::view_of(*file.sema, ctx, *stmt->value, hooks);
    ASSERT_TRUE(model) << name;
    if (!run.tile.empty()) {
      ASSERT_EQ(model->tile.size(), run.tile.size()) << name;
      for (size_t i = 0; i < run.tile.size(); ++i)
        EXPECT_EQ(model->tile[i].constant(), run.tile[i]) << name;
    }
    ASSERT_EQ(model->shape.size(), run.shape.size()) << name;
    for (size_t i = 0; i < run.shape.size(); ++i) {
      EXPECT_EQ(model->shape[i].constant(), run.shape[i]) << name << " dim " << i;
      EXPECT_EQ(model->strides[i].constant(), run.strides[i]) << name << " dim " << i;
    }
    EXPECT_EQ(model->offset.constant(), run.off(0)) << name;
    ++compared;
  }
  EXPECT_EQ(compared, 7);
}

} // namespace
} // namespace argus
