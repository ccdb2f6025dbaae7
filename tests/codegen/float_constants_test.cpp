// Float module constants and compile-time float expressions lower to one
// correctly rounded literal of the type they are used at (finding: a float
// module constant failed with E0802).
#include "argus/codegen/lower.h"
#include "codegen_test_support.h"

#include <gtest/gtest.h>

namespace argus::codegen {
namespace {

using test::device_part;

#define EXPECT_CONTAINS(haystack, needle)                                                          \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing: " << (needle) << "\nin:\n"    \
                                                        << (haystack)

// The correct twin of the checker's corpus: EPS, SCALE = LOG2E * rsqrt(D), HALF * EPS.
TEST(FloatConstants, CorpusKernelLowersWithFoldedLiterals) {
  const std::string path =
      std::string(ARGUS_SOURCE_DIR) + "/tests/checker/corpus/float_constants_ok.argus";
  const CheckedFile checked = test::check_file(path);
  for (GpuTarget target : {GpuTarget::Sm90, GpuTarget::Gfx942}) {
    const LowerResult r = lower(checked, target);
    ASSERT_TRUE(r.ok) << (r.diagnostics.empty() ? "" : r.diagnostics.front().message);
    const std::string device = device_part(r.source);
    // 1.4426950408889634 / 8 rounded to f32, and 1e-5 and 0.5 * 1e-5 rounded to f32.
    EXPECT_CONTAINS(device, "0.180336878f");
    EXPECT_CONTAINS(device, "9.99999975e-06f");
    EXPECT_CONTAINS(device, "4.99999987e-06f");
    EXPECT_EQ(device.find("SCALE"), std::string::npos) << device;
    EXPECT_EQ(device.find("EPS"), std::string::npos) << device;
  }
}

TEST(FloatConstants, RoundedOnceToTheTypeOfTheUse) {
  const LowerResult r = test::lower_text(R"(
LOG2E = 1.4426950408889634
D = 64
SCALE = LOG2E * rsqrt(D)
THIRD = 1 / 3


@kernel(grid=1, block=32)
def k(X: Tensor((32,), f64), Y: Tensor((32,), f64), B: Tensor((32,), bf16)):
    i = thread_id()
    Y[i] = X[i] * SCALE + THIRD
    B[i] = B[i] * SCALE
)",
                                         GpuTarget::Sm90);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "0.18033688011112042");
  EXPECT_CONTAINS(device, "0.33333333333333331");
  EXPECT_CONTAINS(device, "__float2bfloat16_rn(0.180336878f)");
}

} // namespace
} // namespace argus::codegen
