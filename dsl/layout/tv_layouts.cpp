// The thread–value layout table. Each entry: (thread, value) index t + T·v →
// column-major index in the operand matrix (m + M·k for A, n + N·k for B,
// m + M·n for C). The formulas quoted per entry are the vendors' per-lane
// descriptions; the layouts are derived from them (derivation in
// docs/symbolic.md) and checked against them in tv_layouts_test.cpp.
#include "argus/layout/tv_layouts.h"

#include <deque>
#include <string>
#include <vector>

namespace argus::layout {
namespace {

// NVIDIA PTX ISA, section "Matrix Fragments for mma.m16n8k16 with floating
// point type" (.f16/.bf16 multiplicands, .f32 accumulators; sm_80 and later).
// groupID = laneid >> 2, threadID_in_group = laneid % 4.
//  A (16×16), a0..a7: row = groupID (a0,a1,a4,a5) or groupID + 8 (a2,a3,a6,a7);
//                     col = threadID_in_group·2 + (i & 1), + 8 for a4..a7.
//  B (16×8, K×N), b0..b3: row(k) = threadID_in_group·2 + (i & 1), + 8 for b2,b3;
//                     col(n) = groupID.
//  C/D (16×8), c0..c3: row = groupID (c0,c1) or groupID + 8 (c2,c3);
//                     col = threadID_in_group·2 + (i & 1).
constexpr std::string_view kMmaCitation =
    "NVIDIA PTX ISA, 'Matrix Fragments for mma.m16n8k16 with floating point type'";

// NVIDIA PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"
// → "Register Fragments and Shared Memory Matrix Layouts" (wgmma .m64nNk16,
// .f16/.bf16 multiplicands, .f32 accumulators; sm_90a). Warp w = tid / 32 of
// the warpgroup owns rows 16w .. 16w+15; inside a warp the fragments are
// those of mma.m16n8k16:
//  D (64×N), d0..d(N/2-1): row = 16w + groupID + 8·((i >> 1) & 1);
//                          col = 8·(i >> 2) + threadID_in_group·2 + (i & 1).
//  A in registers (64×16), a0..a7: row = 16w + groupID + 8·((i >> 1) & 1);
//                          col = threadID_in_group·2 + (i & 1) + 8·(i >> 2).
constexpr std::string_view kWgmmaRegisterCitation =
    "NVIDIA PTX ISA, wgmma 'Register Fragments and Shared Memory Matrix Layouts': register "
    "fragments of .m64nNk16 (D; A in registers)";
// A or B read from shared memory through a matrix descriptor: the whole
// warpgroup reads the whole tile, so every thread maps to every element
// (thread stride 0); values are the tile in column-major order
// (layout-algebra.md, "Matrix-instruction thread–value layouts").
constexpr std::string_view kWgmmaSharedCitation =
    "NVIDIA PTX ISA, wgmma 'Register Fragments and Shared Memory Matrix Layouts': A/B from "
    "shared memory via matrix descriptors (whole tile per thread, thread stride 0)";

// AMD Matrix Instruction Calculator (CDNA3 / MI300, wave64) and the AMD
// Instinct MI300 CDNA3 ISA Reference Guide, chapter "Matrix Arithmetic
// Instructions". Lane l, register g, half h (value v = 2g + h for 16-bit
// inputs packed two per VGPR):
//  v_mfma_f32_32x32x8_{bf16,f16}: A[i][k]: i = l % 32, k = 4·(l / 32) + v
//     (B[k][j] likewise with j = l % 32); D[i][j]: j = l % 32,
//     i = 8·(g / 4) + 4·(l / 32) + g % 4 for g < 16.
//  v_mfma_f32_16x16x16_{bf16,f16}: A: i = l % 16, k = 4·(l / 16) + v;
//     D: j = l % 16, i = 4·(l / 16) + g for g < 4.
//  v_mfma_f32_16x16x32_fp8_fp8: A: i = l % 16, k = 8·(l / 16) + v (v < 8, one
//     byte each); B likewise; D as 16x16x16.
constexpr std::string_view kMfmaCitation =
    "AMD Matrix Instruction Calculator (CDNA3); AMD Instinct MI300 CDNA3 ISA Reference Guide, "
    "'Matrix Arithmetic Instructions'";

struct Spec {
  std::string_view instruction;
  std::string_view operand;
  int threads;
  std::string_view layout;
  int rows, cols;
  std::string_view citation;
};

// The fixed-size entries.
constexpr Spec kFixed[] = {
    // mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32
    {"mma_m16n8k16_bf16", "A", 32, "((4,8),(2,2,2)):((32,1),(16,8,128))", 16, 16, kMmaCitation},
    {"mma_m16n8k16_bf16", "B", 32, "((4,8),(2,2)):((16,1),(8,64))", 8, 16, kMmaCitation},
    {"mma_m16n8k16_bf16", "C", 32, "((4,8),(2,2)):((32,1),(16,8))", 16, 8, kMmaCitation},
    {"mma_m16n8k16_f16", "A", 32, "((4,8),(2,2,2)):((32,1),(16,8,128))", 16, 16, kMmaCitation},
    {"mma_m16n8k16_f16", "B", 32, "((4,8),(2,2)):((16,1),(8,64))", 8, 16, kMmaCitation},
    {"mma_m16n8k16_f16", "C", 32, "((4,8),(2,2)):((32,1),(16,8))", 16, 8, kMmaCitation},
    // v_mfma_f32_32x32x8_bf16 (CDNA3; 4 bf16 per lane) and v_mfma_f32_32x32x8_f16.
    {"mfma_f32_32x32x8_bf16", "A", 64, "((32,2),4):((1,128),32)", 32, 8, kMfmaCitation},
    {"mfma_f32_32x32x8_bf16", "B", 64, "((32,2),4):((1,128),32)", 32, 8, kMfmaCitation},
    {"mfma_f32_32x32x8_bf16", "C", 64, "((32,2),(4,4)):((32,4),(1,8))", 32, 32, kMfmaCitation},
    {"mfma_f32_32x32x8_f16", "A", 64, "((32,2),4):((1,128),32)", 32, 8, kMfmaCitation},
    {"mfma_f32_32x32x8_f16", "B", 64, "((32,2),4):((1,128),32)", 32, 8, kMfmaCitation},
    {"mfma_f32_32x32x8_f16", "C", 64, "((32,2),(4,4)):((32,4),(1,8))", 32, 32, kMfmaCitation},
    // v_mfma_f32_16x16x16_bf16 (CDNA3; 4 bf16 per lane) and v_mfma_f32_16x16x16_f16.
    {"mfma_f32_16x16x16_bf16", "A", 64, "((16,4),4):((1,64),16)", 16, 16, kMfmaCitation},
    {"mfma_f32_16x16x16_bf16", "B", 64, "((16,4),4):((1,64),16)", 16, 16, kMfmaCitation},
    {"mfma_f32_16x16x16_bf16", "C", 64, "((16,4),4):((16,4),1)", 16, 16, kMfmaCitation},
    {"mfma_f32_16x16x16_f16", "A", 64, "((16,4),4):((1,64),16)", 16, 16, kMfmaCitation},
    {"mfma_f32_16x16x16_f16", "B", 64, "((16,4),4):((1,64),16)", 16, 16, kMfmaCitation},
    {"mfma_f32_16x16x16_f16", "C", 64, "((16,4),4):((16,4),1)", 16, 16, kMfmaCitation},
    // v_mfma_f32_16x16x32_fp8_fp8 (CDNA3; 8 fp8 per lane).
    {"mfma_f32_16x16x32_fp8", "A", 64, "((16,4),8):((1,128),16)", 16, 32, kMfmaCitation},
    {"mfma_f32_16x16x32_fp8", "B", 64, "((16,4),8):((1,128),16)", 16, 32, kMfmaCitation},
    {"mfma_f32_16x16x32_fp8", "C", 64, "((16,4),4):((16,4),1)", 16, 16, kMfmaCitation},
};

Layout must_parse(std::string_view text) {
  Result<Layout> l = parse_layout(text);
  // The table is constant data checked by the tests; a parse failure is a
  // programming error, reported as the empty layout 1:0.
  return l.ok() ? *l : Layout();
}

struct Table {
  std::deque<std::string> strings; // storage for generated names
  std::vector<TvLayout> entries;

  std::string_view keep(std::string s) {
    strings.push_back(std::move(s));
    return strings.back();
  }

  Table() {
    for (const Spec &s : kFixed) {
      entries.push_back(
          {s.instruction, s.operand, s.threads, must_parse(s.layout), s.rows, s.cols, s.citation});
    }
    // wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}.{bf16,f16}, N = 8..256.
    for (std::string_view dtype : {"bf16", "f16"}) {
      for (int n = 8; n <= 256; n += 8) {
        const std::string_view name =
            keep("wgmma_m64n" + std::to_string(n) + "k16_" + std::string(dtype));
        const std::string ns = std::to_string(n);
        entries.push_back(
            {name, "A", 128, must_parse("(128,(64,16)):(0,(1,64))"), 64, 16, kWgmmaSharedCitation});
        entries.push_back({name, "A_reg", 128,
                           must_parse("((4,8,4),(2,2,2)):((128,1,16),(64,8,512))"), 64, 16,
                           kWgmmaRegisterCitation});
        entries.push_back({name, "B", 128, must_parse("(128,(" + ns + ",16)):(0,(1," + ns + "))"),
                           n, 16, kWgmmaSharedCitation});
        entries.push_back(
            {name, "C", 128,
             must_parse("((4,8,4),(2,2," + std::to_string(n / 8) + ")):((128,1,16),(64,8,512))"),
             64, n, kWgmmaRegisterCitation});
      }
    }
  }
};

const Table &table() {
  static const Table t;
  return t;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

const TvLayout *lookup(std::string_view instruction, std::string_view operand) {
  for (const TvLayout &e : table().entries) {
    if (e.instruction == instruction && e.operand == operand)
      return &e;
  }
  return nullptr;
}

} // namespace

int values_per_thread(const TvLayout &tv) {
  const int64_t n = size(tv.layout).value_or(0);
  return tv.threads > 0 ? static_cast<int>(n / tv.threads) : 0;
}

bool is_broadcast(const TvLayout &tv) {
  Result<Layout> threads = mode(tv.layout, 0);
  if (!threads.ok())
    return false;
  const IntTuple flat = flatten(threads->stride());
  if (flat.is_leaf())
    return flat.value() == 0;
  for (const IntTuple &d : flat.elements()) {
    if (d.value() != 0)
      return false;
  }
  return true;
}

std::span<const TvLayout> all_tv_layouts() { return table().entries; }

const TvLayout *find_tv_entry(std::string_view instruction, std::string_view operand) {
  if (operand == "D")
    operand = "C";
  for (std::string_view prefix : {"nvvm.", "amdgpu."}) {
    if (starts_with(instruction, prefix))
      instruction.remove_prefix(prefix.size());
  }
  if (starts_with(instruction, "v_"))
    instruction.remove_prefix(2);
  if (const TvLayout *e = lookup(instruction, operand))
    return e;
  // nvvm.mma_m16n8k16_bf16_f32: the accumulator type suffix.
  if ((starts_with(instruction, "mma_") || starts_with(instruction, "wgmma_")) &&
      ends_with(instruction, "_f32")) {
    return lookup(instruction.substr(0, instruction.size() - 4), operand);
  }
  // v_mfma_f32_32x32x8_bf16_1k (the CDNA2 spelling of the 4-per-lane form).
  if (starts_with(instruction, "mfma_") && ends_with(instruction, "_1k"))
    return lookup(instruction.substr(0, instruction.size() - 3), operand);
  // v_mfma_f32_16x16x32_fp8_fp8: the B type suffix.
  if (starts_with(instruction, "mfma_") && ends_with(instruction, "_fp8_fp8"))
    return lookup(instruction.substr(0, instruction.size() - 4), operand);
  return nullptr;
}

std::optional<Layout> find_tv_layout(std::string_view instruction, std::string_view operand) {
  const TvLayout *e = find_tv_entry(instruction, operand);
  if (e == nullptr)
    return std::nullopt;
  return e->layout;
}

} // namespace argus::layout
