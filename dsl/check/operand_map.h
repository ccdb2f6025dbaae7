// Internal: where a matrix instruction's operand elements live — element
// (row, col) of an operand matrix → the (thread, value) of the warp that holds
// it, from the thread–value layouts of argus_layout. Shared by the
// interpreter (intrinsics.cpp) and the tag proof (tag_proof.cpp).
#pragma once

#include <string>
#include <vector>

namespace argus::check::detail {

struct OperandMap {
  int rows = 0, cols = 0, threads = 0, values = 0;
  std::vector<int> thread, value; // [row + rows * col]
  bool ok = false;
};

// `instruction` as builtin_short_name gives it ("mma_m16n8k16_bf16_f32"),
// `operand` "A", "B" or "C"; `ok` is false where no layout is known.
const OperandMap &operand_map(const std::string &instruction, const char *operand);

} // namespace argus::check::detail
