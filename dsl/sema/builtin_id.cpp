// Names and families of the builtin identities (builtins.def).
#include "argus/dsl/builtin_id.h"

#include <array>

namespace argus {

namespace {

struct Entry {
  BuiltinId id;
  std::string_view ns;
  std::string_view name;
};

constexpr std::array kEntries = {
    Entry{BuiltinId::None, "", ""},
#define ARGUS_BUILTIN(id, ns, name) Entry{BuiltinId::id, ns, name},
#include "argus/dsl/builtins.def"
#undef ARGUS_BUILTIN
};

constexpr auto kIds = [] {
  std::array<BuiltinId, kEntries.size() - 1> ids{};
  for (size_t i = 1; i < kEntries.size(); ++i)
    ids[i - 1] = kEntries[i].id;
  return ids;
}();

const Entry &entry(BuiltinId id) {
  const auto index = static_cast<size_t>(id);
  return index < kEntries.size() ? kEntries[index] : kEntries[0];
}

} // namespace

std::string_view builtin_namespace(BuiltinId id) { return entry(id).ns; }
std::string_view builtin_short_name(BuiltinId id) { return entry(id).name; }

std::string builtin_name(BuiltinId id) {
  const Entry &e = entry(id);
  return e.ns.empty() ? std::string(e.name) : std::string(e.ns) + "." + std::string(e.name);
}

std::optional<BuiltinId> builtin_by_name(std::string_view ns, std::string_view name) {
  for (size_t i = 1; i < kEntries.size(); ++i)
    if (kEntries[i].ns == ns && kEntries[i].name == name)
      return kEntries[i].id;
  return std::nullopt;
}

std::span<const BuiltinId> all_builtin_ids() { return kIds; }

bool is_launch_coordinate(BuiltinId id) {
  using enum BuiltinId;
  return id == ThreadId || id == BlockId || id == BlockDim || id == GridDim || id == LaneId ||
         id == WarpId || id == WarpgroupId;
}

bool is_unary_math(BuiltinId id) {
  using enum BuiltinId;
  return id == Exp || id == Exp2 || id == Log || id == Log2 || id == Sqrt || id == Rsqrt ||
         id == Tanh;
}

bool is_shuffle(BuiltinId id) {
  using enum BuiltinId;
  return id == Shuffle || id == ShuffleXor || id == ShuffleUp || id == ShuffleDown;
}

bool is_tensor_constructor(BuiltinId id) {
  using enum BuiltinId;
  return id == MakeShared || id == MakeLocal || id == Full;
}

bool is_wgmma(BuiltinId id) {
  using enum BuiltinId;
  return id == NvvmWgmmaBf16 || id == NvvmWgmmaF16 || id == NvvmWgmmaE4m3 || id == NvvmWgmmaE5m2;
}

bool is_matrix_multiply(BuiltinId id) {
  using enum BuiltinId;
  return id == NvvmMmaBf16 || id == NvvmMmaF16 || id == AmdMfma32x32x8Bf16 ||
         id == AmdMfma16x16x16Bf16 || id == AmdMfma16x16x32Fp8;
}

int ldmatrix_count(BuiltinId id) {
  using enum BuiltinId;
  switch (id) {
  case NvvmLdmatrixX1:
  case NvvmLdmatrixX1Trans:
    return 1;
  case NvvmLdmatrixX2:
  case NvvmLdmatrixX2Trans:
    return 2;
  case NvvmLdmatrixX4:
  case NvvmLdmatrixX4Trans:
    return 4;
  default:
    return 0;
  }
}

bool is_ldmatrix(BuiltinId id) { return ldmatrix_count(id) != 0; }

bool is_transposed_ldmatrix(BuiltinId id) {
  using enum BuiltinId;
  return id == NvvmLdmatrixX1Trans || id == NvvmLdmatrixX2Trans || id == NvvmLdmatrixX4Trans;
}

int64_t transfer_bytes(BuiltinId id) {
  using enum BuiltinId;
  switch (id) {
  case NvvmCpAsync4:
  case AmdBufferLoadX1:
    return 4;
  case NvvmCpAsync8:
  case AmdBufferLoadX2:
    return 8;
  case NvvmCpAsync16:
  case AmdBufferLoadX4:
  case AmdDsReadB128:
    return 16;
  default:
    return 0;
  }
}

bool is_cp_async(BuiltinId id) {
  using enum BuiltinId;
  return id == NvvmCpAsync4 || id == NvvmCpAsync8 || id == NvvmCpAsync16;
}

bool is_warp_vote(BuiltinId id) {
  using enum BuiltinId;
  return id == Ballot || id == AnySync || id == AllSync;
}

bool is_atomic(BuiltinId id) {
  using enum BuiltinId;
  return id == AtomicAdd || id == AtomicMax || id == AtomicMin || id == AtomicExch ||
         id == AtomicCas;
}

bool is_register_load(BuiltinId id) {
  using enum BuiltinId;
  return id == AmdBufferLoadX1 || id == AmdBufferLoadX2 || id == AmdBufferLoadX4 ||
         id == AmdDsReadB128;
}

bool is_intrinsic(BuiltinId id) { return !entry(id).ns.empty(); }

bool is_checker_only(BuiltinId id) {
  using enum BuiltinId;
  return id == Tag || id == AssertTag || id == AssertTagEq || id == ResetTags ||
         id == AssertCovered || id == Assume;
}

} // namespace argus
