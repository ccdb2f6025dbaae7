// The generated code's fp8 conversions (codegen/lower/fp8_prelude.inc, in
// every file argus compiles) compiled here as host C++ and held to the
// runner's decoder (argus/runner/core.h), which checks kernels' outputs: the
// two must agree on every code of the four formats, or a kernel would be
// judged against values it never computed. The FNUZ formats are what MI300's
// MFMA fp8 instructions read.
#include "argus/runner/core.h"

#include <gtest/gtest.h>

#include <cmath>

#define __host__
#define __device__
#include "../../codegen/lower/fp8_prelude.inc"
#undef __host__
#undef __device__

namespace {

namespace ar = argus::runner;

template <typename Fp8> void expect_agrees(ar::DType dtype) {
  for (int code = 0; code < 256; ++code) {
    const double runner = ar::fp8_to_double(uint8_t(code), dtype);
    const float generated = Fp8::decode(static_cast<unsigned char>(code));
    if (std::isnan(runner)) {
      EXPECT_TRUE(std::isnan(generated)) << ar::dtype_info(dtype).name << " code " << code;
      continue;
    }
    EXPECT_EQ(static_cast<double>(generated), runner)
        << ar::dtype_info(dtype).name << " code " << code;
    // Encoding a representable value gives its code back (except the other zero).
    if (std::isfinite(runner) && !(runner == 0.0 && code != 0)) {
      EXPECT_EQ(Fp8(static_cast<float>(runner)).bits, ar::double_to_fp8(runner, dtype))
          << ar::dtype_info(dtype).name << " code " << code;
    }
  }
  // Between codes, saturation and rounding: the same choice as the runner, on
  // a geometric sweep of magnitudes (1e-6 .. 7e4) of both signs.
  for (double a = 1e-6; a <= 70000.0; a = a * 1.0173 + 1e-9) {
    for (const double x : {a, -a}) {
      const float f = static_cast<float>(x);
      EXPECT_EQ(Fp8(f).bits, ar::double_to_fp8(static_cast<double>(f), dtype))
          << ar::dtype_info(dtype).name << " x " << x;
    }
  }
  EXPECT_EQ(Fp8(std::nanf("")).bits, ar::double_to_fp8(std::nan(""), dtype));
}

TEST(Fp8Formats, GeneratedCodeAgreesWithTheRunnerOnOcpE4m3) {
  expect_agrees<argus_fp8e4m3>(ar::DType::FP8E4M3);
}
TEST(Fp8Formats, GeneratedCodeAgreesWithTheRunnerOnOcpE5m2) {
  expect_agrees<argus_fp8e5m2>(ar::DType::FP8E5M2);
}
TEST(Fp8Formats, GeneratedCodeAgreesWithTheRunnerOnFnuzE4m3) {
  expect_agrees<argus_fp8e4m3fnuz>(ar::DType::FP8E4M3FNUZ);
}
TEST(Fp8Formats, GeneratedCodeAgreesWithTheRunnerOnFnuzE5m2) {
  expect_agrees<argus_fp8e5m2fnuz>(ar::DType::FP8E5M2FNUZ);
}

// The bits MI300 reads for 1.0 and -1.0, and what becomes of OCP's 1.0.
TEST(Fp8Formats, FnuzIsNotOcp) {
  EXPECT_EQ(argus_fp8e4m3fnuz(1.0f).bits, 0x40);
  EXPECT_EQ(argus_fp8e4m3(1.0f).bits, 0x38);
  EXPECT_EQ(argus_fp8e4m3fnuz::decode(0x38), 0.5f);
  EXPECT_EQ(argus_fp8e4m3fnuz(-1.0f).bits, 0xC0);
  EXPECT_EQ(argus_fp8e4m3fnuz(-0.0f).bits, 0x00);
  EXPECT_EQ(argus_fp8e5m2fnuz(1.0f).bits, 0x40);
  EXPECT_EQ(argus_fp8e5m2(1.0f).bits, 0x3C);
  EXPECT_EQ(argus_fp8e4m3fnuz(1e6f).bits, 0x7F); // saturates at 240
}

} // namespace
