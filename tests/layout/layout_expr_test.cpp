// The expression language of `argus layout`: every vector of the design
// document through the evaluator, error locations, and a fuzz run.
#include "argus/layout/layout_expr.h"

#include <gtest/gtest.h>

#include <random>

namespace argus::layout::calc {
namespace {

// The printed value, or "error: <message>".
std::string eval(std::string_view text) {
  const Evaluation e = evaluate_expression(text);
  if (e.error)
    return "error: " + e.error->message;
  return to_string(*e.value);
}

std::string kind(std::string_view text) {
  const Evaluation e = evaluate_expression(text);
  return e.value ? std::string(kind_name(*e.value)) : "error";
}

ExprError error_of(std::string_view text) {
  const Evaluation e = evaluate_expression(text);
  EXPECT_TRUE(e.error.has_value()) << text << " = " << (e.value ? to_string(*e.value) : "");
  return e.error.value_or(ExprError{});
}

// The sub-expression an error points at.
std::string span_of(std::string_view text) {
  const ExprError e = error_of(text);
  return std::string(text.substr(e.offset, e.length));
}

std::string values_0_to_7(const std::string &layout) {
  std::string out;
  for (int i = 0; i < 8; ++i)
    out += (i ? " " : "") + eval(layout + "(" + std::to_string(i) + ")");
  return out;
}

TEST(LayoutExprVectors, V1AndV2Evaluation) {
  EXPECT_EQ(values_0_to_7("(2,(2,2)):(4,(2,1))"), "0 4 2 6 1 5 3 7");
  EXPECT_EQ(values_0_to_7("((4,2)):((2,1))"), "0 2 4 6 1 3 5 7");
}

TEST(LayoutExprVectors, V3ToV5Coordinates) {
  EXPECT_EQ(eval("idx2crd(16, (3,(2,3)))"), "(1,(1,2))");
  EXPECT_EQ(eval("idx2crd((1,5), (3,(2,3)))"), "(1,(1,2))");
  for (const char *coord : {"16", "(1,5)", "(1,(1,2))"})
    EXPECT_EQ(eval(std::string("crd2idx(") + coord + ", (3,(2,3)), (3,(12,1)))"), "17") << coord;
  EXPECT_EQ(eval("(3,(2,3)):(3,(12,1))(1,5)"), "17");
  EXPECT_EQ(eval("(3,(2,3)):(3,(12,1))((1,(1,2)))"), "17");
  EXPECT_EQ(eval("left((2,(2,2)))"), "(2,(2,2)):(1,(2,4))");
  EXPECT_EQ(eval("right((2,4))"), "(2,4):(4,1)");
}

TEST(LayoutExprVectors, V6AndV7ModesAndCoalesce) {
  EXPECT_EQ(eval("mode((4,(3,6)):(1,(4,12)), 1)"), "(3,6):(4,12)");
  EXPECT_EQ(eval("get((4,(3,6)):(1,(4,12)), 1, 0)"), "3:4");
  EXPECT_EQ(eval("coalesce((2,(1,6)):(1,(6,2)))"), "12:1");
  EXPECT_EQ(eval("coalesce((2,(1,6)):(1,(6,2)), (1,1))"), "(2,6):(1,2)");
}

TEST(LayoutExprVectors, V8ToV10Composition) {
  EXPECT_EQ(eval("composition((6,2):(8,2), (4,3):(3,1))"), "((2,2),3):((24,2),8)");
  EXPECT_EQ(eval("(6,2):(8,2) ∘ (4,3):(3,1)"), "((2,2),3):((24,2),8)");
  EXPECT_EQ(eval("composition(20:2, (5,4):(4,1))"), "(5,4):(8,2)");
  EXPECT_EQ(eval("compose((3,6,2,8):(1,7,100,1000), 16:9)"), "(2,2,4):(21,100,1000)");
}

TEST(LayoutExprVectors, V11ToV13And17Complement) {
  EXPECT_EQ(eval("complement(4:1, 24)"), "6:4");
  EXPECT_EQ(eval("complement(6:4, 24)"), "4:1");
  EXPECT_EQ(eval("complement((4,6):(1,4), 24)"), "1:0");
  EXPECT_EQ(eval("complement(4:2, 24)"), "(2,3):(1,8)");
  EXPECT_EQ(eval("complement((2,4):(1,6), 24)"), "3:2");
  EXPECT_EQ(eval("complement((2,2):(1,6), 24)"), "(3,2):(2,12)");
  EXPECT_EQ(eval("complement((2,2):(4,1), 24)"), "(2,3):(2,8)");
  EXPECT_EQ(eval("complement(3:2, 6)"), "2:1");
}

TEST(LayoutExprVectors, V14V15V19DivideAndProduct) {
  EXPECT_EQ(eval("logical_divide((4,2,3):(2,1,8), 4:2)"), "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(eval("logical_product((2,2):(4,1), 6:1)"), "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(eval("logical_product((2,2):(4,1), (3,2):(2,1))"), "((2,2),(3,2)):((4,1),(8,2))");
}

TEST(LayoutExprVectors, V16V18V20V21) {
  EXPECT_EQ(eval("coalesce((3,(4,5)):(8,(1,4)), (1,1))"), "(3,20):(8,1)");
  EXPECT_EQ(eval("coalesce((4,5):(1,4))"), "20:1");
  EXPECT_EQ(eval("right_inverse((2,4,6):(4,1,8))"), "(4,2,6):(2,1,8)");
  EXPECT_EQ(eval("right_inverse((4,3):(1,4))"), "12:1");
  EXPECT_EQ(eval("right_inverse((4,3):(3,1))"), "(3,4):(4,1)");
  EXPECT_EQ(eval("right_inverse((2,4):(1,2))"), "8:1");
  EXPECT_EQ(eval("cosize((4,3,2):(1,4,12))"), "24");
  EXPECT_EQ(eval("size((4,(16,32)):(1,(4,64)))"), "2048");
  EXPECT_EQ(eval("crd2idx((1,2), (4,8))"), "9");
  EXPECT_EQ(eval("idx2crd(9, (4,8))"), "(1,2)");
  EXPECT_EQ(eval("make_swizzle(0b1000, 0b0100)"), "Sw<1,2,1>");
}

TEST(LayoutExpr, SwizzlesAndKinds) {
  EXPECT_EQ(eval("swizzle(3,4,3)(144)"), "128");
  EXPECT_EQ(eval("swizzle(3,4,3)(swizzle(3,4,3)(144))"), "144");
  EXPECT_EQ(eval("composition(swizzle(3,3,3), (8,64):(64,1))"), "Sw<3,3,3> o (8,64):(64,1)");
  EXPECT_EQ(eval("composition(swizzle(3,4,3), (8,64):(64,1), 2)(1, 0)"), "72");
  EXPECT_EQ(eval("swizzle(3,4,3) ∘ right((8,64))"), "Sw<3,4,3> o (8,64):(64,1)");
  EXPECT_EQ(kind("swizzle(3,4,3)"), "swizzle");
  EXPECT_EQ(kind("composition(swizzle(3,3,3), (8,64):(64,1))"), "swizzled_layout");
  EXPECT_EQ(kind("12"), "int");
  EXPECT_EQ(kind("(1,2)"), "tuple");
  EXPECT_EQ(kind("12:1"), "layout");
  EXPECT_EQ(kind("(4:2, 8:1)"), "tiler");
  EXPECT_EQ(eval("(4:2, 8)"), "(4:2,8:1)");
}

TEST(LayoutExpr, ThreadValueLayouts) {
  EXPECT_EQ(eval("tv(mma_m16n8k16_bf16, A)"), "((4,8),(2,2,2)):((32,1),(16,8,128))");
  EXPECT_EQ(eval("tv(mma_m16n8k16_bf16, B)"), "((4,8),(2,2)):((16,1),(8,64))");
  EXPECT_EQ(eval("tv(mma_m16n8k16_f16, C)"), "((4,8),(2,2)):((32,1),(16,8))");
  // The C fragment in a row-major 16x8 tile of a 4096-wide matrix: thread
  // (t0, t1) holds row t1 (+8), columns 2·t0 (+1).
  EXPECT_EQ(eval("composition((16,8):(4096,1), tv(mma_m16n8k16_bf16, C))"),
            "((4,8),(2,2)):((2,4096),(1,32768))");
  EXPECT_EQ(eval("size(tv(mma_m16n8k16_bf16, A))"), "256");
}

TEST(LayoutExpr, MoreFunctions) {
  EXPECT_EQ(eval("zipped_divide((8,6):(1,8), (4,3))"), "((4,3),(2,2)):((1,8),(4,24))");
  EXPECT_EQ(eval("tiled_divide((8,6):(1,8), (4,3))"), "((4,3),2,2):((1,8),4,24)");
  EXPECT_EQ(eval("flat_divide((8,6):(1,8), (4:1, 3:1))"), "(4,3,2,2):(1,8,4,24)");
  EXPECT_EQ(eval("blocked_product((2,2):(1,2), (3,4):(1,3))"), "((2,3),(2,4)):((1,4),(2,12))");
  EXPECT_EQ(eval("raked_product((2,2):(1,2), (3,4))"), "((3,2),(4,2)):((4,1),(12,2))");
  EXPECT_EQ(eval("tile_to_shape((2,2):(2,1), (4,6), right)"), "((2,2),(2,3)):((2,12),(1,4))");
  EXPECT_EQ(eval("filter((4,3,2):(0,1,0))"), "3:1");
  EXPECT_EQ(eval("flatten((4,(3,2)):(1,(4,12)))"), "(4,3,2):(1,4,12)");
  EXPECT_EQ(eval("flatten((4,(3,2)))"), "(4,3,2)");
  EXPECT_EQ(eval("rank((4,(3,2)):(1,(4,12)))"), "2");
  EXPECT_EQ(eval("depth((4,(3,2)))"), "2");
  EXPECT_EQ(eval("shape((4,(3,2)):(1,(4,12)))"), "(4,(3,2))");
  EXPECT_EQ(eval("stride(12:1)"), "1");
  EXPECT_EQ(eval("make_layout((4,8), (8,1))"), "(4,8):(8,1)");
  EXPECT_EQ(eval("left_inverse((4,3):(3,1))"), "(3,4):(4,1)");
  EXPECT_EQ(eval("size(left((128,64))) * 2 + 3 - 1"), "16386");
  EXPECT_EQ(eval("(4,8):(8,1)(40)"), "10"); // the last mode is not reduced
  EXPECT_EQ(eval("-7 / 2"), "-4");
  EXPECT_EQ(eval("-7 % 2"), "1");
  EXPECT_EQ(eval("0x10 + 0b11"), "19");
  EXPECT_EQ(eval("4:-1(3)"), "-3");
}

// --- Errors and where they point ---------------------------------------------

TEST(LayoutExprErrors, InadmissibleCompositionPointsAtTheCall) {
  const std::string text = "size(composition((6,2):(1,10), 4:4))";
  const ExprError e = error_of(text);
  EXPECT_EQ(e.message, "composition (6,2):(1,10) ∘ 4:4 is not admissible: at mode 0 of A "
                       "(size 6), stride 4 neither divides nor is divisible by 6");
  EXPECT_EQ(text.substr(e.offset, e.length), "composition((6,2):(1,10), 4:4)");
  EXPECT_EQ(format_error(text, e), "column 6: " + e.message +
                                       "\n  size(composition((6,2):(1,10), 4:4))\n       "
                                       "^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

TEST(LayoutExprErrors, CarryingModesAreRejected) {
  const ExprError e = error_of("composition((2,4):(1,10), (2,2):(1,1))");
  EXPECT_NE(e.message.find("the modes 2:1 and 2:1 of B both reach mode 0 of A (size 2), where "
                           "their coordinates add up to 2: that carries into the next mode"),
            std::string::npos)
      << e.message;
}

TEST(LayoutExprErrors, PointAtTheOffendingSubExpression) {
  EXPECT_EQ(span_of("complement(4:2, (1,2):(3,4))"), "(1,2):(3,4)");
  EXPECT_EQ(span_of("coalesce((4,8):(1,4), 12:1)"), "12:1");
  EXPECT_EQ(span_of("frobnicate(4:1)"), "frobnicate");
  EXPECT_EQ(span_of("composition(4:1)"), "composition(4:1)");
  EXPECT_EQ(span_of("(4,8):(1,4,2)"), "(4,8):(1,4,2)");
  EXPECT_EQ(span_of("(4,8):(1,4) $"), "$");
  EXPECT_EQ(span_of("12:1(1, 2)"), "12:1(1, 2)");
  EXPECT_EQ(span_of("3 / (0)"), "(0)");
  EXPECT_EQ(span_of("3 / 0"), "3 / 0");
  EXPECT_EQ(span_of("swizzle(3,4,2)"), "swizzle(3,4,2)");
  EXPECT_EQ(span_of("tv(mma_nonexistent, A)"), "tv(mma_nonexistent, A)");
  EXPECT_EQ(span_of("tv(mma_m16n8k16_bf16, (1,2))"), "(1,2)");
  EXPECT_EQ(span_of("99999999999999999999"), "99999999999999999999");
  EXPECT_EQ(span_of("size((65536,65536,65536,65536))"), "size((65536,65536,65536,65536))");
  EXPECT_EQ(span_of("left((4,0))"), "left((4,0))");
  EXPECT_EQ(span_of("mode(12:1, 3)"), "3");
  EXPECT_EQ(span_of("tile_to_shape(2:1, (4), diagonal)"), "diagonal");
}

TEST(LayoutExprErrors, MalformedInput) {
  for (const char *text : {"",
                           "(",
                           ")",
                           "(4,8",
                           "4:",
                           ":4",
                           "composition(",
                           "composition(4:1,",
                           "4:1)",
                           "(,)",
                           "12:1:2",
                           "0x",
                           "12abc",
                           "∘",
                           "4:1 ∘",
                           "- ",
                           "size(4:1",
                           "swizzle(3,4,3)(",
                           "4:1()",
                           "\xff\xfe"}) {
    const Evaluation e = evaluate_expression(text);
    ASSERT_TRUE(e.error.has_value()) << text;
    EXPECT_FALSE(e.error->message.empty()) << text;
    EXPECT_LE(e.error->offset, std::string_view(text).size()) << text;
    EXPECT_GE(e.error->length, 1u) << text;
  }
  EXPECT_EQ(error_of("").message, "expected an integer, a tuple, a layout or a function call but "
                                  "the expression ended");
  EXPECT_NE(error_of(std::string(5000, '(')).message.find("nested too deeply"), std::string::npos);
  std::string chain = "1";
  for (int i = 0; i < 100000; ++i)
    chain += "+1";
  EXPECT_NE(error_of(chain).message.find("nested too deeply"), std::string::npos);
  std::string applied = "12:1";
  for (int i = 0; i < 100000; ++i)
    applied += "(0)";
  EXPECT_NE(error_of(applied).message.find("nested too deeply"), std::string::npos);
  // Moderate nesting is fine.
  EXPECT_EQ(eval(std::string(60, '(') + "4" + std::string(60, ')') + ":" + std::string(60, '(') +
                 "1" + std::string(60, ')')),
            std::string(60, '(') + "4" + std::string(60, ')') + ":" + std::string(60, '(') + "1" +
                std::string(60, ')'));
  EXPECT_EQ(eval("1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1"), "20");
}

TEST(LayoutExprErrors, ColumnsCountCodePoints) {
  const std::string text = "(6,2):(8,2) ∘ 4:3 ∘ frob";
  const ExprError e = error_of(text);
  EXPECT_EQ(column_of(text, e.offset), 21u);
}

TEST(LayoutExprTable, PrintsTheIndexGrid) {
  const Evaluation e = evaluate_expression("(4,3):(3,1)");
  ASSERT_TRUE(e.value);
  const Result<Table> t = make_table(*e.value);
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t->cells,
            (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}));
  EXPECT_EQ(render_table(*t), "(4,3):(3,1)\n"
                              "     0    1    2 \n"
                              "  +----+----+----+\n"
                              "0 |  0 |  1 |  2 |\n"
                              "  +----+----+----+\n"
                              "1 |  3 |  4 |  5 |\n"
                              "  +----+----+----+\n"
                              "2 |  6 |  7 |  8 |\n"
                              "  +----+----+----+\n"
                              "3 |  9 | 10 | 11 |\n"
                              "  +----+----+----+\n");
  EXPECT_FALSE(make_table(*evaluate_expression("12:1").value).ok());
  EXPECT_FALSE(make_table(*evaluate_expression("left((4096,4096))").value).ok());
  const Result<Table> swizzled =
      make_table(*evaluate_expression("composition(swizzle(1,0,1), right((2,4)))").value);
  ASSERT_TRUE(swizzled.ok());
  EXPECT_EQ(swizzled->cells, (std::vector<std::vector<int64_t>>{{0, 1, 3, 2}, {4, 5, 7, 6}}));
}

// Random and mutated input never crashes and always answers.
TEST(LayoutExprFuzz, NeverCrashes) {
  static const std::vector<std::string> kPieces = {"(",
                                                   ")",
                                                   ",",
                                                   ":",
                                                   "0",
                                                   "1",
                                                   "4",
                                                   "-",
                                                   "+",
                                                   "*",
                                                   "/",
                                                   "%",
                                                   " ",
                                                   "∘",
                                                   "composition",
                                                   "complement",
                                                   "x",
                                                   "A",
                                                   "tv",
                                                   "size",
                                                   "(4,3):(3,1)",
                                                   "swizzle",
                                                   "12:1",
                                                   "9223372036854775807",
                                                   "0b",
                                                   "0x",
                                                   "(()",
                                                   "left",
                                                   "logical_divide",
                                                   "idx2crd",
                                                   "\xe2\x88",
                                                   "right_inverse"};
  static const std::vector<std::string> kSeeds = {"composition((6,2):(8,2), (4,3):(3,1))",
                                                  "complement(4:2, 24)",
                                                  "logical_divide((4,2,3):(2,1,8), 4:2)",
                                                  "swizzle(3,4,3)(144)",
                                                  "idx2crd(16, (3,(2,3)))",
                                                  "blocked_product((2,2):(1,2), (3,4):(1,3))"};
  std::mt19937_64 rng(42);
  const auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  for (int n = 0; n < 20000; ++n) {
    std::string text;
    if (n % 2 == 0) {
      for (size_t k = pick(12); k > 0; --k)
        text += kPieces[pick(kPieces.size())];
    } else {
      text = kSeeds[pick(kSeeds.size())];
      for (size_t k = pick(4) + 1; k > 0; --k) {
        const size_t at = pick(text.size() + 1);
        switch (pick(3)) {
        case 0:
          text.insert(at, kPieces[pick(kPieces.size())]);
          break;
        case 1:
          text.erase(at, pick(4));
          break;
        default:
          if (at < text.size())
            text[at] = static_cast<char>(pick(128));
        }
      }
    }
    const Evaluation e = evaluate_expression(text);
    ASSERT_NE(e.value.has_value(), e.error.has_value()) << text;
    if (e.error) {
      ASSERT_LE(e.error->offset, text.size()) << text;
      ASSERT_FALSE(format_error(text, *e.error).empty());
    }
  }
}

} // namespace
} // namespace argus::layout::calc
