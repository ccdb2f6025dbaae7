// Navigation: definition, references and rename through sema's resolution.
#include "argus/dsl/navigation.h"

#include "query_test_support.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace argus {
namespace {

using test::front_end;
using test::position_of;

const char *kSource = R"(T = 64

@device
def twice(x: i32) -> i32:
    return 2 * x

@kernel(grid=1, block=T)
def first(X: Tensor((T,), f32), n: i32):
    acc = 0.0
    for i in range(0, n):
        acc = acc + f32(twice(i))
    for i in range(0, T):
        X[i] = acc
    syncthreads()

@bench(n=128, reference=first, flops=2 * n)
@kernel(grid=1, block=T)
def second(X: Tensor((T,), f32), n: i32):
    acc = X[0]
    X[n % T] = acc
)";

std::vector<Range> ranges_of(const std::vector<NameReference> &refs) {
  std::vector<Range> out;
  for (const NameReference &r : refs)
    out.push_back(r.range);
  return out;
}

Range word_range(const std::string &text, const std::string &word, int nth) {
  const Position p = position_of(text, word, nth);
  return Range{p, Position{p.line, p.column + static_cast<uint32_t>(word.size())}};
}

TEST(Definition, FindsTheDefiningIdentifier) {
  const CheckedFile file = front_end(kSource);
  ASSERT_TRUE(file.diagnostics.empty()) << test::codes_of(file);
  const std::string text = kSource;
  // A local: its first assignment; a parameter; a constant; a @device function.
  EXPECT_EQ(definition_at(file, position_of(text, "acc", 2)), word_range(text, "acc", 0));
  EXPECT_EQ(definition_at(file, position_of(text, "x", 1)), word_range(text, "x", 0));
  EXPECT_EQ(definition_at(file, position_of(text, "T", 3)), word_range(text, "T", 0));
  EXPECT_EQ(definition_at(file, position_of(text, "twice", 1, 2)), word_range(text, "twice", 0));
  // The cursor just after a name still finds it.
  EXPECT_EQ(definition_at(file, position_of(text, "twice", 1, 5)), word_range(text, "twice", 0));
  // @bench(n=128, ..., flops=2 * n) names second's parameter n; reference= the kernel.
  EXPECT_EQ(definition_at(file, position_of(text, "n", 2)), word_range(text, "n", 4));
  EXPECT_EQ(definition_at(file, position_of(text, "n", 3)), word_range(text, "n", 4));
  EXPECT_EQ(definition_at(file, position_of(text, "first", 1)), word_range(text, "first", 0));
  // Builtins, keywords, whitespace and positions past the end have none.
  EXPECT_FALSE(definition_at(file, position_of(text, "syncthreads")));
  EXPECT_FALSE(definition_at(file, position_of(text, "range")));
  EXPECT_FALSE(definition_at(file, position_of(text, "def")));
  EXPECT_FALSE(definition_at(file, Position{1, 0}));
  EXPECT_FALSE(definition_at(file, Position{500, 3}));
}

TEST(References, StayInTheirScope) {
  const CheckedFile file = front_end(kSource);
  const std::string text = kSource;
  // acc of `first`, not the acc of `second`.
  const auto refs = references_at(file, position_of(text, "acc", 1), true);
  EXPECT_EQ(ranges_of(refs),
            (std::vector<Range>{word_range(text, "acc", 0), word_range(text, "acc", 1),
                                word_range(text, "acc", 2), word_range(text, "acc", 3)}));
  EXPECT_TRUE(refs[0].is_definition);
  EXPECT_FALSE(refs[1].is_definition); // a second assignment is a reference
  // Without the declaration.
  EXPECT_EQ(references_at(file, position_of(text, "acc", 1), false).size(), 3u);
  // Two sibling loops over `i`: two loop variables.
  EXPECT_EQ(ranges_of(references_at(file, position_of(text, "i", 0), true)),
            (std::vector<Range>{word_range(text, "i", 0), word_range(text, "i", 1)}));
  EXPECT_EQ(ranges_of(references_at(file, position_of(text, "i", 3), true)),
            (std::vector<Range>{word_range(text, "i", 2), word_range(text, "i", 3)}));
  // A module constant everywhere: its definition, and each kernel's decorator, signature and body.
  EXPECT_EQ(references_at(file, position_of(text, "T", 0), true).size(), 7u);
  // A @device function: its definition and its call.
  EXPECT_EQ(references_at(file, position_of(text, "twice", 0), false).size(), 1u);
  EXPECT_TRUE(references_at(file, position_of(text, "syncthreads"), true).empty());
}

TEST(Rename, ReplacesEveryOccurrenceOfTheSymbol) {
  const CheckedFile file = front_end(kSource);
  const std::string text = kSource;
  // second's parameter n, with its @bench size and the use in flops.
  const RenameResult r = rename_at(file, position_of(text, "n", 5), "count");
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.ranges.size(), 4u);
  const std::string renamed = test::apply(text, r.ranges, "count");
  const CheckedFile after = front_end(renamed);
  EXPECT_TRUE(after.diagnostics.empty()) << test::codes_of(after) << renamed;
  EXPECT_NE(renamed.find("@bench(count=128, reference=first, flops=2 * count)"), std::string::npos);
  EXPECT_NE(renamed.find("def first(X: Tensor((T,), f32), n: i32)"), std::string::npos);
}

TEST(Rename, PrepareGivesTheNameOrWhyNot) {
  const CheckedFile file = front_end(kSource);
  const std::string text = kSource;
  const RenamePreparation local = prepare_rename_at(file, position_of(text, "acc", 2, 1));
  ASSERT_TRUE(local.range);
  EXPECT_EQ(*local.range, word_range(text, "acc", 2));
  EXPECT_EQ(local.placeholder, "acc");
  const RenamePreparation builtin = prepare_rename_at(file, position_of(text, "syncthreads"));
  EXPECT_FALSE(builtin.range);
  EXPECT_NE(builtin.error.find("builtin"), std::string::npos) << builtin.error;
  const RenamePreparation dtype = prepare_rename_at(file, position_of(text, "f32"));
  EXPECT_FALSE(dtype.range);
  EXPECT_FALSE(dtype.error.empty());
  const RenamePreparation nothing = prepare_rename_at(file, Position{1, 0});
  EXPECT_FALSE(nothing.range);
  EXPECT_TRUE(nothing.error.empty());
}

TEST(Rename, RefusesBadNamesAndClashes) {
  const CheckedFile file = front_end(kSource);
  const std::string text = kSource;
  const Position acc = position_of(text, "acc", 0);
  const auto error_of = [&](Position p, const std::string &name) {
    const RenameResult r = rename_at(file, p, name);
    EXPECT_TRUE(r.error.empty() || r.ranges.empty());
    return r.error;
  };
  EXPECT_NE(error_of(acc, "2x").find("not an identifier"), std::string::npos);
  EXPECT_NE(error_of(acc, "a-b").find("not an identifier"), std::string::npos);
  EXPECT_NE(error_of(acc, "").find("not an identifier"), std::string::npos);
  // The front end's names: Unicode letters are names (lané), an arrow is not.
  EXPECT_NE(error_of(acc, "a\u2192b").find("not an identifier"), std::string::npos);
  {
    const RenameResult r = rename_at(file, acc, "lan\u00e9");
    ASSERT_TRUE(r.error.empty()) << r.error;
    const CheckedFile after = front_end(test::apply(text, r.ranges, "lan\u00e9"));
    EXPECT_TRUE(after.diagnostics.empty()) << test::codes_of(after);
  }
  EXPECT_NE(error_of(acc, "for").find("keyword"), std::string::npos);
  EXPECT_NE(error_of(acc, "syncthreads").find("builtin"), std::string::npos);
  EXPECT_NE(error_of(acc, "bf16").find("builtin"), std::string::npos);
  // Clashes: a parameter of the same kernel, a module constant, a function.
  EXPECT_NE(error_of(acc, "n").find("'n' is already the parameter defined on line 8"),
            std::string::npos);
  EXPECT_NE(error_of(acc, "T").find("module constant"), std::string::npos);
  EXPECT_NE(error_of(acc, "twice").find("function"), std::string::npos);
  // ... but a local of another kernel is no clash.
  EXPECT_TRUE(error_of(position_of(text, "acc", 4), "i").empty());
  // A module constant may not take a name some function defines.
  EXPECT_NE(error_of(position_of(text, "T", 0), "acc").find("local"), std::string::npos);
  EXPECT_NE(error_of(position_of(text, "syncthreads"), "sync").find("builtin"), std::string::npos);
  EXPECT_NE(error_of(Position{1, 0}, "x").find("no name"), std::string::npos);
  // The errors name both names.
  EXPECT_EQ(error_of(acc, "for"), "cannot rename 'acc' to 'for': 'for' is a Python keyword");
}

TEST(Rename, TagFunctionParametersBlockAClashingName) {
  const std::string text = "K = 2\n"
                           "@kernel(grid=1, block=32)\n"
                           "def k(A: Tensor((32, 4), f32)):\n"
                           "    tag(A, lambda r, c: {\"m\": r + K, \"k\": c})\n";
  const CheckedFile file = front_end(text);
  ASSERT_TRUE(file.diagnostics.empty()) << test::codes_of(file);
  // K renamed to r would be read as the lambda's r.
  EXPECT_NE(rename_at(file, position_of(text, "K"), "r").error.find("tag-function parameter"),
            std::string::npos);
  EXPECT_FALSE(prepare_rename_at(file, position_of(text, "r", 1)).error.empty());
}

struct ExampleRename {
  const char *example;
  const char *text; // the first occurrence of this text, `offset` bytes in, is on the name
  uint32_t offset;
};

class RenameInExamples : public ::testing::TestWithParam<ExampleRename> {};

// Renaming a name of a real kernel gives a file with the same diagnostics in
// which the old name no longer appears as a token.
TEST_P(RenameInExamples, KeepsTheKernelValid) {
  const ExampleRename &c = GetParam();
  const std::string text = test::read_example(c.example);
  const CheckedFile file = front_end(text);
  const Position at = position_of(text, c.text, 0, c.offset);
  const RenameResult r = rename_at(file, at, "renamed_name");
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_GT(r.ranges.size(), 1u);
  const std::string renamed = test::apply(text, r.ranges, "renamed_name");
  const CheckedFile after = front_end(renamed);
  EXPECT_EQ(test::codes_of(after), test::codes_of(file));
  // Every old reference now resolves to the renamed symbol.
  const auto refs = references_at(after, at, true);
  EXPECT_EQ(refs.size(), r.ranges.size());
}

INSTANTIATE_TEST_SUITE_P(Examples, RenameInExamples,
                         ::testing::Values(ExampleRename{"gemm_tiled.argus", "BK = 32", 0},
                                           ExampleRename{"gemm_tiled.argus", "a_smem", 0},
                                           ExampleRename{"gemm_tiled.argus", "for kt", 4},
                                           ExampleRename{"gemm_tiled.argus", "K: i32", 0},
                                           ExampleRename{"gemm_mma_sm90.argus", "mma_c_row", 0},
                                           ExampleRename{"gemm_mma_sm90.argus", "STAGES: constexpr",
                                                         0},
                                           ExampleRename{"softmax.argus", "def softmax_naive", 4},
                                           ExampleRename{"softmax.argus", "mx: f32", 0}));

} // namespace
} // namespace argus
