// Builtin identities: builtins.def, sema's signature table and the calls
// sema resolves agree, so the stages can dispatch on BuiltinId alone.
#include "../../dsl/sema/builtins.h"
#include "argus/dsl/builtin_id.h"
#include "argus/dsl/frontend.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace argus {
namespace {

TEST(BuiltinId, EveryTableRowHasItsOwnIdentity) {
  std::set<BuiltinId> seen;
  for (const sema::BuiltinSpec &spec : sema::all_builtins()) {
    EXPECT_NE(spec.id, BuiltinId::None) << spec.ns << "." << spec.name << " is not in builtins.def";
    EXPECT_TRUE(seen.insert(spec.id).second) << builtin_name(spec.id) << " has two rows";
    EXPECT_EQ(builtin_short_name(spec.id), spec.name);
    EXPECT_EQ(builtin_namespace(spec.id), spec.ns);
  }
  for (BuiltinId id : all_builtin_ids())
    EXPECT_TRUE(seen.count(id)) << builtin_name(id) << " is in builtins.def but has no table row";
}

TEST(BuiltinId, NamesRoundTrip) {
  for (BuiltinId id : all_builtin_ids())
    EXPECT_EQ(builtin_by_name(builtin_namespace(id), builtin_short_name(id)), id);
  EXPECT_EQ(builtin_name(BuiltinId::NvvmLdmatrixX4Trans), "nvvm.ldmatrix_x4_trans");
  EXPECT_FALSE(builtin_by_name("", "no_such_builtin"));
  EXPECT_FALSE(builtin_by_name("nvvm", "thread_id")); // the namespace is part of the name
}

TEST(BuiltinId, FamiliesAndSizes) {
  EXPECT_EQ(ldmatrix_count(BuiltinId::NvvmLdmatrixX2Trans), 2);
  EXPECT_TRUE(is_transposed_ldmatrix(BuiltinId::NvvmLdmatrixX2Trans));
  EXPECT_FALSE(is_transposed_ldmatrix(BuiltinId::NvvmLdmatrixX2));
  EXPECT_EQ(transfer_bytes(BuiltinId::NvvmCpAsync8), 8);
  EXPECT_EQ(transfer_bytes(BuiltinId::AmdDsReadB128), 16);
  EXPECT_TRUE(is_matrix_multiply(BuiltinId::AmdMfma16x16x32Fp8));
  EXPECT_TRUE(is_intrinsic(BuiltinId::AmdSetprio));
  EXPECT_FALSE(is_intrinsic(BuiltinId::Syncthreads));
  EXPECT_TRUE(is_checker_only(BuiltinId::Assume));
  EXPECT_FALSE(is_checker_only(BuiltinId::Syncthreads));
}

// Sema records what each call calls; a local function named like a builtin
// would be a Device call, a dtype a Cast, t.tile(...) a Tile.
TEST(BuiltinId, SemaResolvesEveryCall) {
  const std::string text = "@device\n"
                           "def twice(x: i32) -> i32:\n"
                           "    return 2 * x\n"
                           "@kernel(grid=(1,), block=64)\n"
                           "def k(A: Tensor((64,), f32)):\n"
                           "    t = thread_id()\n"
                           "    s = make_shared((64,), f32)\n"
                           "    s[t] = A[twice(t) // 2]\n"
                           "    syncthreads()\n"
                           "    v = A.tile((16,))\n"
                           "    A[t] = f32(min(t, 3)) + s[63 - t]\n";
  const CheckedFile front = analyze_source("k.argus", text);
  ASSERT_FALSE(front.has_errors());
  ASSERT_TRUE(front.sema);
  std::multiset<std::string> builtins;
  int device = 0, casts = 0, tiles = 0;
  for (const auto &[call, target] : front.sema->calls) {
    switch (target.kind) {
    case sema::CallKind::Builtin:
      builtins.insert(builtin_name(target.builtin));
      break;
    case sema::CallKind::Device:
      ++device;
      EXPECT_EQ(target.device->name, "twice");
      break;
    case sema::CallKind::Cast:
      ++casts;
      EXPECT_EQ(target.cast, sema::ScalarKind::F32);
      break;
    case sema::CallKind::Tile:
      ++tiles;
      break;
    case sema::CallKind::Unresolved:
      ADD_FAILURE() << "an unresolved call in a clean file";
    }
  }
  // The parameter's annotation Tensor((64,), f32) is a call too.
  EXPECT_EQ(builtins, (std::multiset<std::string>{"Tensor", "thread_id", "make_shared",
                                                  "syncthreads", "min"}));
  EXPECT_EQ(device, 1);
  EXPECT_EQ(casts, 1);
  EXPECT_EQ(tiles, 1);
}

} // namespace
} // namespace argus
