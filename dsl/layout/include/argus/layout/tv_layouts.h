// Thread–value layouts of matrix instructions, as data (docs/symbolic.md).
//
// Convention (../shared/design/layout-algebra.md): a TV layout maps the
// (thread, value) index t + T·v, with t < threads and v < values, to the
// column-major index of the element in the operand matrix:
//   A (M×K): m + M·k      B (N×K): n + N·k      C/D (M×N): m + M·n
// `rows` × `cols` is that matrix (M×K, N×K or M×N). Every entry cites the
// vendor document its per-lane formula comes from; tests/layout/
// tv_layouts_test.cpp checks each entry against those formulas element by
// element.
#pragma once

#include "argus/layout/layout.h"

#include <optional>
#include <span>
#include <string_view>

namespace argus::layout {

struct TvLayout {
  // "mma_m16n8k16_bf16", "wgmma_m64n128k16_f16", "mfma_f32_32x32x8_bf16", ...
  std::string_view instruction;
  // "A", "B", "C" (C also stands for D); wgmma: "A" is the shared-memory
  // (descriptor) operand, "A_reg" the register operand.
  std::string_view operand;
  int threads = 0;
  Layout layout;
  int rows = 0;
  int cols = 0;
  std::string_view citation;
};

// Values held per thread: size(layout) / threads.
int values_per_thread(const TvLayout &tv);

// Whether a thread maps to the whole tile (stride-0 thread mode): the
// shared-memory operands of wgmma, read by the whole warpgroup.
bool is_broadcast(const TvLayout &tv);

// Every entry: mma m16n8k16 (bf16, f16), wgmma m64nNk16 for N = 8, 16, ...,
// 256 (bf16, f16), and the CDNA3 MFMA instructions.
std::span<const TvLayout> all_tv_layouts();

// The entry for an instruction and operand, or null. Accepted spellings: the
// table's names, with an optional "nvvm." / "amdgpu." / "v_" prefix, an
// optional "_f32" accumulator suffix on mma/wgmma names (the DSL's
// nvvm.mma_m16n8k16_bf16_f32), an optional "_1k" suffix on MFMA names, and
// operand "D" for "C".
const TvLayout *find_tv_entry(std::string_view instruction, std::string_view operand);
std::optional<Layout> find_tv_layout(std::string_view instruction, std::string_view operand);

} // namespace argus::layout
