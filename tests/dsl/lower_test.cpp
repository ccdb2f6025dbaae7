// Lowering (tree-sitter syntax tree → Argus AST): shapes, exact ranges, and the
// diagnostics of constructs outside the subset, syntax errors and limits.
#include "argus/dsl/codes.h"
#include "argus/dsl/lower.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace argus {
namespace {

using ast::BinaryOp;
using ast::CompareOp;
using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;
using ast::UnaryOp;

Range R(uint32_t l1, uint32_t c1, uint32_t l2, uint32_t c2) { return Range{{l1, c1}, {l2, c2}}; }

// One lowered file; everything the AST points into stays alive with it.
struct Lowered {
  explicit Lowered(std::string text, LowerOptions options = {})
      : source("test.argus", std::move(text)), tree(SyntaxTree::parse(source.text())) {
    module = lower_module(tree, source, sink, options);
  }

  const std::vector<Diagnostic> &diagnostics() const { return sink.diagnostics(); }

  // "E0201@7" for each diagnostic (zero-based line), in report order.
  std::vector<std::string> codes_at() const {
    std::vector<std::string> out;
    for (const Diagnostic &d : diagnostics())
      out.push_back(d.code + "@" + std::to_string(d.range.begin.line));
    return out;
  }

  std::string dump() const {
    std::string out;
    for (const Diagnostic &d : diagnostics())
      out += d.code + " " + std::to_string(d.range.begin.line) + ":" +
             std::to_string(d.range.begin.column) + " " + d.message + "\n";
    return out;
  }

  const ast::Function &function(std::string_view name) const {
    for (const ast::Function &f : module.functions) {
      if (f.name == name)
        return f;
    }
    ADD_FAILURE() << "no function " << name << "\n" << dump();
    static const ast::Function none;
    return none;
  }

  // The body of the first function.
  const std::vector<ast::StmtPtr> &body() const {
    static const std::vector<ast::StmtPtr> none;
    if (module.functions.empty()) {
      ADD_FAILURE() << "no function\n" << dump();
      return none;
    }
    return module.functions.front().body;
  }

  SourceFile source;
  SyntaxTree tree;
  DiagnosticSink sink;
  ast::Module module;
};

// `statements` (each line indented by 4) inside a kernel that starts on line 0;
// the first statement is on line 2.
std::string in_kernel(const std::string &statements) {
  return "@kernel(grid=1, block=32)\ndef k(A: Tensor((32,), f32), n: i32):\n" + statements;
}

// Lowers `x = <expression>` as the only statement of a kernel and returns the value.
struct LoweredExpr {
  explicit LoweredExpr(const std::string &expression)
      : file(in_kernel("    x = " + expression + "\n")) {}
  const Expr &value() const {
    static const Expr none;
    const auto &body = file.body();
    if (body.empty() || body[0]->kind != StmtKind::Assign || !body[0]->value) {
      ADD_FAILURE() << "not lowered to an assignment\n" << file.dump();
      return none;
    }
    return *body[0]->value;
  }
  Lowered file;
};

// Column of the expression in `    x = <expression>`.
constexpr uint32_t kExprColumn = 8;

// ---------------------------------------------------------------------------
// Module, functions, parameters

TEST(Lower, KernelSignatureNamesAndRanges) {
  const Lowered file("BM = 64\n"
                     "BK: constexpr = 32\n"
                     "\n"
                     "@bench(M=64, reference=\"matmul\")\n"
                     "@kernel(grid=(cdiv(N, BM), 1), block=256)\n"
                     "def gemm(A: Tensor((M, K), bf16), M: i32, STAGES: constexpr = 2, t=1,\n"
                     "         plain=0) -> f32:\n"
                     "    pass\n");
  ASSERT_TRUE(file.diagnostics().empty()) << file.dump();

  ASSERT_EQ(file.module.constants.size(), 2u);
  const ast::Constant &bm = file.module.constants[0];
  EXPECT_EQ(bm.name, "BM");
  EXPECT_EQ(bm.range, R(0, 0, 0, 7));
  EXPECT_EQ(bm.name_range, R(0, 0, 0, 2));
  EXPECT_EQ(bm.annotation, nullptr);
  ASSERT_EQ(bm.value->kind, ExprKind::Int);
  EXPECT_EQ(bm.value->int_value, 64);
  EXPECT_EQ(bm.value->range, R(0, 5, 0, 7));
  const ast::Constant &bk = file.module.constants[1];
  EXPECT_EQ(bk.name, "BK");
  EXPECT_EQ(bk.range, R(1, 0, 1, 18));
  ASSERT_NE(bk.annotation, nullptr);
  EXPECT_EQ(bk.annotation->kind, ExprKind::Name);
  EXPECT_EQ(bk.annotation->name, "constexpr");
  EXPECT_EQ(bk.annotation->range, R(1, 4, 1, 13));

  ASSERT_EQ(file.module.functions.size(), 1u);
  const ast::Function &f = file.module.functions[0];
  EXPECT_EQ(f.name, "gemm");
  EXPECT_EQ(f.name_range, R(5, 4, 5, 8));
  EXPECT_EQ(f.range, R(3, 0, 7, 8)); // from the first decorator to the end of the body

  ASSERT_EQ(f.decorators.size(), 2u);
  const ast::Decorator &bench = f.decorators[0];
  EXPECT_EQ(bench.name, "bench");
  EXPECT_EQ(bench.range, R(3, 1, 3, 32)); // without the '@'
  EXPECT_EQ(bench.name_range, R(3, 1, 3, 6));
  ASSERT_EQ(bench.expr->kind, ExprKind::Call);
  ASSERT_NE(bench.expr->keyword("reference"), nullptr);
  EXPECT_EQ(bench.expr->keyword("reference")->value->kind, ExprKind::String);
  EXPECT_EQ(bench.expr->keyword("reference")->value->name, "matmul");
  const ast::Decorator &kernel = f.decorators[1];
  EXPECT_EQ(kernel.name, "kernel");
  EXPECT_EQ(kernel.name_range, R(4, 1, 4, 7));
  const ast::Keyword *grid = kernel.expr->keyword("grid");
  ASSERT_NE(grid, nullptr);
  EXPECT_EQ(grid->name_range, R(4, 8, 4, 12));
  EXPECT_EQ(grid->value->kind, ExprKind::Tuple);
  EXPECT_EQ(grid->value->range, R(4, 13, 4, 29));
  EXPECT_EQ(kernel.expr->keyword("block")->value->int_value, 256);
  EXPECT_EQ(f.decorator("kernel"), &f.decorators[1]);

  ASSERT_EQ(f.params.size(), 5u);
  const ast::Param &a = f.params[0];
  EXPECT_EQ(a.name, "A");
  EXPECT_EQ(a.range, R(5, 9, 5, 32));
  EXPECT_EQ(a.name_range, R(5, 9, 5, 10));
  ASSERT_NE(a.annotation, nullptr);
  EXPECT_EQ(a.annotation->kind, ExprKind::Call);
  EXPECT_EQ(a.annotation->callee().name, "Tensor");
  EXPECT_EQ(a.annotation->range, R(5, 12, 5, 32));
  ASSERT_EQ(a.annotation->arg_count(), 2u);
  EXPECT_EQ(a.annotation->arg(0).kind, ExprKind::Tuple);
  EXPECT_EQ(a.annotation->arg(1).name, "bf16");
  EXPECT_EQ(a.default_value, nullptr);
  EXPECT_EQ(f.params[1].name, "M");
  EXPECT_EQ(f.params[1].annotation->name, "i32");
  const ast::Param &stages = f.params[2];
  EXPECT_EQ(stages.name, "STAGES");
  EXPECT_EQ(stages.range, R(5, 42, 5, 63));
  EXPECT_EQ(stages.name_range, R(5, 42, 5, 48));
  EXPECT_EQ(stages.annotation->name, "constexpr");
  ASSERT_NE(stages.default_value, nullptr);
  EXPECT_EQ(stages.default_value->int_value, 2);
  EXPECT_EQ(stages.default_value->range, R(5, 62, 5, 63));
  EXPECT_EQ(f.params[3].name, "t");
  EXPECT_EQ(f.params[3].annotation, nullptr);
  EXPECT_EQ(f.params[3].default_value->int_value, 1);
  EXPECT_EQ(f.params[4].name, "plain");
  EXPECT_EQ(f.params[4].range, R(6, 9, 6, 16));
  EXPECT_EQ(f.params[4].name_range, R(6, 9, 6, 14));
  ASSERT_NE(f.return_annotation, nullptr);
  EXPECT_EQ(f.return_annotation->name, "f32");
  EXPECT_EQ(f.return_annotation->range, R(6, 21, 6, 24));
  ASSERT_EQ(f.body.size(), 1u);
  EXPECT_EQ(f.body[0]->kind, StmtKind::Pass);
}

TEST(Lower, DecoratorNames) {
  const Lowered file("@device\n"
                     "def a():\n"
                     "    pass\n"
                     "@argus.kernel(grid=1)\n"
                     "def b():\n"
                     "    pass\n");
  ASSERT_TRUE(file.diagnostics().empty()) << file.dump();
  const ast::Decorator &device = file.function("a").decorators.at(0);
  EXPECT_EQ(device.name, "device");
  EXPECT_EQ(device.expr->kind, ExprKind::Name);
  EXPECT_EQ(device.range, R(0, 1, 0, 7));
  EXPECT_EQ(device.name_range, R(0, 1, 0, 7));
  const ast::Decorator &dotted = file.function("b").decorators.at(0);
  EXPECT_EQ(dotted.name, "argus.kernel");
  EXPECT_EQ(dotted.name_range, R(3, 1, 3, 13));
  EXPECT_EQ(file.function("a").range, R(0, 0, 2, 8));
}

TEST(Lower, DocstringsAreDropped) {
  const Lowered file("\"\"\"Module docstring.\"\"\"\n"
                     "X = 1\n"
                     "'''Another string, used as a comment.'''\n"
                     "@device\n"
                     "def f(x: f32) -> f32:\n"
                     "    \"\"\"Function docstring.\n"
                     "\n"
                     "    More lines.\"\"\"\n"
                     "    \"name\"\n"
                     "    return x\n");
  ASSERT_TRUE(file.diagnostics().empty()) << file.dump();
  EXPECT_EQ(file.module.constants.size(), 1u);
  const auto &body = file.function("f").body;
  ASSERT_EQ(body.size(), 2u); // the second string is not a docstring: it stays
  EXPECT_EQ(body[0]->kind, StmtKind::Expr);
  EXPECT_EQ(body[0]->value->kind, ExprKind::String);
  EXPECT_EQ(body[1]->kind, StmtKind::Return);
}

TEST(Lower, CommentsAreIgnoredEverywhere) {
  const Lowered file(in_kernel("    # a comment\n"
                               "    x = f(  # first\n"
                               "        1,  # second\n"
                               "        k=2,  # third\n"
                               "    )\n"
                               "    y = (  # open\n"
                               "        x  # left\n"
                               "        + 1\n"
                               "    )\n"));
  ASSERT_TRUE(file.diagnostics().empty()) << file.dump();
  const auto &body = file.body();
  ASSERT_EQ(body.size(), 2u);
  const Expr &call = *body[0]->value;
  ASSERT_EQ(call.kind, ExprKind::Call);
  EXPECT_EQ(call.arg_count(), 1u);
  EXPECT_EQ(call.keywords.size(), 1u);
  const Expr &sum = *body[1]->value;
  ASSERT_EQ(sum.kind, ExprKind::Binary);
  EXPECT_EQ(sum.range, R(8, 8, 9, 11)); // the inner expression's range, not the parentheses'
}

// ---------------------------------------------------------------------------
// Statements

TEST(Lower, EveryStatementKind) {
  const Lowered file(in_kernel("    f(n)\n"               // 2
                               "    a = b = 3\n"          // 3
                               "    x, y = 1, 2\n"        // 4
                               "    (p, q) = t\n"         // 5
                               "    (r) = 1\n"            // 6
                               "    x += 1\n"             // 7
                               "    acc: f32 = 0.0\n"     // 8
                               "    z: i32\n"             // 9
                               "    if n < 1:\n"          // 10
                               "        pass\n"           // 11
                               "    elif n < 2:\n"        // 12
                               "        x = 1\n"          // 13
                               "    elif n < 3:\n"        // 14
                               "        x = 2\n"          // 15
                               "    else:\n"              // 16
                               "        x = 3\n"          // 17
                               "    for i in range(4):\n" // 18
                               "        A[i] = 0.0\n"     // 19
                               "    while n > 0:\n"       // 20
                               "        n -= 1\n"         // 21
                               "    return\n"             // 22
                               "    return a, b\n"        // 23
                               "    ...\n"                // 24
                               "    a, b\n"));            // 25
  ASSERT_TRUE(file.diagnostics().empty()) << file.dump();
  const auto &body = file.body();
  ASSERT_EQ(body.size(), 15u);

  EXPECT_EQ(body[0]->kind, StmtKind::Expr);
  EXPECT_EQ(body[0]->range, R(2, 4, 2, 8));
  EXPECT_EQ(body[0]->value->kind, ExprKind::Call);

  const Stmt &chained = *body[1];
  EXPECT_EQ(chained.kind, StmtKind::Assign);
  ASSERT_EQ(chained.targets.size(), 2u);
  EXPECT_EQ(chained.targets[0]->name, "a");
  EXPECT_EQ(chained.targets[0]->range, R(3, 4, 3, 5));
  EXPECT_EQ(chained.targets[1]->name, "b");
  EXPECT_EQ(chained.targets[1]->range, R(3, 8, 3, 9));
  EXPECT_EQ(chained.value->int_value, 3);
  EXPECT_EQ(chained.range, R(3, 4, 3, 13));

  const Stmt &unpack = *body[2];
  ASSERT_EQ(unpack.targets.size(), 1u);
  EXPECT_EQ(unpack.targets[0]->kind, ExprKind::Tuple);
  EXPECT_EQ(unpack.targets[0]->operands.size(), 2u);
  EXPECT_EQ(unpack.targets[0]->range, R(4, 4, 4, 8));
  EXPECT_EQ(unpack.value->kind, ExprKind::Tuple);
  EXPECT_EQ(unpack.value->range, R(4, 11, 4, 15));

  EXPECT_EQ(body[3]->targets[0]->kind, ExprKind::Tuple);
  EXPECT_EQ(body[3]->targets[0]->range, R(5, 4, 5, 10));
  EXPECT_EQ(body[4]->targets[0]->kind, ExprKind::Name); // (r) is just r
  EXPECT_EQ(body[4]->targets[0]->range, R(6, 5, 6, 6));

  EXPECT_EQ(body[5]->kind, StmtKind::AugAssign);
  EXPECT_EQ(body[5]->aug_op, BinaryOp::Add);
  EXPECT_EQ(body[5]->target->name, "x");

  const Stmt &ann = *body[6];
  EXPECT_EQ(ann.kind, StmtKind::AnnAssign);
  EXPECT_EQ(ann.target->name, "acc");
  EXPECT_EQ(ann.annotation->name, "f32");
  EXPECT_EQ(ann.value->kind, ExprKind::Float);
  EXPECT_EQ(ann.range, R(8, 4, 8, 18));
  EXPECT_EQ(body[7]->kind, StmtKind::AnnAssign);
  EXPECT_EQ(body[7]->value, nullptr);

  const Stmt &if_stmt = *body[8];
  EXPECT_EQ(if_stmt.kind, StmtKind::If);
  EXPECT_EQ(if_stmt.range, R(10, 4, 17, 13));
  EXPECT_EQ(if_stmt.value->kind, ExprKind::Compare);
  ASSERT_EQ(if_stmt.body.size(), 1u);
  EXPECT_EQ(if_stmt.body[0]->kind, StmtKind::Pass);
  ASSERT_EQ(if_stmt.orelse.size(), 1u);
  const Stmt &elif1 = *if_stmt.orelse[0];
  EXPECT_EQ(elif1.kind, StmtKind::If);
  EXPECT_EQ(elif1.range, R(12, 4, 17, 13));
  EXPECT_EQ(elif1.value->range, R(12, 9, 12, 14));
  ASSERT_EQ(elif1.orelse.size(), 1u);
  const Stmt &elif2 = *elif1.orelse[0];
  EXPECT_EQ(elif2.kind, StmtKind::If);
  EXPECT_EQ(elif2.range, R(14, 4, 17, 13));
  ASSERT_EQ(elif2.orelse.size(), 1u);
  EXPECT_EQ(elif2.orelse[0]->kind, StmtKind::Assign);
  EXPECT_EQ(elif2.orelse[0]->range, R(17, 8, 17, 13));

  const Stmt &for_stmt = *body[9];
  EXPECT_EQ(for_stmt.kind, StmtKind::For);
  EXPECT_EQ(for_stmt.target->name, "i");
  EXPECT_EQ(for_stmt.value->kind, ExprKind::Call);
  EXPECT_EQ(for_stmt.value->callee().name, "range");
  ASSERT_EQ(for_stmt.body.size(), 1u);
  EXPECT_EQ(for_stmt.body[0]->targets[0]->kind, ExprKind::Subscript);
  EXPECT_EQ(for_stmt.range, R(18, 4, 19, 18));

  const Stmt &while_stmt = *body[10];
  EXPECT_EQ(while_stmt.kind, StmtKind::While);
  EXPECT_EQ(while_stmt.value->kind, ExprKind::Compare);
  ASSERT_EQ(while_stmt.body.size(), 1u);
  EXPECT_EQ(while_stmt.body[0]->aug_op, BinaryOp::Sub);

  EXPECT_EQ(body[11]->kind, StmtKind::Return);
  EXPECT_EQ(body[11]->value, nullptr);
  EXPECT_EQ(body[12]->kind, StmtKind::Return);
  EXPECT_EQ(body[12]->value->kind, ExprKind::Tuple);
  EXPECT_EQ(body[13]->kind, StmtKind::Pass); // `...` as a statement
  EXPECT_EQ(body[14]->kind, StmtKind::Expr);
  EXPECT_EQ(body[14]->value->kind, ExprKind::Tuple);
  EXPECT_EQ(body[14]->value->operands.size(), 2u);
}

TEST(Lower, ForTargetsCanBeTuples) {
  const Lowered file(in_kernel("    for i, j in pairs:\n        pass\n"));
  ASSERT_TRUE(file.diagnostics().empty()) << file.dump();
  const Stmt &loop = *file.body().at(0);
  EXPECT_EQ(loop.target->kind, ExprKind::Tuple);
  EXPECT_EQ(loop.target->operands.size(), 2u);
}

TEST(Lower, AugmentedOperators) {
  const std::vector<std::pair<std::string, BinaryOp>> cases = {
      {"+=", BinaryOp::Add},    {"-=", BinaryOp::Sub},       {"*=", BinaryOp::Mul},
      {"/=", BinaryOp::Div},    {"//=", BinaryOp::FloorDiv}, {"%=", BinaryOp::Mod},
      {"**=", BinaryOp::Pow},   {"<<=", BinaryOp::Shl},      {">>=", BinaryOp::Shr},
      {"&=", BinaryOp::BitAnd}, {"|=", BinaryOp::BitOr},     {"^=", BinaryOp::BitXor}};
  for (const auto &[op, expected] : cases) {
    const Lowered file(in_kernel("    A[0] " + op + " 2\n"));
    ASSERT_TRUE(file.diagnostics().empty()) << op << "\n" << file.dump();
    const Stmt &stmt = *file.body().at(0);
    EXPECT_EQ(stmt.kind, StmtKind::AugAssign) << op;
    EXPECT_EQ(stmt.aug_op, expected) << op;
    EXPECT_EQ(stmt.target->kind, ExprKind::Subscript) << op;
    EXPECT_EQ(stmt.value->int_value, 2) << op;
  }
  const Lowered matmul(in_kernel("    A @= B\n"));
  ASSERT_EQ(matmul.codes_at(), std::vector<std::string>{"E0202@2"}) << matmul.dump();
  EXPECT_EQ(matmul.diagnostics()[0].range, R(2, 6, 2, 8));
  EXPECT_EQ(matmul.body().at(0)->kind, StmtKind::Error);
}

// ---------------------------------------------------------------------------
// Expressions

TEST(Lower, Literals) {
  struct IntCase {
    std::string text;
    int64_t value;
  };
  const std::vector<IntCase> ints = {{"0", 0},
                                     {"00", 0},
                                     {"42", 42},
                                     {"1_000_000", 1000000},
                                     {"0x1F", 31},
                                     {"0XfF", 255},
                                     {"0o17", 15},
                                     {"0b1010", 10},
                                     {"0b_1010", 10},
                                     {"9223372036854775807", INT64_MAX},
                                     {"0x7FFF_FFFF_FFFF_FFFF", INT64_MAX}};
  for (const IntCase &c : ints) {
    const LoweredExpr e(c.text);
    ASSERT_TRUE(e.file.diagnostics().empty()) << c.text << "\n" << e.file.dump();
    EXPECT_EQ(e.value().kind, ExprKind::Int) << c.text;
    EXPECT_EQ(e.value().int_value, c.value) << c.text;
    EXPECT_EQ(e.value().range,
              R(2, kExprColumn, 2, kExprColumn + static_cast<uint32_t>(c.text.size())));
  }
  {
    const LoweredExpr e("-9223372036854775808");
    ASSERT_TRUE(e.file.diagnostics().empty()) << e.file.dump();
    EXPECT_EQ(e.value().kind, ExprKind::Int);
    EXPECT_EQ(e.value().int_value, INT64_MIN);
    EXPECT_EQ(e.value().range, R(2, 8, 2, 28));
  }
  {
    const LoweredExpr e("-5");
    EXPECT_EQ(e.value().kind, ExprKind::Unary);
    EXPECT_EQ(e.value().unary_op, UnaryOp::Neg);
    EXPECT_EQ(e.value().operands[0]->int_value, 5);
  }
  struct FloatCase {
    std::string text;
    double value;
  };
  const std::vector<FloatCase> floats = {{"0.0", 0.0},        {"1.5", 1.5}, {"1e3", 1000.0},
                                         {"1_0.5e-2", 0.105}, {".5", 0.5},  {"2.", 2.0},
                                         {"1E+2", 100.0}};
  for (const FloatCase &c : floats) {
    const LoweredExpr e(c.text);
    ASSERT_TRUE(e.file.diagnostics().empty()) << c.text << "\n" << e.file.dump();
    EXPECT_EQ(e.value().kind, ExprKind::Float) << c.text;
    EXPECT_DOUBLE_EQ(e.value().float_value, c.value) << c.text;
  }
  const LoweredExpr yes("True");
  EXPECT_EQ(yes.value().kind, ExprKind::Bool);
  EXPECT_EQ(yes.value().int_value, 1);
  const LoweredExpr no("False");
  EXPECT_EQ(no.value().kind, ExprKind::Bool);
  EXPECT_EQ(no.value().int_value, 0);
}

TEST(Lower, BadLiterals) {
  const std::vector<std::string> bad = {"9223372036854775808",
                                        "0xFFFFFFFFFFFFFFFF",
                                        "99999999999999999999999",
                                        "0777",
                                        "1L",
                                        "1e400"};
  for (const std::string &text : bad) {
    const LoweredExpr e(text);
    ASSERT_EQ(e.file.codes_at(), std::vector<std::string>{"E0103@2"}) << text << "\n"
                                                                      << e.file.dump();
    EXPECT_EQ(e.value().kind, ExprKind::Error) << text;
    EXPECT_EQ(e.file.diagnostics()[0].range.begin, (Position{2, kExprColumn})) << text;
  }
  const LoweredExpr overflow("9223372036854775808");
  EXPECT_NE(overflow.file.diagnostics()[0].message.find("does not fit in 64 bits"),
            std::string::npos);
  const LoweredExpr negative_overflow("-9223372036854775809");
  ASSERT_EQ(negative_overflow.file.codes_at(), std::vector<std::string>{"E0103@2"});
}

TEST(Lower, Strings) {
  const LoweredExpr plain("\"abc\"");
  EXPECT_EQ(plain.value().kind, ExprKind::String);
  EXPECT_EQ(plain.value().name, "abc");
  EXPECT_EQ(plain.value().range, R(2, 8, 2, 13));
  const LoweredExpr single("'m'");
  EXPECT_EQ(single.value().name, "m");
  const LoweredExpr escapes(R"("a\n\t\\\'\"\x41\101\u00e9\U0001F600")");
  ASSERT_TRUE(escapes.file.diagnostics().empty()) << escapes.file.dump();
  EXPECT_EQ(escapes.value().name, "a\n\t\\'\"AA\xC3\xA9\xF0\x9F\x98\x80");
  const LoweredExpr raw(R"(r"a\n")");
  EXPECT_EQ(raw.value().name, "a\\n");
  const LoweredExpr unicode("u\"k\"");
  EXPECT_EQ(unicode.value().name, "k");
  const LoweredExpr empty("\"\"");
  EXPECT_EQ(empty.value().kind, ExprKind::String);
  EXPECT_EQ(empty.value().name, "");

  // A bad escape is reported at the escape; the value stays the text as Python reads it.
  const LoweredExpr bad(R"("m\q")");
  ASSERT_EQ(bad.file.codes_at(), std::vector<std::string>{"E0103@2"}) << bad.file.dump();
  EXPECT_EQ(bad.file.diagnostics()[0].range, R(2, 10, 2, 12));
  EXPECT_EQ(bad.value().kind, ExprKind::String);
  const LoweredExpr truncated(R"("\x4")");
  ASSERT_EQ(truncated.file.codes_at(), std::vector<std::string>{"E0103@2"});
}

TEST(Lower, NamesAttributesCallsAndKeywords) {
  const LoweredExpr e("nvvm.mma_m16n8k16_bf16_f32(a, b, acc[i], fast=True, k=2)");
  ASSERT_TRUE(e.file.diagnostics().empty()) << e.file.dump();
  const Expr &call = e.value();
  ASSERT_EQ(call.kind, ExprKind::Call);
  EXPECT_EQ(call.callee().kind, ExprKind::Attribute);
  EXPECT_EQ(call.callee().dotted_name(), "nvvm.mma_m16n8k16_bf16_f32");
  EXPECT_EQ(call.callee().name_range, R(2, 13, 2, 34));
  EXPECT_EQ(call.callee().operands[0]->name, "nvvm");
  ASSERT_EQ(call.arg_count(), 3u);
  EXPECT_EQ(call.arg(0).name, "a");
  EXPECT_EQ(call.arg(2).kind, ExprKind::Subscript);
  ASSERT_EQ(call.keywords.size(), 2u);
  EXPECT_EQ(call.keywords[0].name, "fast");
  EXPECT_EQ(call.keywords[0].name_range, R(2, 49, 2, 53));
  EXPECT_EQ(call.keywords[0].value->kind, ExprKind::Bool);
  EXPECT_EQ(call.keyword("k")->value->int_value, 2);
  EXPECT_EQ(call.range, R(2, 8, 2, 64));

  const LoweredExpr method("A.tile((BM, BK))[i, j]");
  ASSERT_TRUE(method.file.diagnostics().empty()) << method.file.dump();
  const Expr &sub = method.value();
  ASSERT_EQ(sub.kind, ExprKind::Subscript);
  ASSERT_EQ(sub.operands.size(), 3u);
  EXPECT_EQ(sub.operands[0]->kind, ExprKind::Call);
  EXPECT_EQ(sub.operands[0]->callee().kind, ExprKind::Attribute);
  EXPECT_EQ(sub.operands[0]->callee().name, "tile");
  EXPECT_EQ(sub.operands[0]->arg(0).kind, ExprKind::Tuple);
}

TEST(Lower, SubscriptTupleIndexIsFlattened) {
  for (const std::string text : {"t[i, j, 2]", "t[(i, j, 2)]"}) {
    const LoweredExpr e(text);
    ASSERT_TRUE(e.file.diagnostics().empty()) << e.file.dump();
    const Expr &sub = e.value();
    ASSERT_EQ(sub.kind, ExprKind::Subscript) << text;
    ASSERT_EQ(sub.operands.size(), 4u) << text;
    EXPECT_EQ(sub.operands[0]->name, "t");
    EXPECT_EQ(sub.operands[1]->name, "i");
    EXPECT_EQ(sub.operands[2]->name, "j");
    EXPECT_EQ(sub.operands[3]->int_value, 2);
  }
  const LoweredExpr single("t[i]");
  EXPECT_EQ(single.value().operands.size(), 2u);
  const LoweredExpr nested("t[i][j]");
  EXPECT_EQ(nested.value().operands[0]->kind, ExprKind::Subscript);
}

TEST(Lower, TuplesDictsAndParentheses) {
  const LoweredExpr tuple("(1, (2,), ())");
  ASSERT_TRUE(tuple.file.diagnostics().empty()) << tuple.file.dump();
  ASSERT_EQ(tuple.value().kind, ExprKind::Tuple);
  ASSERT_EQ(tuple.value().operands.size(), 3u);
  EXPECT_EQ(tuple.value().operands[1]->kind, ExprKind::Tuple);
  EXPECT_EQ(tuple.value().operands[1]->operands.size(), 1u);
  EXPECT_EQ(tuple.value().operands[2]->operands.size(), 0u);

  const LoweredExpr dict("{\"m\": r, \"k\": c * 8}");
  ASSERT_EQ(dict.value().kind, ExprKind::Dict);
  ASSERT_EQ(dict.value().operands.size(), 4u);
  EXPECT_EQ(dict.value().operands[0]->name, "m");
  EXPECT_EQ(dict.value().operands[1]->name, "r");
  EXPECT_EQ(dict.value().operands[2]->name, "k");
  EXPECT_EQ(dict.value().operands[3]->kind, ExprKind::Binary);

  const LoweredExpr parens("((a))");
  EXPECT_EQ(parens.value().kind, ExprKind::Name);
  EXPECT_EQ(parens.value().range, R(2, 10, 2, 11));
}

TEST(Lower, UnaryAndBinaryOperators) {
  const std::vector<std::pair<std::string, UnaryOp>> unary = {
      {"-a", UnaryOp::Neg}, {"+a", UnaryOp::Pos}, {"~a", UnaryOp::Invert}, {"not a", UnaryOp::Not}};
  for (const auto &[text, op] : unary) {
    const LoweredExpr e(text);
    ASSERT_EQ(e.value().kind, ExprKind::Unary) << text;
    EXPECT_EQ(e.value().unary_op, op) << text;
    EXPECT_EQ(e.value().operands[0]->name, "a") << text;
  }
  const std::vector<std::pair<std::string, BinaryOp>> binary = {
      {"+", BinaryOp::Add},    {"-", BinaryOp::Sub},       {"*", BinaryOp::Mul},
      {"/", BinaryOp::Div},    {"//", BinaryOp::FloorDiv}, {"%", BinaryOp::Mod},
      {"**", BinaryOp::Pow},   {"<<", BinaryOp::Shl},      {">>", BinaryOp::Shr},
      {"&", BinaryOp::BitAnd}, {"|", BinaryOp::BitOr},     {"^", BinaryOp::BitXor}};
  for (const auto &[op, expected] : binary) {
    const LoweredExpr e("a " + op + " b");
    ASSERT_TRUE(e.file.diagnostics().empty()) << op << "\n" << e.file.dump();
    ASSERT_EQ(e.value().kind, ExprKind::Binary) << op;
    EXPECT_EQ(e.value().binary_op, expected) << op;
    EXPECT_EQ(e.value().operands[0]->name, "a");
    EXPECT_EQ(e.value().operands[1]->name, "b");
  }
  // Precedence and associativity are the grammar's: a + b * c ** -d.
  const LoweredExpr mixed("a + b * c ** -d");
  const Expr &add = mixed.value();
  ASSERT_EQ(add.binary_op, BinaryOp::Add);
  const Expr &mul = *add.operands[1];
  ASSERT_EQ(mul.binary_op, BinaryOp::Mul);
  const Expr &pow = *mul.operands[1];
  ASSERT_EQ(pow.binary_op, BinaryOp::Pow);
  EXPECT_EQ(pow.operands[1]->unary_op, UnaryOp::Neg);
  EXPECT_EQ(pow.range, R(2, 16, 2, 23));
}

TEST(Lower, ComparisonsBooleansAndConditionals) {
  const LoweredExpr chained("0 <= i < n == m != k > 1 >= j");
  ASSERT_TRUE(chained.file.diagnostics().empty()) << chained.file.dump();
  const Expr &cmp = chained.value();
  ASSERT_EQ(cmp.kind, ExprKind::Compare);
  EXPECT_EQ(cmp.compare_ops, (std::vector<CompareOp>{CompareOp::Le, CompareOp::Lt, CompareOp::Eq,
                                                     CompareOp::Ne, CompareOp::Gt, CompareOp::Ge}));
  ASSERT_EQ(cmp.operands.size(), 7u);
  EXPECT_EQ(cmp.operands[0]->int_value, 0);
  EXPECT_EQ(cmp.operands[6]->name, "j");

  const LoweredExpr boolean("a and b or not c");
  const Expr &or_op = boolean.value();
  ASSERT_EQ(or_op.kind, ExprKind::BoolOp);
  EXPECT_EQ(or_op.bool_op, ast::BoolOpKind::Or);
  EXPECT_EQ(or_op.operands[0]->bool_op, ast::BoolOpKind::And);
  EXPECT_EQ(or_op.operands[1]->unary_op, UnaryOp::Not);

  const LoweredExpr conditional("a if c else b");
  const Expr &cond = conditional.value();
  ASSERT_EQ(cond.kind, ExprKind::Conditional);
  ASSERT_EQ(cond.operands.size(), 3u);
  EXPECT_EQ(cond.operands[0]->name, "c"); // condition
  EXPECT_EQ(cond.operands[1]->name, "a"); // then
  EXPECT_EQ(cond.operands[2]->name, "b"); // else
}

TEST(Lower, Lambda) {
  const Lowered file(in_kernel("    tag(A, lambda r, c: {\"m\": r, \"k\": c})\n"));
  ASSERT_TRUE(file.diagnostics().empty()) << file.dump();
  const Expr &lambda = file.body().at(0)->value->arg(1);
  ASSERT_EQ(lambda.kind, ExprKind::Lambda);
  ASSERT_EQ(lambda.lambda_params.size(), 2u);
  EXPECT_EQ(lambda.lambda_params[0].name, "r");
  EXPECT_EQ(lambda.lambda_params[0].range, R(2, 18, 2, 19));
  EXPECT_EQ(lambda.lambda_params[1].name, "c");
  ASSERT_EQ(lambda.operands.size(), 1u);
  EXPECT_EQ(lambda.operands[0]->kind, ExprKind::Dict);
  EXPECT_EQ(lambda.range, R(2, 11, 2, 40));

  const LoweredExpr bare("lambda: 1");
  EXPECT_EQ(bare.value().kind, ExprKind::Lambda);
  EXPECT_TRUE(bare.value().lambda_params.empty());
}

// ---------------------------------------------------------------------------
// Constructs outside the subset

struct Unsupported {
  std::string code_line; // the statement(s), indented by 4, starting on line 2
  std::string code;      // the expected diagnostic code
  std::string message;   // a part of its message
  uint32_t line = 2;     // where it starts
};

void expect_unsupported(const Unsupported &c, const std::string &construct_data = {}) {
  // A statement after the construct is still lowered.
  const Lowered file(in_kernel(c.code_line + "    A[0] = 1.0\n"));
  ASSERT_EQ(file.diagnostics().size(), 1u) << c.code_line << "\n" << file.dump();
  const Diagnostic &d = file.diagnostics()[0];
  EXPECT_EQ(d.code, c.code) << c.code_line;
  EXPECT_EQ(d.range.begin.line, c.line) << c.code_line;
  EXPECT_NE(d.message.find(c.message), std::string::npos) << c.code_line << "\n" << d.message;
  EXPECT_TRUE(d.data.is_object() && d.data.contains("construct")) << c.code_line;
  if (!construct_data.empty()) {
    EXPECT_EQ(d.data["construct"], construct_data);
  }
  ASSERT_FALSE(file.module.functions.empty()) << c.code_line;
  const auto &body = file.body();
  ASSERT_FALSE(body.empty());
  EXPECT_EQ(body.back()->kind, StmtKind::Assign) << c.code_line;
}

TEST(Lower, UnsupportedStatements) {
  const std::string E0201(codes::kUnsupportedStatement);
  const std::vector<Unsupported> cases = {
      {"    class C:\n        pass\n", E0201, "classes are not supported in Argus kernels"},
      {"    import math\n", E0201, "imports are not supported"},
      {"    from math import sqrt\n", E0201, "imports are not supported"},
      {"    try:\n        pass\n    except E:\n        pass\n", E0201, "try statements"},
      {"    with a as b:\n        pass\n", E0201, "with statements"},
      {"    del n\n", E0201, "del statements"},
      {"    global g\n", E0201, "global declarations"},
      {"    nonlocal g\n", E0201, "nonlocal declarations"},
      {"    assert n > 0\n", E0201, "assert statements"},
      {"    raise E\n", E0201, "raise statements"},
      {"    match n:\n        case 1:\n            pass\n", E0201, "match statements"},
      {"    print >> f, n\n", E0201, "print statements"},
      {"    exec \"x\"\n", E0201, "exec statements"},
      {"    type T = int\n", E0201, "type aliases"},
      {"    def helper():\n        pass\n", E0201, "nested functions"},
      {"    @device\n    def helper():\n        pass\n", E0201, "nested functions"},
      {"    async def helper():\n        pass\n", E0201, "nested functions"},
      {"    for i in range(4):\n        pass\n    else:\n        pass\n", E0201,
       "else clauses on for loops", 4},
      {"    while n:\n        pass\n    else:\n        pass\n", E0201,
       "else clauses on while loops", 4},
      {"    async for i in range(4):\n        pass\n", E0201, "async for loops"},
  };
  for (const Unsupported &c : cases)
    expect_unsupported(c);
}

// break and continue are statements of their own (sema checks that a loop
// encloses them, the checker and the code generator run them).
TEST(Lower, BreakAndContinue) {
  const Lowered file(in_kernel("    for i in range(4):\n"
                               "        if i == 2:\n"
                               "            continue\n"
                               "        break\n"));
  EXPECT_TRUE(file.diagnostics().empty()) << file.dump();
  const auto &body = file.body();
  ASSERT_EQ(body.size(), 1u);
  ASSERT_EQ(body[0]->body.size(), 2u);
  EXPECT_EQ(body[0]->body[0]->body.at(0)->kind, StmtKind::Continue);
  EXPECT_EQ(body[0]->body[1]->kind, StmtKind::Break);
}

TEST(Lower, UnsupportedStatementRangeIsTheHeader) {
  const Lowered file(in_kernel("    class Box:\n        x = 1\n        y = 2\n"));
  ASSERT_EQ(file.diagnostics().size(), 1u);
  EXPECT_EQ(file.diagnostics()[0].range, R(2, 4, 2, 13));
  ASSERT_EQ(file.body().size(), 1u);
  EXPECT_EQ(file.body()[0]->kind, StmtKind::Error);
  EXPECT_EQ(file.body()[0]->range, R(2, 4, 4, 13));
}

TEST(Lower, UnsupportedExpressions) {
  const std::string E0202(codes::kUnsupportedExpression);
  const std::vector<Unsupported> cases = {
      {"    x = [1, 2]\n", E0202, "lists are not supported in Argus kernels"},
      {"    x = {1, 2}\n", E0202, "sets are not supported"},
      {"    x = [i for i in y]\n", E0202, "list comprehensions"},
      {"    x = {i for i in y}\n", E0202, "set comprehensions"},
      {"    x = {i: i for i in y}\n", E0202, "dict comprehensions"},
      {"    x = (i for i in y)\n", E0202, "generator expressions"},
      {"    x = f(i for i in y)\n", E0202, "generator expressions"},
      {"    assume(i for i in y for j in z)\n", E0202, "generator expressions other than"},
      {"    assume(i for i in y if i)\n", E0202, "generator expressions other than"},
      {"    x = await y\n", E0202, "await expressions"},
      {"    x = yield y\n", E0202, "yield expressions"},
      {"    x = (y := 1)\n", E0202, "assignment expressions"},
      {"    x = ...\n", E0202, "ellipsis"},
      {"    x = None\n", E0202, "None is not supported"},
      {"    x = f(*y)\n", E0202, "starred expressions"},
      {"    x = f(**y)\n", E0202, "double-starred expressions"},
      {"    x = (1, *y)\n", E0202, "starred expressions"},
      {"    x = {**y}\n", E0202, "double-starred expressions"},
      {"    x = \"a\" \"b\"\n", E0202, "implicitly concatenated strings"},
      {"    x = f\"{n}\"\n", E0202, "f-strings are not supported"},
      {"    x = b\"x\"\n", E0202, "byte strings"},
      {"    x = \"\"\"x\"\"\"\n", E0202, "triple-quoted strings"},
      {"    x = 1j\n", E0202, "complex numbers"},
      {"    x = 1.5j\n", E0202, "complex numbers"},
      {"    x = A[1:2]\n", E0202, "slices are not supported in Argus kernels; use subview("},
      {"    x = A[::2]\n", E0202, "slices are not supported"},
      {"    x = a @ b\n", E0202, "'@' is not supported"},
      {"    x = a is b\n", E0202, "'is' comparisons"},
      {"    x = a is not b\n", E0202, "'is not' comparisons"},
      {"    x = a in b\n", E0202, "'in' comparisons"},
      {"    x = a not in b\n", E0202, "'not in' comparisons"},
      {"    x = lambda a=1: a\n", E0202, "lambda parameters other than plain names"},
      {"    x = lambda *a: a\n", E0202, "lambda parameters other than plain names"},
      {"    [a, b] = t\n", E0202, "list unpacking targets"},
      {"    a, *b = t\n", E0202, "starred assignment targets"},
      {"    x: list[int] | None = 1\n", E0202, "union types"},
  };
  for (const Unsupported &c : cases)
    expect_unsupported(c);
  expect_unsupported({"    x = [1]\n", E0202, "lists"}, "list");
}

TEST(Lower, UnsupportedExpressionBecomesErrorNodeWithItsRange) {
  const Lowered file(in_kernel("    x = f(1, [2, 3])\n"));
  ASSERT_EQ(file.codes_at(), std::vector<std::string>{"E0202@2"});
  EXPECT_EQ(file.diagnostics()[0].range, R(2, 13, 2, 19));
  const Expr &call = *file.body().at(0)->value;
  ASSERT_EQ(call.kind, ExprKind::Call);
  ASSERT_EQ(call.arg_count(), 2u);
  EXPECT_EQ(call.arg(1).kind, ExprKind::Error);
  EXPECT_EQ(call.arg(1).range, R(2, 13, 2, 19));

  // Unpacking changes a call's arity: the whole call is the error.
  const Lowered splat(in_kernel("    x = f(1, *y)\n"));
  EXPECT_EQ(splat.body().at(0)->value->kind, ExprKind::Error);
  EXPECT_EQ(splat.body().at(0)->value->range, R(2, 8, 2, 16));
}

TEST(Lower, UnsupportedTopLevel) {
  const std::string E0203(codes::kUnsupportedTopLevel);
  const Lowered file("import os\n"       // 0
                     "from a import b\n" // 1
                     "class C:\n"        // 2
                     "    pass\n"        // 3
                     "if X:\n"           // 4
                     "    pass\n"        // 5
                     "f(1)\n"            // 6
                     "X += 1\n"          // 7
                     "A = B = 1\n"       // 8
                     "Y: i32\n"          // 9
                     "a.b = 1\n"         // 10
                     "for i in x:\n"     // 11
                     "    pass\n"        // 12
                     "async def g():\n"  // 13
                     "    pass\n"        // 14
                     "OK = 1\n"          // 15
                     "@device\n"         // 16
                     "def fine():\n"     // 17
                     "    pass\n");
  ASSERT_EQ(file.codes_at(), (std::vector<std::string>{"E0203@0", "E0203@1", "E0203@2", "E0203@4",
                                                       "E0203@6", "E0203@7", "E0203@8", "E0203@9",
                                                       "E0203@10", "E0203@11", "E0203@13"}))
      << file.dump();
  const auto &d = file.diagnostics();
  EXPECT_EQ(d[0].message, "imports are not supported in Argus files");
  EXPECT_EQ(d[2].message, "classes are not supported in Argus kernels");
  EXPECT_EQ(d[2].range, R(2, 0, 2, 7));
  EXPECT_NE(d[3].message.find("if statements are not supported at the top level"),
            std::string::npos);
  EXPECT_EQ(d[3].data["construct"], "if statement");
  for (const Diagnostic &diagnostic : d)
    EXPECT_EQ(diagnostic.code, E0203);
  ASSERT_EQ(file.module.constants.size(), 1u);
  EXPECT_EQ(file.module.constants[0].name, "OK");
  ASSERT_EQ(file.module.functions.size(), 1u);
  EXPECT_EQ(file.module.functions[0].name, "fine");
}

TEST(Lower, UnsupportedParameters) {
  const Lowered file("@kernel(grid=1, block=32)\n"
                     "def k(a, *args, b: i32, **kwargs):\n"
                     "    pass\n"
                     "@device\n"
                     "def d(a, /, b, *, c):\n"
                     "    pass\n"
                     "@device\n"
                     "def e[T](a):\n"
                     "    pass\n");
  ASSERT_EQ(file.codes_at(),
            (std::vector<std::string>{"E0204@1", "E0204@1", "E0204@4", "E0204@4", "E0204@7"}))
      << file.dump();
  const auto &d = file.diagnostics();
  EXPECT_EQ(d[0].message, "*args parameters are not supported in Argus kernels");
  EXPECT_EQ(d[0].range, R(1, 9, 1, 14));
  EXPECT_NE(d[1].message.find("**kwargs"), std::string::npos);
  EXPECT_NE(d[2].message.find("'/'"), std::string::npos);
  EXPECT_NE(d[3].message.find("'*'"), std::string::npos);
  // The other parameters are kept.
  const ast::Function &k = file.function("k");
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[0].name, "a");
  EXPECT_EQ(k.params[1].name, "b");
  EXPECT_EQ(file.function("d").params.size(), 3u);
}

// ---------------------------------------------------------------------------
// Syntax errors

TEST(Lower, ThreeIndependentSyntaxErrorsAndTheValidFunctionAfterThem) {
  const Lowered file("@kernel(grid=1, block=32)\n"     // 0
                     "def a(A: Tensor((32,), f32)):\n" // 1
                     "    A[0] = )\n"                  // 2
                     "    A[1] = 1.0\n"                // 3
                     "\n"                              // 4
                     "@kernel(grid=1, block=32)\n"     // 5
                     "def b(A: Tensor((32,), f32)):\n" // 6
                     "    A[0] == = 1.0\n"             // 7
                     "    A[1] = 2.0\n"                // 8
                     "\n"                              // 9
                     "@kernel(grid=1, block=32)\n"     // 10
                     "def c(A: Tensor((32,), f32)):\n" // 11
                     "    A[0] = f32(1,,2)\n"          // 12
                     "    A[1] = 3.0\n"                // 13
                     "\n"                              // 14
                     "@kernel(grid=1, block=32)\n"     // 15
                     "def d(A: Tensor((32,), f32)):\n" // 16
                     "    A[0] = 4.0\n");              // 17
  ASSERT_EQ(file.codes_at(), (std::vector<std::string>{"E0101@2", "E0101@7", "E0101@12"}))
      << file.dump();
  EXPECT_EQ(file.diagnostics()[0].message, "syntax error: unexpected ')'");
  EXPECT_EQ(file.diagnostics()[0].range, R(2, 11, 2, 12));
  ASSERT_EQ(file.module.functions.size(), 4u);
  // The broken statements are skipped; the rest of each function is lowered.
  // tree-sitter joins `A[0] = )` and the next line into one broken assignment: both go.
  EXPECT_EQ(file.function("a").body.size(), 0u);
  EXPECT_EQ(file.function("b").body.size(), 1u);
  EXPECT_EQ(file.function("c").body.size(), 1u);
  const ast::Function &d = file.function("d");
  ASSERT_EQ(d.body.size(), 1u);
  EXPECT_EQ(d.body[0]->kind, StmtKind::Assign);
  EXPECT_EQ(d.body[0]->range, R(17, 4, 17, 14));
  EXPECT_EQ(d.decorators.at(0).name, "kernel");
}

TEST(Lower, ErrorRecoveryDoesNotSwallowTheFollowingFunctions) {
  // tree-sitter's recovery puts the functions after `x = 1 +` inside the first one's body;
  // lowering hoists them back to the top level.
  const Lowered file("@kernel(grid=1, block=32)\n"
                     "def a(A: Tensor((32,), f32)):\n"
                     "    x = 1 +\n"
                     "    A[0] = 1.0\n"
                     "\n"
                     "@kernel(grid=1, block=32)\n"
                     "def b(A: Tensor((32,), f32)):\n"
                     "    A[0] = 2.0\n"
                     "\n"
                     "@device\n"
                     "def c(x: f32) -> f32:\n"
                     "    return x\n");
  // The line being typed ends mid-statement (line 2), and what tree-sitter
  // joined to it does not parse (line 3).
  ASSERT_EQ(file.codes_at(), (std::vector<std::string>{"E0101@2", "E0101@3"})) << file.dump();
  ASSERT_EQ(file.module.functions.size(), 3u);
  EXPECT_EQ(file.module.functions[0].name, "a");
  EXPECT_EQ(file.module.functions[1].name, "b");
  EXPECT_EQ(file.module.functions[2].name, "c");
  EXPECT_EQ(file.module.functions[0].range.end.line, 3u);
  EXPECT_EQ(file.function("b").body.size(), 1u);
  EXPECT_EQ(file.function("c").body.at(0)->kind, StmtKind::Return);
}

// tree-sitter-python joins `x =` with the next line's `y = f(z)` into the
// chained `x = y = f(z)` without an error; Python joins lines only inside
// brackets or after a backslash. The error is on the typed line, `x` is
// assigned an error, and the next line is its own statement.
TEST(Lower, AStatementThatRunsPastItsLineStopsThere) {
  const Lowered file("@kernel(grid=1, block=32)\n"
                     "def k(A: Tensor((32,), f32)):\n"
                     "    \"\"\"A docstring\n"
                     "    over two lines.\"\"\"\n"
                     "    t = thread_id()\n"
                     "    x =\n"
                     "    v = A[t] + 1.0\n"
                     "    y =\n"
                     "    syncthreads()\n"
                     "    w = (t +\n"
                     "         1) + \\\n"
                     "        2\n"
                     "    A[t] = v\n");
  ASSERT_EQ(file.codes_at(), (std::vector<std::string>{"E0101@5", "E0101@7"})) << file.dump();
  const auto &body = file.function("k").body;
  ASSERT_GE(body.size(), 7u) << file.dump();
  const size_t x = body.size() - 6; // x, v, y, syncthreads(), w, the store
  EXPECT_EQ(body[x]->kind, StmtKind::Assign);
  EXPECT_EQ(body[x]->targets.at(0)->name, "x");
  EXPECT_EQ(body[x]->value->kind, ExprKind::Error);
  EXPECT_EQ(body[x + 1]->kind, StmtKind::Assign); // v = A[t] + 1.0, on its own
  EXPECT_EQ(body[x + 1]->targets.at(0)->name, "v");
  EXPECT_EQ(body[x + 2]->value->kind, ExprKind::Error); // y
  EXPECT_EQ(body[x + 3]->kind, StmtKind::Expr);         // syncthreads()
  EXPECT_EQ(body[x + 3]->value->kind, ExprKind::Call);
  EXPECT_EQ(body[x + 4]->targets.at(0)->name, "w"); // brackets and a backslash join lines
}

TEST(Lower, MissingToken) {
  const Lowered file("@device\n"
                     "def f(:\n"
                     "    return 1\n"
                     "def g():\n"
                     "    A[0 = 1.0\n");
  ASSERT_EQ(file.codes_at(), (std::vector<std::string>{"E0102@1", "E0102@4"})) << file.dump();
  EXPECT_EQ(file.diagnostics()[0].message, "missing ')'");
  EXPECT_EQ(file.diagnostics()[0].range, R(1, 6, 1, 6));
  EXPECT_EQ(file.diagnostics()[1].message, "missing ']'");
  EXPECT_EQ(file.diagnostics()[1].range, R(4, 7, 4, 7));
  // A missing punctuation token leaves a complete tree: both functions are still lowered.
  EXPECT_EQ(file.function("f").params.size(), 0u);
  EXPECT_EQ(file.function("f").body.size(), 1u);
  ASSERT_EQ(file.function("g").body.size(), 1u);
  EXPECT_EQ(file.function("g").body[0]->targets.at(0)->kind, ExprKind::Subscript);
}

TEST(Lower, MissingIndentedBlock) {
  const Lowered file("@device\ndef f():\n    if x:\n");
  ASSERT_EQ(file.codes_at(), std::vector<std::string>{"E0102@2"}) << file.dump();
  EXPECT_NE(file.diagnostics()[0].message.find("indented block"), std::string::npos);
}

TEST(Lower, KeywordsUsedAsNamesAreSyntaxErrors) {
  // tree-sitter reads `else:` alone as an annotated name and `return return` as returning a
  // name; Python rejects both.
  const Lowered file(in_kernel("    else:\n"
                               "    A[0] = 1.0\n"
                               "    return return\n"));
  ASSERT_EQ(file.codes_at(), (std::vector<std::string>{"E0101@2", "E0101@4"})) << file.dump();
  EXPECT_EQ(file.diagnostics()[1].message, "syntax error: unexpected keyword 'return'");
}

TEST(Lower, IndentationErrors) {
  const Lowered file("  X = 1\n"          // 0: unexpected indent
                     "Y = 2; Z = 3\n"     // 1: fine (two statements on a line)
                     "@device\n"          // 2
                     "def f(x: i32):\n"   // 3
                     "    a = 1\n"        // 4
                     "        b = 2\n"    // 5: unexpected indent
                     "    if x:\n"        // 6
                     "        c = 3\n"    // 7
                     "      d = 4\n"      // 8: does not match
                     "    e = 5; g = 6\n" // 9
                     "    if x: h = 7\n"  // 10
                     "    i = 8; \\\n"    // 11
                     "j = 9\n");          // 12: continues line 11
  ASSERT_EQ(file.codes_at(), (std::vector<std::string>{"E0101@0", "E0101@5", "E0101@8"}))
      << file.dump();
  EXPECT_EQ(file.diagnostics()[0].message, "syntax error: unexpected indent");
  EXPECT_EQ(file.diagnostics()[0].range, R(0, 0, 0, 2));
  EXPECT_NE(file.diagnostics()[2].message.find("indent"), std::string::npos);
  EXPECT_EQ(file.module.constants.size(), 3u);
}

TEST(Lower, CallSyntaxErrorsPythonRejects) {
  const Lowered file(in_kernel("    f(,)\n"
                               "    f(a=1, 2)\n"
                               "    f(a=1, a=2)\n"
                               "    g(1)\n"));
  ASSERT_EQ(file.codes_at(), (std::vector<std::string>{"E0101@2", "E0101@3", "E0101@4"}))
      << file.dump();
  ASSERT_EQ(file.body().size(), 4u);
  EXPECT_EQ(file.body()[0]->value->kind, ExprKind::Error);
  EXPECT_EQ(file.body()[3]->value->kind, ExprKind::Call);
}

TEST(Lower, FilesOfOnlySyntaxErrorsReportAndDoNotCrash) {
  const std::vector<std::string> inputs = {")))",
                                           "(",
                                           "def",
                                           "@",
                                           "@kernel(\n",
                                           "def f(:\n",
                                           "x = \"abc\n",
                                           "\"\"\"unterminated\n",
                                           "if\nelse\nfor\n",
                                           "}{][)(",
                                           "    indented = 1\n",
                                           std::string(1000, '('),
                                           std::string(1000, ')'),
                                           "x = [" + std::string(500, '(') + "\n"};
  for (const std::string &text : inputs) {
    const Lowered file(text);
    EXPECT_TRUE(file.sink.has_errors()) << text.substr(0, 40);
    for (const Diagnostic &d : file.diagnostics()) {
      EXPECT_TRUE(d.code == codes::kSyntaxError || d.code == codes::kMissingToken ||
                  d.code == codes::kUnsupportedTopLevel)
          << text.substr(0, 40) << ": " << d.code << " " << d.message;
    }
  }
  const Lowered brackets(")))");
  ASSERT_EQ(brackets.codes_at(), std::vector<std::string>{"E0101@0"});
  EXPECT_EQ(brackets.diagnostics()[0].message, "syntax error: unexpected ')'");
  const Lowered open("x = (1\n");
  ASSERT_EQ(open.codes_at(), std::vector<std::string>{"E0101@0"});
  EXPECT_EQ(open.diagnostics()[0].message, "syntax error: '(' was never closed");
  EXPECT_EQ(open.diagnostics()[0].range, R(0, 4, 0, 5));
}

TEST(Lower, EmptyFile) {
  const Lowered file("");
  EXPECT_TRUE(file.diagnostics().empty());
  EXPECT_TRUE(file.module.functions.empty());
  const Lowered comments("# only a comment\n\n");
  EXPECT_TRUE(comments.diagnostics().empty());
}

// ---------------------------------------------------------------------------
// Limits

TEST(Lower, TenThousandNestedParentheses) {
  const std::string deep = std::string(10000, '(') + "1" + std::string(10000, ')');
  const Lowered file(in_kernel("    x = " + deep + "\n    y = 2\n"));
  ASSERT_EQ(file.codes_at(), std::vector<std::string>{"E0004@2"}) << file.dump();
  EXPECT_NE(file.diagnostics()[0].message.find("nested too deeply"), std::string::npos);
  ASSERT_EQ(file.body().size(), 2u);
  EXPECT_EQ(file.body()[0]->value->kind, ExprKind::Error);
  EXPECT_EQ(file.body()[1]->value->int_value, 2);
}

TEST(Lower, DeepExpressionsOfEveryShapeReportOncePerStatement) {
  const int n = 10000;
  std::string unary(n, '-');
  std::string calls;
  std::string subscripts = "t";
  std::string sums = "1";
  std::string tuples;
  for (int i = 0; i < n; ++i) {
    calls += "f(";
    subscripts += "[0]";
    sums += "+1";
    tuples += "(a, ";
  }
  calls += std::string(n, ')');
  tuples += "b" + std::string(n, ')');
  const std::string conditional = [] {
    std::string s;
    for (int i = 0; i < 2000; ++i)
      s += "a if c else ";
    return s + "b";
  }();
  const Lowered file(in_kernel("    x = " + unary + "1\n" +     // 2
                               "    x = " + calls + "\n" +      // 3
                               "    x = " + subscripts + "\n" + // 4
                               "    x = " + sums + "\n" +       // 5
                               "    x = " + tuples + "\n" +     // 6
                               "    x = " + conditional +
                               "\n"             // 7
                               "    x = 1\n")); // 8
  ASSERT_EQ(file.codes_at(), (std::vector<std::string>{"E0004@2", "E0004@3", "E0004@4", "E0004@5",
                                                       "E0004@6", "E0004@7"}))
      << file.dump();
  EXPECT_EQ(file.body().size(), 7u);
}

TEST(Lower, ExpressionDepthLimitIsAnOption) {
  LowerOptions options;
  options.max_expression_depth = 5;
  const Lowered shallow(in_kernel("    x = ((((1))))\n"), options);
  EXPECT_TRUE(shallow.diagnostics().empty()) << shallow.dump();
  const Lowered deep(in_kernel("    x = (((((1)))))\n"), options);
  ASSERT_EQ(deep.codes_at(), std::vector<std::string>{"E0004@2"});
}

TEST(Lower, DeeplyNestedStatementsAreBounded) {
  LowerOptions options;
  options.max_expression_depth = 10;
  std::string text = "@device\ndef f(x: i32):\n";
  for (int i = 0; i < 30; ++i)
    text += std::string(4 * (i + 1), ' ') + "if x:\n";
  text += std::string(4 * 31, ' ') + "pass\n";
  const Lowered file(text, options);
  ASSERT_EQ(file.codes_at(), std::vector<std::string>{"E0004@12"}) << file.dump();

  std::string elifs = "@device\ndef g(x: i32):\n    if x == 0:\n        pass\n";
  for (int i = 1; i < 30; ++i)
    elifs += "    elif x == " + std::to_string(i) + ":\n        pass\n";
  const Lowered chain(elifs, options);
  ASSERT_EQ(chain.codes_at().size(), 1u) << chain.dump();
  EXPECT_EQ(chain.diagnostics()[0].code, codes::kNestingTooDeep);
}

TEST(Lower, FiveHundredLinesLowerQuickly) {
  std::string text = "BM = 64\nBK = 32\n\n";
  int lines = 3;
  for (int f = 0; lines < 500; ++f) {
    text += "@kernel(grid=(cdiv(N, BM), 1), block=256)\n"
            "def k" +
            std::to_string(f) +
            "(A: Tensor((M, K), bf16), C: Tensor((M, N), f32), M: i32, N: i32, K: i32):\n"
            "    \"\"\"Docstring.\"\"\"\n"
            "    tag(A, (\"m\", \"k\"))\n"
            "    acc = make_local((4,), f32)\n";
    lines += 5;
    for (int i = 0; i < 20; ++i, lines += 3) {
      text += "    for k in range(0, K, BK, unroll=2):\n"
              "        if thread_id(0) < 32 and k + BK <= K:\n"
              "            acc[i % 4] += f32(A[block_id(0) * BM + thread_id(0), k]) * 2.0\n";
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const Lowered file(text);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(file.diagnostics().empty()) << file.dump();
  EXPECT_GE(file.module.functions.size(), 7u);
  // Parse and lower take about 1 ms in a release build; the bound leaves room for sanitizers.
  EXPECT_LT(ms, 200.0);
}

} // namespace
} // namespace argus
