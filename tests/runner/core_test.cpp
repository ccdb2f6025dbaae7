// The runner's host logic, on the CPU: conversions, seeded inputs, poison,
// comparison and tolerances, strided views, statistics, sizes and options,
// peaks and the JSON it prints.
#include "argus/runner/core.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <vector>

namespace {

namespace ar = argus::runner;
using ar::DType;

// ------------------------------------------------------------ conversions

TEST(RunnerDTypes, NamesMatchTheLanguage) {
  for (const char *name : {"f16", "bf16", "f32", "f64", "fp8e4m3", "fp8e5m2", "i32", "i64", "u8"})
    EXPECT_NE(ar::find_dtype(name), nullptr) << name;
  EXPECT_EQ(ar::find_dtype("float"), nullptr);
  EXPECT_EQ(ar::find_dtype("bf16")->bytes, 2);
  EXPECT_EQ(ar::find_dtype("fp8e4m3")->bytes, 1);
  EXPECT_TRUE(ar::find_dtype("f16")->is_float);
  EXPECT_FALSE(ar::find_dtype("i32")->is_float);
}

TEST(RunnerConversions, Bf16RoundsToNearestEven) {
  EXPECT_EQ(ar::f32_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(ar::bf16_to_f32(0x3F80), 1.0f);
  EXPECT_EQ(ar::f32_to_bf16(-2.0f), 0xC000);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(ar::f32_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: up to even.
  EXPECT_EQ(ar::f32_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_TRUE(std::isnan(ar::bf16_to_f32(ar::f32_to_bf16(std::nanf("")))));
  for (float x : {0.5f, -0.75f, 0.015625f, 3.0f})
    EXPECT_EQ(ar::bf16_to_f32(ar::f32_to_bf16(x)), x);
}

TEST(RunnerConversions, F16KnownValues) {
  EXPECT_EQ(ar::f32_to_f16(1.0f), 0x3C00);
  EXPECT_EQ(ar::f32_to_f16(-2.0f), 0xC000);
  EXPECT_EQ(ar::f32_to_f16(65504.0f), 0x7BFF);
  EXPECT_EQ(ar::f32_to_f16(1e6f), 0x7C00);
  EXPECT_EQ(ar::f32_to_f16(std::ldexp(1.0f, -24)), 0x0001);        // smallest subnormal
  EXPECT_EQ(ar::f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3C00); // tie to even
  EXPECT_EQ(ar::f16_to_f32(0x3555), 0.333251953125f);
  EXPECT_EQ(ar::f16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(ar::f16_to_f32(0x7C00)));
  EXPECT_TRUE(std::isnan(ar::f16_to_f32(0xFFFF)));
  for (uint32_t h = 0; h < 0x7C00; h += 7) // every finite positive code round-trips
    EXPECT_EQ(ar::f32_to_f16(ar::f16_to_f32(uint16_t(h))), h);
}

TEST(RunnerConversions, Fp8KnownValues) {
  EXPECT_EQ(ar::fp8_to_double(0x38, DType::FP8E4M3), 1.0);
  EXPECT_EQ(ar::fp8_to_double(0x7E, DType::FP8E4M3), 448.0);
  EXPECT_TRUE(std::isnan(ar::fp8_to_double(0x7F, DType::FP8E4M3)));
  EXPECT_EQ(ar::fp8_to_double(0x01, DType::FP8E4M3), std::ldexp(1.0, -9));
  EXPECT_EQ(ar::fp8_to_double(0x3C, DType::FP8E5M2), 1.0);
  EXPECT_EQ(ar::fp8_to_double(0x7B, DType::FP8E5M2), 57344.0);
  EXPECT_TRUE(std::isinf(ar::fp8_to_double(0x7C, DType::FP8E5M2)));
  EXPECT_EQ(ar::double_to_fp8(1.0, DType::FP8E4M3), 0x38);
  EXPECT_EQ(ar::double_to_fp8(-1.0, DType::FP8E4M3), 0xB8);
  EXPECT_EQ(ar::double_to_fp8(1000.0, DType::FP8E4M3), 0x7E); // saturates
  for (DType d : {DType::FP8E4M3, DType::FP8E5M2})
    for (int code = 0; code < 0x7B; ++code)
      EXPECT_EQ(ar::double_to_fp8(ar::fp8_to_double(uint8_t(code), d), d), code);
}

// MI300's FNUZ formats (AMD's CDNA3 ISA, "FP8 formats"): one bias more than
// OCP, so the same bits are half the value (e4m3) and 1.0 moves; 0x80 is the
// only NaN (no -0), no infinity, and the top code is finite.
TEST(RunnerConversions, Fp8FnuzBitPatterns) {
  EXPECT_EQ(ar::fp8_to_double(0x40, DType::FP8E4M3FNUZ), 1.0);
  EXPECT_EQ(ar::fp8_to_double(0x38, DType::FP8E4M3FNUZ), 0.5); // OCP's 1.0
  EXPECT_EQ(ar::fp8_to_double(0x7F, DType::FP8E4M3FNUZ), 240.0);
  EXPECT_EQ(ar::fp8_to_double(0xFF, DType::FP8E4M3FNUZ), -240.0);
  EXPECT_EQ(ar::fp8_to_double(0x01, DType::FP8E4M3FNUZ), std::ldexp(1.0, -10));
  EXPECT_TRUE(std::isnan(ar::fp8_to_double(0x80, DType::FP8E4M3FNUZ)));
  EXPECT_EQ(ar::fp8_to_double(0x40, DType::FP8E5M2FNUZ), 1.0);
  EXPECT_EQ(ar::fp8_to_double(0x3C, DType::FP8E5M2FNUZ), 0.5); // OCP's 1.0
  EXPECT_EQ(ar::fp8_to_double(0x7F, DType::FP8E5M2FNUZ), 57344.0);
  EXPECT_EQ(ar::fp8_to_double(0x7C, DType::FP8E5M2FNUZ), 32768.0); // OCP's infinity
  EXPECT_EQ(ar::fp8_to_double(0x01, DType::FP8E5M2FNUZ), std::ldexp(1.0, -17));
  EXPECT_TRUE(std::isnan(ar::fp8_to_double(0x80, DType::FP8E5M2FNUZ)));
  EXPECT_EQ(ar::double_to_fp8(1.0, DType::FP8E4M3FNUZ), 0x40);
  EXPECT_EQ(ar::double_to_fp8(-1.0, DType::FP8E4M3FNUZ), 0xC0);
  EXPECT_EQ(ar::double_to_fp8(448.0, DType::FP8E4M3FNUZ), 0x7F); // saturates at 240
  EXPECT_EQ(ar::double_to_fp8(-0.0, DType::FP8E4M3FNUZ), 0x00);  // no -0
  EXPECT_EQ(ar::double_to_fp8(-1e-9, DType::FP8E5M2FNUZ), 0x00);
  EXPECT_EQ(ar::double_to_fp8(std::nan(""), DType::FP8E4M3FNUZ), 0x80);
  for (DType d : {DType::FP8E4M3FNUZ, DType::FP8E5M2FNUZ}) {
    for (int code = 0; code < 256; ++code) {
      if (code != 0x80) {
        EXPECT_EQ(ar::double_to_fp8(ar::fp8_to_double(uint8_t(code), d), d), code);
      }
    }
  }
}

TEST(RunnerConversions, StoreAndLoadEveryDType) {
  std::vector<unsigned char> buffer(64);
  for (const auto &info : ar::kDTypes) {
    ar::store_from_double(buffer.data(), info.dtype, 3, 1.0);
    EXPECT_EQ(ar::load_as_double(buffer.data(), info.dtype, 3), 1.0) << info.name;
    if (info.is_float) {
      ar::store_from_double(buffer.data(), info.dtype, 2, -0.5);
      EXPECT_EQ(ar::load_as_double(buffer.data(), info.dtype, 2), -0.5) << info.name;
    }
  }
}

// ------------------------------------------------------- inputs and poison

TEST(RunnerInputs, SeededValuesAreNeverZeroAndInRange) {
  for (DType d : {DType::F32, DType::BF16, DType::F16, DType::FP8E4M3, DType::FP8E5M2}) {
    std::vector<unsigned char> buffer(4096 * 4);
    ar::fill_random(buffer.data(), d, 4096, 42);
    std::set<double> distinct;
    for (size_t i = 0; i < 4096; ++i) {
      const double v = ar::load_as_double(buffer.data(), d, i);
      ASSERT_NE(v, 0.0) << ar::dtype_info(d).name;
      ASSERT_LE(std::fabs(v), 1.0);
      ASSERT_FALSE(ar::is_poison(buffer.data(), d, i));
      distinct.insert(v);
    }
    EXPECT_GE(distinct.size(), 40u) << ar::dtype_info(d).name;
  }
  std::vector<int32_t> ints(1000);
  ar::fill_random(ints.data(), DType::I32, ints.size(), 7);
  for (int32_t v : ints) {
    EXPECT_GE(v, 1);
    EXPECT_LE(v, 8);
  }
}

TEST(RunnerInputs, SameSeedSameValuesOtherSeedOtherValues) {
  std::vector<float> a(100), b(100), c(100);
  ar::fill_random(a.data(), DType::F32, 100, 1);
  ar::fill_random(b.data(), DType::F32, 100, 1);
  ar::fill_random(c.data(), DType::F32, 100, 2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(RunnerInputs, PoisonIsNaNInEveryFloatDType) {
  for (const auto &info : ar::kDTypes) {
    std::vector<unsigned char> buffer(16, ar::poison_byte(info.dtype));
    EXPECT_TRUE(ar::is_poison(buffer.data(), info.dtype, 0)) << info.name;
    if (info.is_float) {
      EXPECT_TRUE(std::isnan(ar::load_as_double(buffer.data(), info.dtype, 0))) << info.name;
    }
  }
}

// ------------------------------------------------------------ comparison

std::vector<int64_t> iota_offsets(size_t n) {
  std::vector<int64_t> o(n);
  for (size_t i = 0; i < n; ++i)
    o[i] = int64_t(i);
  return o;
}

TEST(RunnerCompare, ExactAndNearlyExactPass) {
  const std::vector<float> out = {1.0f, -2.0f, 3.0f, 0.5f};
  const std::vector<double> ref = {1.0, -2.0, 3.0, 0.5};
  const ar::Comparison c = ar::compare(out.data(), DType::F32, iota_offsets(4), ref, 1e-4);
  EXPECT_TRUE(c.correct) << c.why;
  EXPECT_EQ(c.error, 0.0);

  const std::vector<double> close = {1.0 + 1e-6, -2.0, 3.0, 0.5};
  const ar::Comparison d = ar::compare(out.data(), DType::F32, iota_offsets(4), close, 1e-4);
  EXPECT_TRUE(d.correct);
  EXPECT_GT(d.error, 0.0);
  EXPECT_LT(d.error, 1e-6);
}

TEST(RunnerCompare, RelativeFrobeniusError) {
  const std::vector<float> out = {3.0f, 4.0f};
  const std::vector<double> ref = {3.0, 0.0};
  // ‖(0, 4)‖ / ‖(3, 0)‖ = 4 / 3
  const ar::Comparison c = ar::compare(out.data(), DType::F32, iota_offsets(2), ref, 1e-4);
  EXPECT_FALSE(c.correct);
  EXPECT_NEAR(c.error, 4.0 / 3.0, 1e-12);
  EXPECT_NE(c.why.find("exceeds the tolerance"), std::string::npos) << c.why;
}

TEST(RunnerCompare, NaNAndInfFail) {
  const std::vector<float> out = {1.0f, std::numeric_limits<float>::infinity(), 2.0f};
  const std::vector<double> ref = {1.0, 1.0, 2.0};
  const ar::Comparison c = ar::compare(out.data(), DType::F32, iota_offsets(3), ref, 1.0);
  EXPECT_FALSE(c.correct);
  EXPECT_EQ(c.nonfinite, 1);
  EXPECT_NE(c.why.find("NaN or Inf"), std::string::npos) << c.why;

  const std::vector<float> nan_out = {1.0f, std::nanf(""), 2.0f};
  EXPECT_FALSE(ar::compare(nan_out.data(), DType::F32, iota_offsets(3), ref, 1.0).correct);
}

TEST(RunnerCompare, UnwrittenElementsFail) {
  std::vector<uint16_t> out(8, 0xFFFF); // bf16, poisoned
  std::vector<double> ref(8);
  for (size_t i = 0; i < 8; ++i) {
    ref[i] = 0.25 * double(i + 1);
    if (i != 5)
      out[i] = ar::f32_to_bf16(float(ref[i]));
  }
  const ar::Comparison c = ar::compare(out.data(), DType::BF16, iota_offsets(8), ref, 2e-2);
  EXPECT_FALSE(c.correct);
  EXPECT_EQ(c.unwritten, 1);
  EXPECT_NE(c.why.find("never written"), std::string::npos) << c.why;
}

TEST(RunnerCompare, IntegerPoisonCountsOnlyWhereTheReferenceDiffers) {
  const std::vector<int32_t> out = {-1, 5, -1};
  const std::vector<double> ref = {-1.0, 5.0, 7.0};
  const ar::Comparison c = ar::compare(out.data(), DType::I32, iota_offsets(3), ref, 0.0);
  EXPECT_FALSE(c.correct);
  EXPECT_EQ(c.unwritten, 1); // only the last: -1 is a real value in the first
}

TEST(RunnerCompare, ReferenceWithNaNIsReported) {
  const std::vector<float> out = {1.0f, 2.0f};
  const std::vector<double> ref = {1.0, std::nan("")};
  const ar::Comparison c = ar::compare(out.data(), DType::F32, iota_offsets(2), ref, 1e-4);
  EXPECT_FALSE(c.correct);
  EXPECT_NE(c.why.find("reference"), std::string::npos) << c.why;
}

TEST(RunnerCompare, SizeMismatchFails) {
  const std::vector<float> out = {1.0f, 2.0f};
  const ar::Comparison c = ar::compare(out.data(), DType::F32, iota_offsets(2), {1.0}, 1e-4);
  EXPECT_FALSE(c.correct);
}

TEST(RunnerCompare, StridedOutputIsComparedInLogicalOrder) {
  // A 2 x 3 tensor stored column-major (strides (1, 2)), with padding.
  const std::vector<int64_t> offsets = ar::logical_offsets({2, 3}, {1, 2});
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 2, 4, 1, 3, 5}));
  const std::vector<float> out = {1, 4, 2, 5, 3, 6};
  const std::vector<double> ref = {1, 2, 3, 4, 5, 6};
  EXPECT_TRUE(ar::compare(out.data(), DType::F32, offsets, ref, 1e-4).correct);
}

TEST(RunnerCompare, ToleranceByDType) {
  EXPECT_EQ(ar::tolerance_for(DType::F32), 1e-4);
  EXPECT_EQ(ar::tolerance_for(DType::BF16), 2e-2);
  EXPECT_EQ(ar::tolerance_for(DType::F16), 2e-2);
  EXPECT_EQ(ar::tolerance_for(DType::FP8E4M3), 5e-2);
  EXPECT_EQ(ar::tolerance_for(DType::I32), 0.0);
  // The loosest of the kernel's tensors: bf16 inputs with an f32 output.
  EXPECT_EQ(ar::tolerance_for(std::vector<DType>{DType::BF16, DType::BF16, DType::F32}), 2e-2);
  EXPECT_EQ(ar::tolerance_for(std::vector<DType>{DType::F32, DType::F32}), 1e-4);
}

TEST(RunnerCompare, Bf16GemmErrorIsWithinTolerance) {
  // A bf16 x bf16 dot product accumulated in f32, against the exact double
  // result: the error that a correct bf16 kernel makes passes.
  ar::Rng rng(3);
  const int M = 32, K = 512;
  std::vector<float> out(M);
  std::vector<double> ref(M);
  for (int m = 0; m < M; ++m) {
    float acc = 0;
    double exact = 0;
    for (int k = 0; k < K; ++k) {
      const float a =
          ar::bf16_to_f32(ar::f32_to_bf16(float(ar::random_input_value(rng, DType::BF16))));
      const float b =
          ar::bf16_to_f32(ar::f32_to_bf16(float(ar::random_input_value(rng, DType::BF16))));
      acc += a * b;
      exact += double(a) * double(b);
    }
    out[size_t(m)] = acc;
    ref[size_t(m)] = exact;
  }
  const ar::Comparison c = ar::compare(out.data(), DType::F32, iota_offsets(M), ref, 2e-2);
  EXPECT_TRUE(c.correct) << c.why;
  EXPECT_LT(c.error, 1e-5);
}

// ----------------------------------------------------------- views, stats

TEST(RunnerViews, SpanAndElements) {
  EXPECT_EQ(ar::span_elements({4, 8}, {8, 1}), 32);
  EXPECT_EQ(ar::span_elements({4, 8}, {10, 1}), 38); // padded rows
  EXPECT_EQ(ar::span_elements({4, 0}, {8, 1}), 0);
  EXPECT_EQ(ar::span_elements({-4, 8}, {8, 1}), 0);
  EXPECT_EQ(ar::span_elements({}, {}), 1);
  EXPECT_EQ(ar::logical_elements({4, 8}), 32);
  EXPECT_EQ(ar::logical_elements({4, -1}), 0);
}

TEST(RunnerStats, MedianAndMin) {
  const ar::Timing odd = ar::summarize({3.0, 1.0, 2.0});
  EXPECT_EQ(odd.median_ms, 2.0);
  EXPECT_EQ(odd.min_ms, 1.0);
  EXPECT_EQ(odd.runs, 3);
  const ar::Timing even = ar::summarize({4.0, 1.0, 2.0, 3.0});
  EXPECT_EQ(even.median_ms, 2.5);
  EXPECT_EQ(ar::summarize({}).runs, 0);
}

TEST(RunnerStats, RotationSetsWhenTheWorkingSetFitsInL2) {
  const uint64_t l2 = 60ull << 20, budget = 8ull << 30;
  EXPECT_EQ(ar::rotation_sets(1ull << 30, l2, budget), 1); // 1 GiB: memory-resident
  EXPECT_EQ(ar::rotation_sets(180ull << 20, l2, budget), 1);
  EXPECT_EQ(ar::rotation_sets(60ull << 20, l2, budget), 3);
  EXPECT_EQ(ar::rotation_sets(1ull << 20, l2, budget), 16);      // capped
  EXPECT_EQ(ar::rotation_sets(40ull << 20, l2, 80ull << 20), 2); // memory budget
  EXPECT_EQ(ar::rotation_sets(0, l2, budget), 1);
}

TEST(RunnerPeaks, TableByDeviceName) {
  const ar::DevicePeak *h200 = ar::find_peak("NVIDIA H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(ar::peak_tflops(*h200, DType::BF16), 989.0);
  EXPECT_EQ(h200->bandwidth_gbps, 4800.0);
  EXPECT_EQ(ar::peak_tflops(*h200, DType::FP8E4M3), 1979.0);
  EXPECT_EQ(ar::peak_tflops(*h200, DType::F32), 67.0);
  EXPECT_EQ(ar::find_peak("NVIDIA H100 PCIe")->bandwidth_gbps, 2000.0);
  EXPECT_EQ(ar::find_peak("NVIDIA H100 80GB HBM3")->bandwidth_gbps, 3350.0);
  EXPECT_EQ(ar::find_peak("Some Future GPU"), nullptr);
}

// ---------------------------------------------------------- sizes, options

TEST(RunnerSizes, ParsesListsAndReplaces) {
  std::vector<std::pair<std::string, double>> sizes;
  EXPECT_EQ(ar::parse_sizes("M=4096,N=2048", sizes), "");
  EXPECT_EQ(ar::parse_sizes("K=512", sizes), "");
  EXPECT_EQ(ar::parse_sizes("M=100,alpha=0.5", sizes), "");
  ASSERT_EQ(sizes.size(), 4u);
  EXPECT_EQ(sizes[0], (std::pair<std::string, double>{"M", 100}));
  EXPECT_EQ(sizes[3], (std::pair<std::string, double>{"alpha", 0.5}));
  for (const char *bad : {"M", "=3", "M=", "M=abc", "M=1,", "M-1=2", "M=inf"})
    EXPECT_NE(ar::parse_sizes(bad, sizes), "") << bad;
}

ar::Options parse_ok(std::vector<std::string> args) {
  ar::Options o;
  const std::string err = ar::parse_options(args, o);
  EXPECT_EQ(err, "");
  return o;
}

std::string parse_error(std::vector<std::string> args) {
  ar::Options o;
  return ar::parse_options(args, o);
}

TEST(RunnerOptions, Defaults) {
  const ar::Options o = parse_ok({"art"});
  EXPECT_EQ(o.artifact_dir, "art");
  EXPECT_FALSE(o.bench);
  EXPECT_GE(o.iters, 50);
  EXPECT_GE(o.warmup, 5);
  EXPECT_EQ(o.seed, 1u);
  EXPECT_FALSE(o.expect_refusal);
}

TEST(RunnerOptions, EveryOption) {
  const ar::Options o =
      parse_ok({"--kernel", "gemm", "art", "--size", "M=64,N=64", "--size=K=32", "--seed=9",
                "--iters", "60", "--warmup", "5", "--timeout-s", "2.5", "--expect-refusal",
                "--no-timing", "--reference", "matmul"});
  EXPECT_EQ(o.kernel, "gemm");
  EXPECT_EQ(o.sizes.size(), 3u);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.iters, 60);
  EXPECT_EQ(o.warmup, 5);
  EXPECT_EQ(o.timeout_s, 2.5);
  EXPECT_TRUE(o.expect_refusal);
  EXPECT_TRUE(o.no_timing);
  EXPECT_EQ(o.reference, "matmul");
  EXPECT_EQ(parse_ok({"art", "--bench", "1"}).bench, 1);
  EXPECT_TRUE(parse_ok({"--help"}).help);
}

TEST(RunnerOptions, UsageErrors) {
  EXPECT_NE(parse_error({}), "");
  EXPECT_NE(parse_error({"a", "b"}), "");
  EXPECT_NE(parse_error({"a", "--bogus"}), "");
  EXPECT_NE(parse_error({"a", "--iters"}), "");
  EXPECT_NE(parse_error({"a", "--iters", "0"}), "");
  EXPECT_NE(parse_error({"a", "--iters", "ten"}), "");
  EXPECT_NE(parse_error({"a", "--timeout-s", "-1"}), "");
  EXPECT_NE(parse_error({"a", "--bench", "-1"}), "");
  EXPECT_NE(parse_error({"a", "--bench", "0", "--kernel", "k"}), "");
  EXPECT_NE(parse_error({"a", "--size", "M=4"}), "") << "sizes need a kernel or a bench";
  EXPECT_NE(parse_error({"a", "--kernel", "k", "--size", "M"}), "");
  EXPECT_NE(parse_error({"a", "--expect-refusal=yes"}), "");
}

// -------------------------------------------------------------------- JSON

TEST(RunnerJson, StringsAreEscaped) {
  EXPECT_EQ(ar::json_string("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
  const auto j = nlohmann::json::parse(ar::json_string("tab\there \xc3\xa9"));
  EXPECT_EQ(j.get<std::string>(), "tab\there \xc3\xa9");
}

TEST(RunnerJson, NumbersAndNonFinite) {
  EXPECT_EQ(ar::json_number(4096), "4096");
  EXPECT_EQ(ar::json_number(137438953472.0), "137438953472");
  EXPECT_EQ(ar::json_number(std::nan("")), "null");
  EXPECT_EQ(ar::json_number(INFINITY), "null");
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(ar::json_number(1.25e-6)).get<double>(), 1.25e-6);
}

TEST(RunnerJson, ResultHasEveryField) {
  ar::Result r;
  r.kernel = "gemm_tiled";
  r.sizes = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
  r.reference = "matmul";
  r.device = "NVIDIA H200";
  r.correct = true;
  r.error = 1.5e-6;
  r.tolerance = 2e-2;
  r.timing = ar::Timing{2.0, 1.9, 100};
  r.flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
  r.peak_tflops = 989.0;
  r.peak_gbps = 4800.0;
  const auto j = nlohmann::json::parse(ar::to_json(r));
  for (const char *key : {"kernel", "sizes", "correct", "error", "tolerance", "median_ms", "min_ms",
                          "tflops", "peak_fraction", "reference", "device"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["sizes"]["K"], 4096);
  EXPECT_EQ(j["correct"], true);
  EXPECT_NEAR(j["tflops"].get<double>(), 68.72, 0.01);
  EXPECT_NEAR(j["peak_fraction"].get<double>(), 68.72 / 989.0, 1e-4);
  EXPECT_FALSE(j.contains("gbps"));
}

TEST(RunnerJson, BandwidthResultAndUnknownPeak) {
  ar::Result r;
  r.kernel = "softmax";
  r.correct = false;
  r.why = "Y: 3 of 10 output elements are NaN or Inf";
  r.timing = ar::Timing{1.0, 1.0, 50};
  r.bytes = 4e9;
  const auto j = nlohmann::json::parse(ar::to_json(r));
  EXPECT_DOUBLE_EQ(j["gbps"].get<double>(), 4000.0);
  EXPECT_TRUE(j["peak_fraction"].is_null());
  EXPECT_TRUE(j["reference"].is_null());
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_EQ(j["why"], r.why);
}

TEST(RunnerJson, RefusalAndError) {
  ar::Result r;
  r.kernel = "gemm_tiled";
  r.sizes = {{"M", 100}};
  r.refused = true;
  r.refusal = "assume(M % 64 == 0) fails with M=100";
  const auto j = nlohmann::json::parse(ar::to_json(r));
  EXPECT_EQ(j["refused"], true);
  EXPECT_EQ(j["refusal"], r.refusal);
  EXPECT_FALSE(j.contains("correct"));

  const auto e = nlohmann::json::parse(
      ar::error_json("kernel", "an illegal memory access", "gemm", {ar::to_json(r)}));
  EXPECT_EQ(e["stage"], "kernel");
  EXPECT_EQ(e["error"], "an illegal memory access");
  EXPECT_EQ(e["kernel"], "gemm");
  EXPECT_EQ(e["results"].size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(ar::error_json("usage", "x")).size(), 2u);
}

// The grouped_matmul reference's offsets: a monotone partition of the rows,
// uneven, with empty experts (not all) from four experts on; seeded.
TEST(RunnerGroupedOffsets, PartitionTheRowsUnevenlyWithEmptyExperts) {
  for (int64_t experts : {1, 3, 8, 64})
    for (int64_t rows : {0, 1, 7, 8192})
      for (uint64_t seed : {1ull, 2ull, 99ull}) {
        const auto o = ar::grouped_offsets(experts, rows, seed);
        ASSERT_EQ(o.size(), size_t(experts + 1));
        EXPECT_EQ(o.front(), 0);
        EXPECT_EQ(o.back(), rows);
        int64_t empty = 0;
        for (int64_t e = 0; e < experts; ++e) {
          EXPECT_LE(o[size_t(e)], o[size_t(e + 1)]);
          empty += o[size_t(e)] == o[size_t(e + 1)];
        }
        if (experts >= 4 && rows >= 8192) {
          EXPECT_GE(empty, 1) << experts << " " << seed;
          EXPECT_LT(empty, experts);
        }
      }
  EXPECT_EQ(ar::grouped_offsets(8, 8192, 5), ar::grouped_offsets(8, 8192, 5));
  EXPECT_NE(ar::grouped_offsets(8, 8192, 5), ar::grouped_offsets(8, 8192, 6));
}

} // namespace
