// Every test vector of ../shared/design/layout-algebra.md through the
// library API, plus notation, error and overflow cases.
#include "layout_test_support.h"

#include <gtest/gtest.h>

namespace argus::layout {
namespace {

using testing::L;
using testing::same_function;
using testing::T;
using testing::values;

std::string str(const Result<Layout> &r) {
  return r.ok() ? to_string(*r) : "error: " + r.message();
}

// --- Notation --------------------------------------------------------------

TEST(LayoutNotation, ParsesAndPrintsCuTeNotation) {
  for (const char *text : {"((2,2),3):((24,2),8)", "12:1", "(2,(1,6)):(1,(6,2))", "((4,2)):((2,1))",
                           "(3,2):(1,-4)", "():()"}) {
    EXPECT_EQ(to_string(L(text)), text);
  }
  EXPECT_EQ(to_string(T("(4,8)")), "(4,8)");
  EXPECT_EQ(to_string(T(" ( 4 , ( 8 , 2 ) ) ")), "(4,(8,2))");
  EXPECT_EQ(to_string(L(" (4, 8) : (1, 4) ")), "(4,8):(1,4)");
}

TEST(LayoutNotation, RejectsMalformedText) {
  for (const char *text : {"", "(", "(4,8", "(4,8):", "(4,8):(1)", "4:1:2", "4:(1,2)", "(4,):(1,)",
                           "4:a", "(4 8):(1 4)", "0:1", "(4,-2):(1,1)", "99999999999999999999:1",
                           "9223372036854775807:1 x"}) {
    const Result<Layout> r = parse_layout(text);
    EXPECT_FALSE(r.ok()) << text;
    EXPECT_FALSE(r.message().empty()) << text;
  }
  EXPECT_FALSE(parse_int_tuple("(1,2))").ok());
  EXPECT_FALSE(parse_int_tuple(std::string(100, '(')).ok());
  EXPECT_EQ(*parse_int_tuple("-9223372036854775808"), IntTuple(INT64_MIN));
}

TEST(LayoutNotation, ParseErrorsSayWhere) {
  const Result<Layout> r = parse_layout("(4,8):(1;4)");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("column 9"), std::string::npos) << r.message();
}

// --- Vectors 1-7: evaluation, coordinates, modes, coalesce ------------------

TEST(LayoutVectors, V1HierarchicalEvaluation) {
  EXPECT_EQ(values(L("(2,(2,2)):(4,(2,1))")), (std::vector<int64_t>{0, 4, 2, 6, 1, 5, 3, 7}));
}

TEST(LayoutVectors, V2RankOneTupleEvaluation) {
  EXPECT_EQ(values(L("((4,2)):((2,1))")), (std::vector<int64_t>{0, 2, 4, 6, 1, 3, 5, 7}));
}

TEST(LayoutVectors, V3Idx2crd) {
  EXPECT_EQ(to_string(*idx2crd(16, T("(3,(2,3))"))), "(1,(1,2))");
  EXPECT_EQ(to_string(*idx2crd(T("(1,5)"), T("(3,(2,3))"))), "(1,(1,2))");
}

TEST(LayoutVectors, V4Crd2idxWithIntFlatAndHierarchicalCoordinates) {
  const IntTuple shape = T("(3,(2,3))");
  const IntTuple stride = T("(3,(12,1))");
  EXPECT_EQ(*crd2idx(16, shape, stride), 17);
  EXPECT_EQ(*crd2idx(T("(1,5)"), shape, stride), 17);
  EXPECT_EQ(*crd2idx(T("(1,(1,2))"), shape, stride), 17);
  EXPECT_EQ(*crd2idx(T("(1,1,2)"), shape, stride), 17); // one entry per leaf
  EXPECT_EQ(*L("(3,(2,3)):(3,(12,1))")(16), 17);
}

TEST(LayoutVectors, V5LayoutLeftAndRight) {
  EXPECT_EQ(str(make_layout_left(T("(2,(2,2))"))), "(2,(2,2)):(1,(2,4))");
  EXPECT_EQ(str(make_layout_right(T("(2,4)"))), "(2,4):(4,1)");
  EXPECT_EQ(str(make_layout_right(T("((2,3),4)"))), "((2,3),4):((12,4),1)");
}

TEST(LayoutVectors, V6ModeAccess) {
  const Layout l = L("(4,(3,6)):(1,(4,12))");
  EXPECT_EQ(str(mode(l, 1)), "(3,6):(4,12)");
  EXPECT_EQ(str(get<1>(l)), "(3,6):(4,12)");
  EXPECT_EQ(str(get<1, 1>(l)), "6:12");
  EXPECT_EQ(str(mode(l, 0)), "4:1");
  EXPECT_FALSE(mode(l, 2).ok());
  EXPECT_FALSE((get<1, 5>(l)).ok());
  EXPECT_EQ(rank(l), 2);
  EXPECT_EQ(depth(l), 2);
  EXPECT_EQ(to_string(flatten(l)), "(4,3,6):(1,4,12)");
}

TEST(LayoutVectors, V7Coalesce) {
  EXPECT_EQ(str(coalesce(L("(2,(1,6)):(1,(6,2))"))), "12:1");
  EXPECT_EQ(str(coalesce(L("(2,(1,6)):(1,(6,2))"), T("(1,1)"))), "(2,6):(1,2)");
}

// --- Vectors 8-10: composition ---------------------------------------------

TEST(LayoutVectors, V8Composition) {
  EXPECT_EQ(str(composition(L("(6,2):(8,2)"), L("(4,3):(3,1)"))), "((2,2),3):((24,2),8)");
}

TEST(LayoutVectors, V9Composition) {
  EXPECT_EQ(str(composition(L("20:2"), L("(5,4):(4,1)"))), "(5,4):(8,2)");
}

TEST(LayoutVectors, V10CompositionWalksEveryMode) {
  // (3,6,2,8):(w,x,y,z) ∘ 16:9 → (1,2,2,4):(9w,3x,y,z), with strides that do
  // not coalesce: w=1, x=7, y=100, z=1000.
  const Result<Layout> r = composition(L("(3,6,2,8):(1,7,100,1000)"), L("16:9"));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(to_string(*r), "(2,2,4):(21,100,1000)");
  EXPECT_TRUE(same_function(*r, L("(1,2,2,4):(9,21,100,1000)")));
}

TEST(LayoutVectors, InadmissibleCompositionIsRejectedWithItsReason) {
  const Result<Layout> r = composition(L("(6,2):(1,10)"), L("4:4"));
  ASSERT_FALSE(r.ok()) << to_string(*r);
  EXPECT_EQ(r.message(), "composition (6,2):(1,10) ∘ 4:4 is not admissible: at mode 0 of A "
                         "(size 6), stride 4 neither divides nor is divisible by 6");
  // Its true values are 0, 4, 12, 20: no layout of shape 4 has them.
}

TEST(LayoutVectors, CompositionReportsTheRemainingSizeCondition) {
  const Result<Layout> r = composition(L("(6,2):(1,10)"), L("4:2"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("remaining size 4 is not a multiple of the 3"), std::string::npos)
      << r.message();
  const Result<Layout> nested = composition(L("(6,2):(1,10)"), L("(2,4):(1,4)"));
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.message().find("in mode 1 of B = (2,4):(1,4)"), std::string::npos)
      << nested.message();
}

TEST(LayoutVectors, CompositionByModeTilers) {
  const Layout a = L("(12,(4,8)):(59,(13,1))");
  const Tiler tiler(std::vector<Tiler>{Tiler(L("3:4")), Tiler(L("8:2"))});
  EXPECT_EQ(str(composition(a, tiler)), "(3,(2,4)):(236,(26,1))");
  // A shape as a tiler: s:1 per mode; extra modes pass through.
  EXPECT_EQ(str(composition(L("(8,4,2):(1,8,100)"), Tiler::from_shape(T("(4,2)")))),
            "(4,2,2):(1,8,100)");
  EXPECT_EQ(to_string(tiler), "(3:4,8:2)");
  EXPECT_FALSE(composition(L("8:1"), Tiler::from_shape(T("(2,2)"))).ok());
}

TEST(LayoutVectors, CompositionEdgeCases) {
  EXPECT_EQ(str(composition(L("(4,8):(1,4)"), L("5:0"))), "5:0");
  EXPECT_EQ(str(composition(L("(4,8):(1,4)"), L("1:3"))), "1:0");
  EXPECT_FALSE(composition(L("8:1"), L("4:-1")).ok());
  // The last mode of A is not reduced.
  EXPECT_EQ(str(composition(L("4:3"), L("8:2"))), "8:6");
}

// --- Vectors 11-13, 17: complement -----------------------------------------

TEST(LayoutVectors, V11Complement) {
  EXPECT_EQ(str(complement(L("4:1"), 24)), "6:4");
  EXPECT_EQ(str(complement(L("6:4"), 24)), "4:1");
}

TEST(LayoutVectors, V12Complement) {
  EXPECT_EQ(str(complement(L("(4,6):(1,4)"), 24)), "1:0");
  EXPECT_EQ(str(complement(L("4:2"), 24)), "(2,3):(1,8)");
}

TEST(LayoutVectors, V13Complement) {
  EXPECT_EQ(str(complement(L("(2,4):(1,6)"), 24)), "3:2");
  EXPECT_EQ(str(complement(L("(2,2):(1,6)"), 24)), "(3,2):(2,12)");
}

TEST(LayoutVectors, V17Complement) {
  EXPECT_EQ(str(complement(L("(2,2):(4,1)"), 24)), "(2,3):(2,8)");
  EXPECT_EQ(str(complement(L("3:2"), 6)), "2:1");
}

TEST(LayoutVectors, ComplementDefaultsAndErrors) {
  EXPECT_EQ(str(complement(L("4:2"))), "2:1");         // cotarget cosize = 7
  EXPECT_EQ(str(complement(L("(3,4):(0,2)"))), "2:1"); // stride-0 modes are ignored
  EXPECT_TRUE(same_function(*complement(L("3:1"), 3), L("1:0")));
  const Result<Layout> overlap = complement(L("(2,2):(1,1)"), 8);
  ASSERT_FALSE(overlap.ok());
  EXPECT_NE(overlap.message().find("overlaps or interleaves"), std::string::npos);
  EXPECT_FALSE(complement(L("4:-1"), 8).ok());
  EXPECT_FALSE(complement(L("4:1"), 0).ok());
}

// --- Vectors 14, 15, 19: divide and product --------------------------------

TEST(LayoutVectors, V14LogicalDivide) {
  EXPECT_EQ(str(logical_divide(L("(4,2,3):(2,1,8)"), L("4:2"))), "((2,2),(2,3)):((4,1),(2,8))");
}

TEST(LayoutVectors, V15LogicalProduct) {
  EXPECT_EQ(str(logical_product(L("(2,2):(4,1)"), L("6:1"))), "((2,2),(2,3)):((4,1),(2,8))");
}

TEST(LayoutVectors, V19LogicalProduct) {
  EXPECT_EQ(str(logical_product(L("(2,2):(4,1)"), L("(3,2):(2,1)"))),
            "((2,2),(3,2)):((4,1),(8,2))");
}

TEST(LayoutVectors, DivideVariants) {
  const Layout a = L("(8,6):(1,8)");
  const Tiler tiler = Tiler::from_shape(T("(4,3)"));
  EXPECT_EQ(str(logical_divide(a, tiler)), "((4,2),(3,2)):((1,4),(8,24))");
  EXPECT_EQ(str(zipped_divide(a, tiler)), "((4,3),(2,2)):((1,8),(4,24))");
  EXPECT_EQ(str(tiled_divide(a, tiler)), "((4,3),2,2):((1,8),4,24)");
  EXPECT_EQ(str(flat_divide(a, tiler)), "(4,3,2,2):(1,8,4,24)");
  // A GEMM tile: (4096,4096) row-major by (128,64).
  EXPECT_EQ(str(zipped_divide(L("(4096,4096):(4096,1)"), Tiler::from_shape(T("(128,64)")))),
            "((128,64),(32,64)):((4096,1),(524288,64))");
}

TEST(LayoutVectors, BlockedAndRakedProducts) {
  const Layout block = L("(2,2):(1,2)");
  const Layout tiler = L("(3,4):(1,3)");
  EXPECT_EQ(str(blocked_product(block, tiler)), "((2,3),(2,4)):((1,4),(2,12))");
  EXPECT_EQ(str(raked_product(block, tiler)), "((3,2),(4,2)):((4,1),(12,2))");
  EXPECT_EQ(str(tile_to_shape(block, T("(6,8)"))), "((2,3),(2,4)):((1,4),(2,12))");
  // Per-mode coalescing merges (2,2):(2,4) into 4:2.
  EXPECT_EQ(str(tile_to_shape(L("(2,2):(2,1)"), T("(4,6)"))), "(4,(2,3)):(2,(1,8))");
  EXPECT_EQ(str(tile_to_shape(L("(2,2):(2,1)"), T("(4,6)"), Major::Right)),
            "((2,2),(2,3)):((2,12),(1,4))");
  const Result<Layout> bad = tile_to_shape(block, T("(5,8)"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("not a multiple"), std::string::npos) << bad.message();
}

// --- Vectors 16, 18, 20, 21 ------------------------------------------------

TEST(LayoutVectors, V16CoalesceWithProfile) {
  EXPECT_EQ(str(coalesce(L("(3,(4,5)):(8,(1,4))"), T("(1,1)"))), "(3,20):(8,1)");
  EXPECT_EQ(str(coalesce(L("(4,5):(1,4)"))), "20:1");
  EXPECT_EQ(str(coalesce(L("(1,1):(5,7)"))), "1:0");
  EXPECT_EQ(str(coalesce(L("(2,2):(0,0)"))), "4:0");
  EXPECT_FALSE(coalesce(L("(2,2):(1,2)"), T("(1,1,1)")).ok());
}

TEST(LayoutVectors, V18RightInverse) {
  EXPECT_EQ(str(right_inverse(L("(2,4,6):(4,1,8)"))), "(4,2,6):(2,1,8)");
  EXPECT_EQ(str(right_inverse(L("(4,3):(1,4)"))), "12:1");
  EXPECT_EQ(str(right_inverse(L("(4,3):(3,1)"))), "(3,4):(4,1)");
  EXPECT_EQ(str(right_inverse(L("(2,4):(1,2)"))), "8:1");
  EXPECT_EQ(str(right_inverse(L("4:2"))), "1:0");
}

TEST(LayoutVectors, LeftInverse) {
  const Layout a = L("(4,3):(3,1)");
  const Result<Layout> r = left_inverse(a);
  ASSERT_TRUE(r.ok()) << r.message();
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(*(*r)(*a(i)), i);
  const Layout gappy = L("(2,3):(5,20)");
  const Result<Layout> g = left_inverse(gappy);
  ASSERT_TRUE(g.ok()) << g.message();
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(*(*g)(*gappy(i)), i);
  EXPECT_FALSE(left_inverse(L("(2,4):(0,1)")).ok());
}

TEST(LayoutVectors, V20SizeCosizeAndCoordinates) {
  EXPECT_EQ(*cosize(L("(4,3,2):(1,4,12)")), 24);
  EXPECT_EQ(*size(L("(4,(16,32)):(1,(4,64))")), 2048);
  EXPECT_EQ(*crd2idx(T("(1,2)"), T("(4,8)")), 9);
  EXPECT_EQ(to_string(*idx2crd(9, T("(4,8)"))), "(1,2)");
}

TEST(LayoutVectors, V21MakeSwizzleFromMasks) {
  const Result<Swizzle> s = make_swizzle_from_masks(0b1000, 0b0100);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(*s, (Swizzle{1, 2, 1}));
  EXPECT_EQ(to_string(*s), "Sw<1,2,1>");
  EXPECT_FALSE(make_swizzle_from_masks(0b1100, 0b0100).ok()); // bit counts differ
  EXPECT_FALSE(make_swizzle_from_masks(0b1010, 0b0101).ok()); // not contiguous
  EXPECT_FALSE(make_swizzle_from_masks(0b1100, 0b0110).ok()); // overlap
}

// --- Swizzles --------------------------------------------------------------

TEST(LayoutSwizzle, FunctionAndRequirements) {
  const Swizzle sw = *make_swizzle(3, 4, 3);
  EXPECT_EQ(sw.yyy_mask(), 0b1110000000u);
  EXPECT_EQ(sw.zzz_mask(), 0b0001110000u);
  EXPECT_EQ(sw(144), 128); // bit 7 flips bit 4
  EXPECT_EQ(sw(sw(144)), 144);
  EXPECT_EQ(sw(15), 15);
  const Swizzle left = *make_swizzle(2, 0, -3);
  EXPECT_EQ(left(0b01), 0b01001); // bit 0 flips bit 3
  const Result<Swizzle> bad = make_swizzle(3, 4, 2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("|S| = 2 must be at least B = 3"), std::string::npos);
  EXPECT_FALSE(make_swizzle(-1, 0, 0).ok());
  EXPECT_FALSE(make_swizzle(30, 20, 30).ok());
}

TEST(LayoutSwizzle, SwizzledLayoutsOnElementsAndBytes) {
  // 128B swizzle of an (8,64) row-major bf16 tile: Sw<3,4,3> on byte addresses.
  const Layout tile = L("(8,64):(64,1)");
  const Result<SwizzledLayout> bytes = composition(*make_swizzle(3, 4, 3), tile, 2);
  ASSERT_TRUE(bytes.ok()) << bytes.message();
  // Row 1, column 0: byte 128 → 128 ^ 16 = 144 → element 72.
  EXPECT_EQ(*evaluate(*bytes, 1), 72);
  EXPECT_EQ(*byte_offset(*bytes, 1), 144);
  // The same on element offsets is Sw<3,3,3>.
  const SwizzledLayout elems = *composition(*make_swizzle(3, 3, 3), tile);
  for (int64_t i = 0; i < 512; ++i)
    EXPECT_EQ(*evaluate(*bytes, i), *evaluate(elems, i)) << i;
  EXPECT_EQ(to_string(elems), "Sw<3,3,3> o (8,64):(64,1)");
  EXPECT_EQ(to_string(*bytes), "Sw<3,4,3> o (8,64):(64,1) (byte-address swizzle, 2-byte elements)");
  EXPECT_FALSE(composition(*make_swizzle(3, 0, 3), tile, 2).ok()); // moves bytes in an element
  EXPECT_FALSE(composition(*make_swizzle(3, 4, 3), tile, 3).ok());
}

// --- Overflow and bad input ------------------------------------------------

TEST(LayoutOverflow, SizeCosizeAndEvaluationReportOverflow) {
  const Layout big(IntTuple::tuple({4294967296, 4294967296}), IntTuple::tuple({1, 4294967296}));
  EXPECT_FALSE(size(big).ok());
  EXPECT_NE(size(big).message().find("overflow"), std::string::npos);
  const Layout wide(IntTuple::tuple({2, 2}), IntTuple::tuple({1, INT64_MAX}));
  EXPECT_FALSE(cosize(wide).ok());
  EXPECT_EQ(*wide(2), INT64_MAX);
  EXPECT_FALSE(wide(3).ok());
  EXPECT_FALSE(parse_layout("(4294967296,4294967296):(1,1)").ok()); // size does not fit
  EXPECT_FALSE(make_layout_left(T("(65536,65536,65536,65536)")).ok());
  EXPECT_FALSE(composition(L("4:4611686018427387904"), L("4:4")).ok());
}

TEST(LayoutOverflow, UncheckedConstructionNeverCrashes) {
  // Layout's constructor trusts its caller; operations still fail cleanly.
  const Layout incongruent(IntTuple::tuple({2, 2}), IntTuple(1));
  EXPECT_FALSE(incongruent(1).ok());
  EXPECT_FALSE(coalesce(incongruent).ok());
  EXPECT_FALSE(composition(L("8:1"), incongruent).ok());
  const Layout zero(IntTuple::tuple({0, 2}), IntTuple::tuple({1, 1}));
  EXPECT_FALSE(zero(3).ok());
  EXPECT_FALSE(make_layout(IntTuple::tuple({0, 2}), IntTuple::tuple({1, 1})).ok());
}

} // namespace
} // namespace argus::layout
