// The editor queries of dsl/query: completion, signature help, inlay hints
// and the hover of layouts, tags and fragment ownership, on small sources
// and on examples/*.argus.
#include "argus/dsl/completion.h"
#include "argus/dsl/driver.h"
#include "argus/dsl/hover.h"
#include "argus/dsl/inlay_hints.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace argus {
namespace {

CheckedFile front_end(const std::string &text) {
  FrontendOptions options;
  options.invariants = false;
  return check_source("test.argus", text, options);
}

CheckedFile example(const std::string &name) {
  std::ifstream in(std::string(ARGUS_SOURCE_DIR) + "/examples/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return front_end(text.str());
}

// The position just after the first occurrence of `needle` on `line`.
Position after(const CheckedFile &file, uint32_t line, const std::string &needle) {
  const std::string_view text = file.source->line(line);
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string_view::npos) << needle << " not on line " << line;
  return Position{line, static_cast<uint32_t>(at + needle.size())};
}

const CompletionItem *find(const std::vector<CompletionItem> &items, const std::string &label) {
  for (const auto &item : items)
    if (item.label == label)
      return &item;
  return nullptr;
}

const char *kKernel = "T = 64\n"                               // 0
                      "\n"                                     // 1
                      "@device\n"                              // 2
                      "def twice(x: i32) -> i32:\n"            // 3
                      "    return 2 * x\n"                     // 4
                      "\n"                                     // 5
                      "@kernel(grid=1, block=T)\n"             // 6
                      "def k(X: Tensor((T,), f32)):\n"         // 7
                      "    t = thread_id()\n"                  // 8
                      "    for i in range(0, T):\n"            // 9
                      "        X[t] = f32(twice(i))  # note\n" // 10
                      "    late = t + 1\n"                     // 11
                      "    X[late] = 0.0\n";                   // 12

TEST(Completion, NamesInScopeFollowDefinitionsAndLoops) {
  const CheckedFile file = front_end(kKernel);
  ASSERT_FALSE(file.has_errors());
  const auto in_loop = complete_at(file, Position{10, 8});
  for (const char *name : {"T", "twice", "X", "t", "i", "thread_id", "f32", "range", "nvvm"})
    EXPECT_NE(find(in_loop, name), nullptr) << name;
  EXPECT_EQ(find(in_loop, "late"), nullptr) << "defined after the position";
  EXPECT_EQ(find(in_loop, "k"), nullptr) << "kernels are not named in code";
  EXPECT_EQ(find(in_loop, "i")->kind, CompletionItem::Kind::LoopVariable);
  EXPECT_EQ(find(in_loop, "X")->detail, "global Tensor((64,), f32)");
  EXPECT_EQ(find(in_loop, "T")->detail, "int = 64");
  EXPECT_EQ(find(in_loop, "twice")->snippet, "twice(${1:x})");
  EXPECT_EQ(find(in_loop, "assume")->kind, CompletionItem::Kind::Builtin);

  const auto after_loop = complete_at(file, Position{12, 4});
  EXPECT_EQ(find(after_loop, "i"), nullptr) << "a loop variable's scope ends with its loop";
  EXPECT_NE(find(after_loop, "late"), nullptr);

  const auto in_device = complete_at(file, Position{4, 4});
  EXPECT_NE(find(in_device, "x"), nullptr);
  EXPECT_EQ(find(in_device, "t"), nullptr) << "another function's local";
  EXPECT_EQ(find(in_device, "assume"), nullptr) << "assume is kernel-only";

  EXPECT_TRUE(complete_at(file, after(file, 10, "# no")).empty()) << "in a comment";
  EXPECT_TRUE(complete_at(file, Position{999, 0}).empty());
}

TEST(Completion, MemberContexts) {
  const CheckedFile file = front_end("@kernel(grid=1, block=32)\n"
                                     "def k(X: Tensor((32,), f32)):\n"
                                     "    acc = full((4,), 0.0, f32)\n"
                                     "    t = thread_id()\n"
                                     "    y = acc.\n"
                                     "    amdgpu.\n"
                                     "    z = t.\n");
  const auto tensor = complete_at(file, after(file, 4, "acc."));
  ASSERT_EQ(tensor.size(), 1u);
  EXPECT_EQ(tensor[0].label, "tile");
  const auto amd = complete_at(file, after(file, 5, "amdgpu."));
  EXPECT_NE(find(amd, "mfma_f32_32x32x8_bf16"), nullptr);
  EXPECT_EQ(find(amd, "mma_m16n8k16_bf16_f32"), nullptr) << "an nvvm intrinsic";
  for (const auto &item : amd)
    EXPECT_EQ(item.kind, CompletionItem::Kind::Intrinsic);
  EXPECT_TRUE(complete_at(file, after(file, 6, "t.")).empty()) << "a scalar has no members";
}

TEST(Completion, DocumentationIsTheHoverText) {
  const CheckedFile file = front_end(kKernel);
  const auto items = complete_at(file, Position{10, 8});
  const auto hover = hover_at(file, after(file, 8, "thread_"));
  ASSERT_TRUE(hover);
  EXPECT_NE(hover->markdown.find(find(items, "thread_id")->documentation), std::string::npos);
}

TEST(SignatureHelp, ActiveParameterByCommasAndKeywords) {
  const CheckedFile file = front_end("@kernel(grid=1, block=32)\n"
                                     "def k(X: Tensor((32,), f32)):\n"
                                     "    s = make_shared((32,), f32)\n"
                                     "    X[0] = f32(min(1, cdiv(7, 2)))\n"
                                     "    for i in range(0, 32, 1, unroll=4):\n"
                                     "        X[i] = 0.0\n");
  auto help = signature_help_at(file, after(file, 3, "cdiv(7, "));
  ASSERT_TRUE(help);
  EXPECT_EQ(help->label, "cdiv(a, b)");
  EXPECT_EQ(help->active_parameter, 1);
  help = signature_help_at(file, after(file, 3, "min(1"));
  ASSERT_TRUE(help);
  EXPECT_EQ(help->label, "min(a, b, …)");
  EXPECT_EQ(help->active_parameter, 0);
  help = signature_help_at(file, after(file, 2, "((32"));
  ASSERT_TRUE(help) << "a tuple's parentheses are not a call";
  EXPECT_EQ(help->label, "make_shared(shape, dtype, layout=…)");
  EXPECT_EQ(help->active_parameter, 0);
  help = signature_help_at(file, after(file, 4, "unroll="));
  ASSERT_TRUE(help);
  EXPECT_EQ(help->active_parameter, 3);
  help = signature_help_at(file, after(file, 3, "f32("));
  ASSERT_TRUE(help);
  EXPECT_EQ(help->label, "f32(x)");
  for (const std::string &p : help->parameters)
    EXPECT_NE(help->label.find(p), std::string::npos) << "parameter labels are substrings";
  EXPECT_FALSE(signature_help_at(file, Position{1, 0}));
}

TEST(InlayHints, ExampleViewsAndTripCounts) {
  const CheckedFile file = example("gemm_mma_sm90.argus");
  ASSERT_FALSE(file.has_errors());
  const auto hints = inlay_hints(file, Range{{0, 0}, {100000, 0}});
  auto label_after = [&](const std::string &needle) -> std::string {
    for (uint32_t line = 0; line < file.source->line_count(); ++line) {
      const size_t at = file.source->line(line).find(needle);
      if (at == std::string_view::npos)
        continue;
      for (const auto &h : hints)
        if (h.position.line == line && h.position.column >= at &&
            h.position.column <= at + needle.size())
          return h.label;
    }
    return "";
  };
  EXPECT_EQ(label_after("a_smem ="),
            ": shared (2, 128, 4, 8) bf16 · Sw<2,4,3> o (2,128,4,8):(4096,32,8,1)");
  EXPECT_EQ(label_after("acc = full"), ": local (4, 4, 4) f32 · (4,4,4):(16,4,1)");
  EXPECT_EQ(label_after("lane = lane_id()"), ": i32");
  EXPECT_EQ(label_after("for kt in range(0, k_tiles)"), "× K/32");
  EXPECT_EQ(label_after("for kk in range(0, KI, unroll=KI)"), "× 2");
  EXPECT_TRUE(std::is_sorted(hints.begin(), hints.end(),
                             [](const auto &a, const auto &b) { return a.position < b.position; }));
  // Only the hints inside a range.
  const auto few = inlay_hints(file, Range{{95, 0}, {96, 0}});
  for (const auto &h : few)
    EXPECT_TRUE(h.position.line == 95 || (h.position.line == 96 && h.position.column == 0));
  EXPECT_LT(few.size(), hints.size());
}

TEST(InlayHints, TripCounts) {
  const CheckedFile file = front_end("@kernel(grid=1, block=32)\n"
                                     "def k(X: Tensor((N,), f32), N: i32):\n"
                                     "    for a in range(0, 10, 3):\n"
                                     "        X[a] = 0.0\n"
                                     "    for b in range(10, 0, -3):\n"
                                     "        X[b] = 0.0\n"
                                     "    for c in range(5, 5):\n"
                                     "        X[c] = 0.0\n"
                                     "    for d in range(N // 4 + 1):\n"
                                     "        X[d] = 0.0\n"
                                     "    for e in range(2, N, 8):\n"
                                     "        X[e] = 0.0\n"
                                     "    for f in range(0, N, X[0]):\n"
                                     "        X[f] = 0.0\n");
  std::vector<std::string> counts;
  for (const auto &h : inlay_hints(file, Range{{0, 0}, {100, 0}}))
    if (h.kind == InlayHint::Kind::TripCount)
      counts.push_back(h.label);
  // The data-dependent step gives no hint (and a float step is an error anyway).
  EXPECT_EQ(counts, (std::vector<std::string>{"× 4", "× 4", "× 0", "× N/4 + 1", "× ⌈(N - 2)/8⌉"}));
}

// The PTX ISA's fragment formula for mma.m16n8k16's C/D: lane l, value v holds
// C[l / 4 + 8 * (v / 2), 2 * (l % 4) + v % 2].
std::string ptx_c_owner(int row, int col) {
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < 4; ++v)
      if (lane / 4 + 8 * (v / 2) == row && 2 * (lane % 4) + v % 2 == col)
        return std::to_string(lane) + "." + std::to_string(v);
  return "?";
}

TEST(Hover, FragmentOwnershipFollowsThePtxFormula) {
  const CheckedFile file = front_end("@kernel(grid=1, block=32)\n"
                                     "def k(C: Tensor((16, 8), f32)):\n"
                                     "    a = make_local((8,), bf16)\n"
                                     "    b = make_local((4,), bf16)\n"
                                     "    acc = full((4,), 0.0, f32)\n"
                                     "    acc = nvvm.mma_m16n8k16_bf16_f32(a, b, acc)\n");
  const auto hover = hover_at(file, Position{4, 5});
  ASSERT_TRUE(hover);
  const std::string &md = hover->markdown;
  const size_t grid = md.find("owner (lane.value) of C[row, col]:");
  ASSERT_NE(grid, std::string::npos) << md;
  std::istringstream rows(md.substr(md.find("```text\n", grid) + 8));
  for (int row = 0; row < 16; ++row) {
    std::string line;
    std::getline(rows, line);
    std::istringstream cells(line);
    for (int col = 0; col < 8; ++col) {
      std::string cell;
      cells >> cell;
      EXPECT_EQ(cell, ptx_c_owner(row, col)) << "C[" << row << "," << col << "]";
    }
  }
  EXPECT_NE(md.find("lane 3: C[0,6] C[0,7] C[8,6] C[8,7]"), std::string::npos) << md;
}

TEST(Hover, TagsAndLayouts) {
  const CheckedFile file = front_end(
      "@kernel(grid=1, block=32)\n"
      "def k(A: Tensor((M, K), (K, 1), bf16), M: i32, K: i32):\n"
      "    tag(A, (\"m\", \"k\"))\n"
      "    s = make_shared((8, 64), bf16, layout=compose(Swizzle(3, 4, 3), make_layout((8, 64), "
      "(64, 1))))\n"
      "    t = A.tile((8, 64))[1, 2]\n"
      "    s[0, 0] = t[0, 0]\n");
  ASSERT_FALSE(file.has_errors());
  auto hover = hover_at(file, Position{2, 8});
  ASSERT_TRUE(hover);
  EXPECT_NE(hover->markdown.find("layout `(M,K):(K,1)`"), std::string::npos) << hover->markdown;
  EXPECT_NE(hover->markdown.find("tag `A[i0, i1]` ↦ `{m: i0, k: i1}`"), std::string::npos);
  hover = hover_at(file, Position{3, 4});
  ASSERT_TRUE(hover);
  EXPECT_NE(hover->markdown.find("layout `Sw<3,4,3> o (8,64):(64,1)`"), std::string::npos)
      << hover->markdown;
  hover = hover_at(file, Position{4, 4});
  ASSERT_TRUE(hover);
  EXPECT_NE(hover->markdown.find("layout `(8,64):(K,1)`"), std::string::npos) << hover->markdown;
}

// Every query at many positions of every example: no crash, ranges inside the file.
TEST(EditorQueries, EveryExampleAtManyPositions) {
  for (const auto &entry :
       std::filesystem::directory_iterator(std::string(ARGUS_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".argus")
      continue;
    const CheckedFile file = example(entry.path().filename().string());
    SCOPED_TRACE(entry.path().string());
    EXPECT_FALSE(inlay_hints(file, Range{{0, 0}, {100000, 0}}).empty());
    for (uint32_t line = 0; line < file.source->line_count(); ++line) {
      const uint32_t width = static_cast<uint32_t>(file.source->line(line).size());
      for (uint32_t column = 0; column <= width + 1; column += 5) {
        const Position p{line, column};
        (void)complete_at(file, p);
        (void)signature_help_at(file, p);
        if (auto h = hover_at(file, p)) {
          EXPECT_FALSE(h->markdown.empty());
        }
      }
    }
  }
}

} // namespace
} // namespace argus
