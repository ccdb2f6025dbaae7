// Semantic tokens: names classified by what sema resolved them to.
#include "argus/dsl/driver.h"
#include "argus/dsl/semantic_tokens.h"

#include "query_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

namespace argus {
namespace {

using namespace token_modifier;
using test::front_end;
using test::position_of;
using T = SemanticTokenType;

std::string describe(const SemanticToken &t) {
  std::string out = std::string(semantic_token_type_names()[static_cast<size_t>(t.type)]);
  for (size_t bit = 0; bit < semantic_token_modifier_names().size(); ++bit)
    if (t.modifiers & (1u << bit))
      out += "." + std::string(semantic_token_modifier_names()[bit]);
  return out;
}

// "type.modifier.modifier" of the token at the nth occurrence of `word`, or "none".
std::string token_at(const CheckedFile &file, const std::vector<SemanticToken> &tokens,
                     const std::string &word, int nth = 0) {
  const Position p = position_of(file.source->text(), word, nth);
  for (const SemanticToken &t : tokens)
    if (t.begin == p) {
      EXPECT_EQ(t.length, word.size()) << word;
      return describe(t);
    }
  return "none";
}

const char *kSource = R"(N = 4
lower_case = 2

@device
def twice(x: i32) -> i32:
    return 2 * x

@kernel(grid=1, block=32)
def k(A: Tensor((32,), f32), B: Tensor((32, 8), bf16), S: constexpr = 2):
    tag(A, ("m",))
    tag(B, lambda r, c: {"m": r, "k": c})
    s = make_shared((32,), f32)
    f = make_local((8,), bf16)
    ACC = 0
    for i in range(0, N):
        ACC += twice(i) + lower_case + S
    t = thread_id()
    s[t] = A[t]
    syncthreads()
    assert_tag(s[t], {"m": t})
    assert_tag_eq(s[t], A[t], fields=("m",))
    A[t] = s[t] + f32(ACC) + f32(inf)
    tiles = A.tile((8,))
    nvvm.cp_async_16(s[0], A[0])
)";

TEST(SemanticTokens, NamesAreClassifiedByResolution) {
  const CheckedFile file = front_end(kSource);
  const auto tokens = semantic_tokens(file);
  // Constants: readonly and static whatever their spelling.
  EXPECT_EQ(token_at(file, tokens, "N"), "variable.declaration.readonly.static");
  EXPECT_EQ(token_at(file, tokens, "N", 1), "variable.readonly.static");
  EXPECT_EQ(token_at(file, tokens, "lower_case", 1), "variable.readonly.static");
  // Functions: kernel vs device, at the definition and at the call.
  EXPECT_EQ(token_at(file, tokens, "twice"), "function.declaration.device");
  EXPECT_EQ(token_at(file, tokens, "twice", 1), "function.device");
  EXPECT_EQ(token_at(file, tokens, "k"), "function.declaration.kernel");
  EXPECT_EQ(token_at(file, tokens, "device"), "decorator.defaultLibrary.device");
  EXPECT_EQ(token_at(file, tokens, "kernel"), "decorator.defaultLibrary.kernel");
  // Parameters: memory space of tensors, readonly for constexpr.
  EXPECT_EQ(token_at(file, tokens, "x"), "parameter.declaration");
  EXPECT_EQ(token_at(file, tokens, "x", 1), "parameter");
  EXPECT_EQ(token_at(file, tokens, "A"), "parameter.declaration.global");
  EXPECT_EQ(token_at(file, tokens, "A", 1), "parameter.global");
  EXPECT_EQ(token_at(file, tokens, "S"), "parameter.declaration.readonly");
  EXPECT_EQ(token_at(file, tokens, "S", 1), "parameter.readonly");
  // Locals: an ALL_CAPS local is a variable, not a constant; memory spaces.
  EXPECT_EQ(token_at(file, tokens, "ACC"), "variable.declaration");
  EXPECT_EQ(token_at(file, tokens, "ACC", 1), "variable");
  EXPECT_EQ(token_at(file, tokens, "s"), "variable.declaration.shared");
  EXPECT_EQ(token_at(file, tokens, "s", 1), "variable.shared");
  EXPECT_EQ(token_at(file, tokens, "f"), "variable.declaration.local");
  EXPECT_EQ(token_at(file, tokens, "i"), "variable.declaration.readonly");
  EXPECT_EQ(token_at(file, tokens, "i", 1), "variable.readonly");
  // Builtins, directives, intrinsics, dtypes.
  EXPECT_EQ(token_at(file, tokens, "make_shared"), "function.defaultLibrary.shared");
  EXPECT_EQ(token_at(file, tokens, "make_local"), "function.defaultLibrary.local");
  EXPECT_EQ(token_at(file, tokens, "syncthreads"), "function.defaultLibrary");
  EXPECT_EQ(token_at(file, tokens, "range"), "function.defaultLibrary");
  EXPECT_EQ(token_at(file, tokens, "tag"), "macro.defaultLibrary");
  EXPECT_EQ(token_at(file, tokens, "assert_tag_eq"), "macro.defaultLibrary");
  EXPECT_EQ(token_at(file, tokens, "nvvm"), "namespace.defaultLibrary");
  EXPECT_EQ(token_at(file, tokens, "cp_async_16"), "intrinsic.defaultLibrary");
  EXPECT_EQ(token_at(file, tokens, "Tensor"), "type.defaultLibrary");
  EXPECT_EQ(token_at(file, tokens, "f32"), "type.defaultLibrary");
  EXPECT_EQ(token_at(file, tokens, "constexpr"), "type.defaultLibrary");
  EXPECT_EQ(token_at(file, tokens, "inf"), "variable.readonly.defaultLibrary");
  EXPECT_EQ(token_at(file, tokens, "tile"), "method.defaultLibrary");
  // Tags: field names in tuples, tag functions, records and fields=.
  EXPECT_EQ(token_at(file, tokens, "\"m\""), "tag");
  EXPECT_EQ(token_at(file, tokens, "\"m\"", 1), "tag");
  EXPECT_EQ(token_at(file, tokens, "\"k\""), "tag");
  EXPECT_EQ(token_at(file, tokens, "\"m\"", 2), "tag");
  EXPECT_EQ(token_at(file, tokens, "\"m\"", 3), "tag");
  EXPECT_EQ(token_at(file, tokens, "r"), "parameter.declaration");
  EXPECT_EQ(token_at(file, tokens, "r", 1), "parameter");
  // Keyword-argument names and keywords are the grammar's business.
  EXPECT_EQ(token_at(file, tokens, "grid"), "none");
  EXPECT_EQ(token_at(file, tokens, "fields"), "none");
}

TEST(SemanticTokens, ABuiltinNameBoundAsALocalIsALocal) {
  const CheckedFile file = front_end("@kernel(grid=1, block=32)\n"
                                     "def k(A: Tensor((32,), f32)):\n"
                                     "    tag = thread_id()\n"
                                     "    A[tag] = 1.0\n");
  ASSERT_TRUE(file.diagnostics.empty()) << test::codes_of(file);
  const auto tokens = semantic_tokens(file);
  EXPECT_EQ(token_at(file, tokens, "tag"), "variable.declaration");
  EXPECT_EQ(token_at(file, tokens, "tag", 1), "variable");
}

TEST(SemanticTokens, TheSameNameInTwoKernelsFollowsEachKernel) {
  const CheckedFile file = front_end("@kernel(grid=1, block=32)\n"
                                     "def a(X: Tensor((32,), f32)):\n"
                                     "    v = make_shared((32,), f32)\n"
                                     "    v[0] = X[0]\n"
                                     "@kernel(grid=1, block=32)\n"
                                     "def b(X: Tensor((32,), f32), v: i32):\n"
                                     "    X[v] = 0.0\n");
  const auto tokens = semantic_tokens(file);
  EXPECT_EQ(token_at(file, tokens, "v", 1), "variable.shared");
  EXPECT_EQ(token_at(file, tokens, "v", 3), "parameter");
}

TEST(SemanticTokens, UTF8ColumnsAfterNonAsciiText) {
  const CheckedFile file = front_end("X = 1 # é\n"
                                     "Y = (X, \"é\", X)\n");
  const auto tokens = semantic_tokens(file);
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[3].begin, (Position{1, 14})); // after the two bytes of é
  EXPECT_EQ(tokens[3].length, 1u);
}

TEST(SemanticTokens, BrokenAndRefusedFilesGiveNoCrash) {
  EXPECT_NO_THROW(semantic_tokens(front_end("def (:\n  x = = 2\n@kernel(\n")));
  FrontendOptions tiny;
  tiny.max_file_bytes = 4;
  tiny.invariants = false;
  EXPECT_TRUE(semantic_tokens(check_source("big.argus", "X = 12345\n", tiny)).empty());
}

class ExampleTokens : public ::testing::TestWithParam<const char *> {};

TEST_P(ExampleTokens, AreOrderedDisjointAndOnNames) {
  const std::string text = test::read_example(GetParam());
  ASSERT_FALSE(text.empty());
  const CheckedFile file = front_end(text);
  const auto tokens = semantic_tokens(file);
  ASSERT_GT(tokens.size(), 50u);
  Position end{};
  for (const SemanticToken &t : tokens) {
    EXPECT_FALSE(t.begin < end) << describe(t) << " at " << t.begin.line + 1;
    end = Position{t.begin.line, t.begin.column + t.length};
    const std::string_view spelled =
        file.source->line(t.begin.line).substr(t.begin.column, t.length);
    ASSERT_FALSE(spelled.empty());
    if (t.type == T::Tag)
      EXPECT_EQ(spelled.front(), '"') << spelled;
    else
      EXPECT_TRUE(std::isalpha(static_cast<unsigned char>(spelled.front())) ||
                  spelled.front() == '_')
          << spelled;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleTokens,
                         ::testing::Values("gemm_naive.argus", "gemm_tiled.argus",
                                           "gemm_vectorized.argus", "gemm_mma_sm90.argus",
                                           "gemm_mfma_gfx942.argus", "softmax.argus"));

TEST(SemanticTokens, ExampleKernelsUseTheirIntrinsicsAndDeviceFunctions) {
  const CheckedFile sm90 = front_end(test::read_example("gemm_mma_sm90.argus"));
  const auto tokens = semantic_tokens(sm90);
  EXPECT_EQ(token_at(sm90, tokens, "mma_m16n8k16_bf16_f32"), "intrinsic.defaultLibrary");
  EXPECT_EQ(token_at(sm90, tokens, "ldmatrix_x4"), "intrinsic.defaultLibrary");
  EXPECT_EQ(token_at(sm90, tokens, "mma_c_row", 1), "function.device");
  EXPECT_EQ(token_at(sm90, tokens, "a_frag"), "variable.declaration.local");
  EXPECT_EQ(token_at(sm90, tokens, "a_smem", 1), "variable.declaration.shared"); // 0: a comment
  EXPECT_EQ(token_at(sm90, tokens, "gemm_mma_sm90", 1), "function.declaration.kernel");
  // @bench(M=4096, ...): the sizes are the kernel's parameters.
  const Position bench_m = position_of(sm90.source->text(), "@bench", 0, 7);
  const auto m = std::find_if(tokens.begin(), tokens.end(),
                              [&](const SemanticToken &t) { return t.begin == bench_m; });
  ASSERT_NE(m, tokens.end());
  EXPECT_EQ(describe(*m), "parameter");
  const CheckedFile gfx = front_end(test::read_example("gemm_mfma_gfx942.argus"));
  const auto gfx_tokens = semantic_tokens(gfx);
  EXPECT_EQ(token_at(gfx, gfx_tokens, "amdgpu"), "namespace.defaultLibrary");
}

} // namespace
} // namespace argus
