// The MI300X occupancy formula on hand-computed cases (docs/gfx942.md).
#include "argus/codegen/hip_compile.h"

#include <gtest/gtest.h>

namespace argus::codegen {
namespace {

HipKernelResources kernel(int total_vgprs, int sgprs, int64_t lds, int group) {
  HipKernelResources k;
  k.name = "k";
  k.total_vgprs = total_vgprs;
  k.vgprs = total_vgprs;
  k.sgprs = sgprs;
  k.lds_bytes = lds;
  k.max_flat_workgroup_size = group;
  k.wavefront_size = 64;
  compute_gfx942_occupancy(k);
  return k;
}

TEST(Gfx942Occupancy, FewRegistersGiveEightWaves) {
  const HipKernelResources k = kernel(23, 14, 0, 256);
  EXPECT_EQ(k.occupancy_vgpr_limit, 8); // align(23, 8) = 24: 512 / 24 = 21 -> 8
  EXPECT_EQ(k.occupancy_sgpr_limit, 8);
  EXPECT_EQ(k.occupancy_lds_limit, 8);
  EXPECT_EQ(k.occupancy_waves_per_simd, 8);
}

TEST(Gfx942Occupancy, VgprLimitUsesGranulesOfEight) {
  EXPECT_EQ(kernel(64, 20, 0, 256).occupancy_vgpr_limit, 8);  // 512 / 64
  EXPECT_EQ(kernel(65, 20, 0, 256).occupancy_vgpr_limit, 7);  // 72: 512 / 72 = 7
  EXPECT_EQ(kernel(128, 20, 0, 256).occupancy_vgpr_limit, 4); // 512 / 128
  EXPECT_EQ(kernel(129, 20, 0, 256).occupancy_vgpr_limit, 3); // 136: 3
  EXPECT_EQ(kernel(256, 20, 0, 256).occupancy_vgpr_limit, 2);
  EXPECT_EQ(kernel(257, 20, 0, 256).occupancy_vgpr_limit, 1); // 264: 1
  EXPECT_EQ(kernel(512, 20, 0, 256).occupancy_vgpr_limit, 1);
  EXPECT_EQ(kernel(0, 20, 0, 256).occupancy_vgpr_limit, 8);
}

TEST(Gfx942Occupancy, AgprsShareTheFileAfterAlignedArchVgprs) {
  HipKernelResources k;
  k.vgprs = 130; // aligned to 4: 132
  k.agprs = 128; // 132 + 128 = 260 -> 264: one wave
  k.sgprs = 20;
  k.max_flat_workgroup_size = 256;
  compute_gfx942_occupancy(k);
  EXPECT_EQ(k.occupancy_vgpr_limit, 1);
  k.vgprs = 124; // 124 + 128 = 252 -> 256: two waves
  compute_gfx942_occupancy(k);
  EXPECT_EQ(k.occupancy_vgpr_limit, 2);
}

TEST(Gfx942Occupancy, SgprLimit) {
  EXPECT_EQ(kernel(8, 100, 0, 256).occupancy_sgpr_limit, 8);
  EXPECT_EQ(kernel(8, 102, 0, 256).occupancy_sgpr_limit, 7);
  EXPECT_EQ(kernel(8, 102, 0, 256).occupancy_waves_per_simd, 7);
}

TEST(Gfx942Occupancy, LdsSharedByTheWorkgroupsOfACu) {
  // 256 threads = 4 waves per group, one per SIMD.
  EXPECT_EQ(kernel(8, 20, 65536, 256).occupancy_lds_limit, 1); // 1 group
  EXPECT_EQ(kernel(8, 20, 32768, 256).occupancy_lds_limit, 2); // 2 groups
  EXPECT_EQ(kernel(8, 20, 16384, 256).occupancy_lds_limit, 4); // 4 groups
  EXPECT_EQ(kernel(8, 20, 20000, 256).occupancy_lds_limit, 3); // 65536 / 20000 = 3
  EXPECT_EQ(kernel(8, 20, 8192, 256).occupancy_lds_limit, 8);  // 8 groups
  EXPECT_EQ(kernel(8, 20, 1024, 256).occupancy_lds_limit, 8);  // capped at 8 groups by waves
  // 1024 threads = 16 waves per group, four per SIMD.
  EXPECT_EQ(kernel(8, 20, 40000, 1024).occupancy_lds_limit, 4); // 1 group
  EXPECT_EQ(kernel(8, 20, 32768, 1024).occupancy_lds_limit, 8); // 2 groups
  // 64 threads = 1 wave per group: 32 KiB gives 2 groups, 2 waves on a CU,
  // at most one on each SIMD (LLVM rounds up).
  EXPECT_EQ(kernel(8, 20, 32768, 64).occupancy_lds_limit, 1);
  EXPECT_EQ(kernel(8, 20, 4096, 64).occupancy_lds_limit, 4); // 16 groups
  // More than the CU has: cannot launch.
  EXPECT_EQ(kernel(8, 20, 65537, 256).occupancy_lds_limit, 0);
  EXPECT_EQ(kernel(8, 20, 65537, 256).occupancy_waves_per_simd, 0);
}

TEST(Gfx942Occupancy, WorkgroupSlots) {
  // 128 threads = 2 waves: at most 16 groups with barriers -> 32 waves -> 8.
  EXPECT_EQ(kernel(8, 20, 0, 128).occupancy_workgroup_limit, 8);
  // 192 threads = 3 waves: min(32 / 3, 16) = 10 groups -> 30 waves -> ceil(30 / 4) = 8.
  EXPECT_EQ(kernel(8, 20, 0, 192).occupancy_workgroup_limit, 8);
  // 1 wave per group: 32 groups without barrier limit -> 8.
  EXPECT_EQ(kernel(8, 20, 0, 64).occupancy_workgroup_limit, 8);
  // 640 threads = 10 waves: 3 groups -> 30 waves -> 8.
  EXPECT_EQ(kernel(8, 20, 0, 640).occupancy_workgroup_limit, 8);
}

TEST(Gfx942Occupancy, MinimumOfTheLimits) {
  const HipKernelResources k = kernel(100, 40, 16384, 256);
  EXPECT_EQ(k.occupancy_vgpr_limit, 4); // 104: 512 / 104 = 4
  EXPECT_EQ(k.occupancy_lds_limit, 4);
  EXPECT_EQ(k.occupancy_waves_per_simd, 4);
  const HipKernelResources l = kernel(40, 40, 24576, 256); // 2 groups by LDS
  EXPECT_EQ(l.occupancy_vgpr_limit, 8);
  EXPECT_EQ(l.occupancy_lds_limit, 2);
  EXPECT_EQ(l.occupancy_waves_per_simd, 2);
}

} // namespace
} // namespace argus::codegen
