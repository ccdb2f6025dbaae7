// The runner's host-side logic that needs no GPU: dtypes and conversions,
// seeded input values, poison, comparison (relative Frobenius error, NaN/Inf
// and unwritten-element detection, tolerance by dtype), sizes, command-line
// options, statistics, device peaks and the JSON result.
//
// Header-only C++17 with the standard library alone: argus-runner (nvcc)
// includes it, and tests/runner/ compiles it with g++ to test it on the CPU.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace argus::runner {

// ---------------------------------------------------------------- dtypes

enum class DType {
  F64,
  F32,
  F16,
  BF16,
  FP8E4M3,
  FP8E5M2,
  FP8E4M3FNUZ, // MI300 (gfx942): bias 8 / 16, no infinity, no -0, 0x80 NaN
  FP8E5M2FNUZ,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  Bool
};

struct DTypeInfo {
  DType dtype;
  const char *name;
  int bytes;
  bool is_float;
};

inline constexpr DTypeInfo kDTypes[] = {
    {DType::F64, "f64", 8, true},
    {DType::F32, "f32", 4, true},
    {DType::F16, "f16", 2, true},
    {DType::BF16, "bf16", 2, true},
    {DType::FP8E4M3, "fp8e4m3", 1, true},
    {DType::FP8E5M2, "fp8e5m2", 1, true},
    {DType::FP8E4M3FNUZ, "fp8e4m3fnuz", 1, true},
    {DType::FP8E5M2FNUZ, "fp8e5m2fnuz", 1, true},
    {DType::I8, "i8", 1, false},
    {DType::I16, "i16", 2, false},
    {DType::I32, "i32", 4, false},
    {DType::I64, "i64", 8, false},
    {DType::U8, "u8", 1, false},
    {DType::U16, "u16", 2, false},
    {DType::U32, "u32", 4, false},
    {DType::U64, "u64", 8, false},
    {DType::Bool, "bool", 1, false},
};

inline const DTypeInfo *find_dtype(std::string_view name) {
  for (const auto &d : kDTypes)
    if (name == d.name)
      return &d;
  return nullptr;
}

inline const DTypeInfo &dtype_info(DType dtype) {
  for (const auto &d : kDTypes)
    if (d.dtype == dtype)
      return d;
  return kDTypes[0]; // unreachable: every DType is in the table
}

// Relative Frobenius tolerance for results computed from (or stored in) this
// dtype: f64 1e-10, f32 1e-4, f16/bf16 2e-2, fp8 5e-2, integers exact.
inline double tolerance_for(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return 1e-10;
  case DType::F32:
    return 1e-4;
  case DType::F16:
  case DType::BF16:
    return 2e-2;
  case DType::FP8E4M3:
  case DType::FP8E5M2:
  case DType::FP8E4M3FNUZ:
  case DType::FP8E5M2FNUZ:
    return 5e-2;
  default:
    return 0.0;
  }
}

// The tolerance of a comparison: the loosest among the dtypes of the kernel's
// float tensors (inputs and outputs: a bf16 output rounds like a bf16 input).
inline double tolerance_for(const std::vector<DType> &tensor_dtypes) {
  double tol = 0.0;
  for (DType d : tensor_dtypes)
    tol = std::max(tol, tolerance_for(d));
  return tol;
}

// ------------------------------------------------------------ conversions

inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float f32_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float bf16_to_f32(uint16_t h) { return f32_from_bits(uint32_t(h) << 16); }

// Round to nearest even; NaN stays NaN.
inline uint16_t f32_to_bf16(float f) {
  const uint32_t u = f32_bits(f);
  if (std::isnan(f))
    return uint16_t((u >> 16) | 0x40);
  const uint32_t rounding = 0x7FFF + ((u >> 16) & 1);
  return uint16_t((u + rounding) >> 16);
}

inline float f16_to_f32(uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exp = (h >> 10) & 0x1F;
  const int mant = h & 0x3FF;
  float v;
  if (exp == 0)
    v = std::ldexp(float(mant), -24);
  else if (exp == 31)
    v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    v = std::ldexp(float(mant | 0x400), exp - 25);
  return sign ? -v : v;
}

// Round to nearest even through the exact value (rounds once).
inline uint16_t f32_to_f16(float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (std::isnan(f))
    return 0x7E00;
  double a = std::fabs(double(f));
  if (a >= 65520.0) // rounds to infinity
    return uint16_t(sign | 0x7C00);
  if (a < std::ldexp(1.0, -14)) { // subnormal: units of 2^-24
    const double q = std::nearbyint(a * std::ldexp(1.0, 24));
    return uint16_t(sign | uint16_t(q));
  }
  int e;
  std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  const int exp = e - 1;
  double m = std::nearbyint(std::ldexp(a, 10 - exp)); // in [1024, 2048]
  int biased = exp + 15;
  if (m >= 2048.0) {
    m /= 2;
    ++biased;
  }
  if (biased >= 31)
    return uint16_t(sign | 0x7C00);
  return uint16_t(sign | (biased << 10) | (int(m) & 0x3FF));
}

// fp8 (OCP): e4m3 (bias 7, no infinity, 0x7F/0xFF NaN, max 448) and e5m2
// (bias 15, IEEE-like, max 57344). FNUZ (MI300): e4m3fnuz (bias 8, max 240)
// and e5m2fnuz (bias 16, max 57344), no infinity, no -0: 0x80 is the NaN.
inline bool is_fnuz(DType dtype) {
  return dtype == DType::FP8E4M3FNUZ || dtype == DType::FP8E5M2FNUZ;
}
inline double fp8_to_double(uint8_t b, DType dtype) {
  const int sign = b >> 7;
  double v;
  if (is_fnuz(dtype)) {
    if (b == 0x80)
      return std::numeric_limits<double>::quiet_NaN();
    const bool e4 = dtype == DType::FP8E4M3FNUZ;
    const int mbits = e4 ? 3 : 2, bias = e4 ? 8 : 16;
    const int exp = (b & 0x7F) >> mbits, mant = b & ((1 << mbits) - 1);
    v = exp == 0 ? std::ldexp(double(mant), 1 - bias - mbits)
                 : std::ldexp(double((1 << mbits) + mant), exp - bias - mbits);
  } else if (dtype == DType::FP8E4M3) {
    const int exp = (b >> 3) & 0xF, mant = b & 7;
    if (exp == 15 && mant == 7)
      return std::numeric_limits<double>::quiet_NaN();
    v = exp == 0 ? std::ldexp(double(mant), -9) : std::ldexp(double(8 + mant), exp - 10);
  } else {
    const int exp = (b >> 2) & 0x1F, mant = b & 3;
    if (exp == 31)
      return mant ? std::numeric_limits<double>::quiet_NaN()
                  : (sign ? -1 : 1) * std::numeric_limits<double>::infinity();
    v = exp == 0 ? std::ldexp(double(mant), -16) : std::ldexp(double(4 + mant), exp - 17);
  }
  return sign ? -v : v;
}

// Nearest fp8 value (ties to even code); saturates to the largest finite value.
inline uint8_t double_to_fp8(double x, DType dtype) {
  if (std::isnan(x))
    return is_fnuz(dtype) ? 0x80 : 0x7F;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const double a = std::fabs(x);
  const int max_code = is_fnuz(dtype) ? 0x7F : dtype == DType::FP8E4M3 ? 0x7E : 0x7B;
  // Non-negative codes 0..max_code are increasing in value: binary search.
  int lo = 0, hi = max_code;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (fp8_to_double(uint8_t(mid), dtype) <= a)
      lo = mid;
    else
      hi = mid - 1;
  }
  int code = lo;
  if (code < max_code) {
    const double below = fp8_to_double(uint8_t(code), dtype);
    const double above = fp8_to_double(uint8_t(code + 1), dtype);
    if (a - below > above - a || (a - below == above - a && (code & 1)))
      ++code;
  }
  if (code == 0 && is_fnuz(dtype))
    return 0; // no -0: 0x80 is the NaN
  return uint8_t(sign | code);
}

// Reads element `index` of a host array of `dtype` as a double.
inline double load_as_double(const void *data, DType dtype, size_t index) {
  const auto *p = static_cast<const unsigned char *>(data) + index * dtype_info(dtype).bytes;
  switch (dtype) {
  case DType::F64: {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case DType::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::F16:
  case DType::BF16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return dtype == DType::F16 ? f16_to_f32(v) : bf16_to_f32(v);
  }
  case DType::FP8E4M3:
  case DType::FP8E5M2:
  case DType::FP8E4M3FNUZ:
  case DType::FP8E5M2FNUZ:
    return fp8_to_double(*p, dtype);
  case DType::I8:
    return double(int8_t(*p));
  case DType::U8:
  case DType::Bool:
    return double(*p);
  case DType::I16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case DType::U16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::U32: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  case DType::U64: {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  }
  return 0.0;
}

// Writes `value` as element `index` of a host array of `dtype` (rounded to
// nearest even for floats, truncated toward zero for integers).
inline void store_from_double(void *data, DType dtype, size_t index, double value) {
  auto *p = static_cast<unsigned char *>(data) + index * dtype_info(dtype).bytes;
  auto put = [p](auto v) { std::memcpy(p, &v, sizeof v); };
  switch (dtype) {
  case DType::F64:
    return put(value);
  case DType::F32:
    return put(float(value));
  case DType::F16:
    return put(f32_to_f16(float(value)));
  case DType::BF16:
    return put(f32_to_bf16(float(value)));
  case DType::FP8E4M3:
  case DType::FP8E5M2:
  case DType::FP8E4M3FNUZ:
  case DType::FP8E5M2FNUZ:
    return put(double_to_fp8(value, dtype));
  case DType::I8:
    return put(int8_t(value));
  case DType::U8:
    return put(uint8_t(value));
  case DType::Bool:
    return put(uint8_t(value != 0));
  case DType::I16:
    return put(int16_t(value));
  case DType::U16:
    return put(uint16_t(value));
  case DType::I32:
    return put(int32_t(value));
  case DType::U32:
    return put(uint32_t(value));
  case DType::I64:
    return put(int64_t(value));
  case DType::U64:
    return put(uint64_t(value));
  }
}

// ------------------------------------------------------- inputs and poison

// splitmix64: a small, well-mixed, seedable generator.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform01() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
};

// A seeded input value that is never zero: floats uniform in [-1, 1] with
// |x| >= 1/64 (so it stays non-zero in every dtype, fp8 included); integers
// uniform in [1, 8] (small and positive: safe as counts, never zero).
inline double random_input_value(Rng &rng, DType dtype) {
  if (!dtype_info(dtype).is_float)
    return dtype == DType::Bool ? 1.0 : double(1 + rng.next() % 8);
  for (;;) {
    const double x = 2.0 * rng.uniform01() - 1.0;
    if (std::fabs(x) >= 1.0 / 64)
      return x;
  }
}

// Fills `count` elements of a host buffer of `dtype` with seeded values.
inline void fill_random(void *data, DType dtype, size_t count, uint64_t seed) {
  Rng rng(seed);
  for (size_t i = 0; i < count; ++i)
    store_from_double(data, dtype, i, random_input_value(rng, dtype));
}

// Expert offsets for the builtin "grouped_matmul" reference: offsets[0] = 0 <=
// offsets[1] <= ... <= offsets[experts] = rows, experts + 1 values. The groups
// are uneven (weights 1..4), and with four experts or more about a quarter of
// them are empty (at least one, never all): the cases grouped kernels get
// wrong (an empty expert, a partial last tile).
inline std::vector<int64_t> grouped_offsets(int64_t experts, int64_t rows, uint64_t seed) {
  std::vector<int64_t> offsets(size_t(std::max<int64_t>(experts, 0) + 1), 0);
  if (experts <= 0)
    return offsets;
  Rng rng(seed);
  std::vector<int64_t> weight(static_cast<size_t>(experts));
  for (int64_t &w : weight)
    w = 1 + int64_t(rng.next() % 4);
  if (experts >= 4) {
    const int64_t empty = std::max<int64_t>(1, experts / 4);
    for (int64_t k = 0; k < empty; ++k)
      weight[size_t(rng.next() % uint64_t(experts))] = 0;
  }
  int64_t total = 0;
  for (int64_t w : weight)
    total += w;
  if (total == 0) { // every draw emptied: one expert takes all
    weight[0] = 1;
    total = 1;
  }
  int64_t given = 0, last = 0;
  for (int64_t e = 0; e < experts; ++e) {
    const int64_t count = rows * weight[size_t(e)] / total;
    given += count;
    offsets[size_t(e + 1)] = given;
    if (weight[size_t(e)] > 0)
      last = e;
  }
  // The rounding remainder goes to the last non-empty expert.
  for (int64_t e = last + 1; e <= experts; ++e)
    offsets[size_t(e)] += rows - given;
  return offsets;
}

// Output buffers are filled with poison bytes: 0xFF, a NaN in every float
// dtype (f32 0xFFFFFFFF, bf16/f16 0xFFFF, OCP fp8 0xFF) and -1 / the maximum
// for integers; 0x80 for the FNUZ fp8 formats, whose only NaN it is (their
// 0xFF is a finite -240 / -57344).
inline constexpr unsigned char kPoisonByte = 0xFF;
inline unsigned char poison_byte(DType dtype) { return is_fnuz(dtype) ? 0x80 : kPoisonByte; }

inline bool is_poison(const void *data, DType dtype, size_t index) {
  const int n = dtype_info(dtype).bytes;
  const auto *p = static_cast<const unsigned char *>(data) + index * n;
  for (int i = 0; i < n; ++i)
    if (p[i] != poison_byte(dtype))
      return false;
  return true;
}

// ----------------------------------------------------------- strided views

// Number of elements a tensor with these dims and strides spans in memory
// (1 + the largest offset), or 0 when a dimension is zero or negative or a
// stride is negative.
inline int64_t span_elements(const std::vector<int64_t> &dims,
                             const std::vector<int64_t> &strides) {
  int64_t last = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] <= 0 || strides[i] < 0)
      return 0;
    last += (dims[i] - 1) * strides[i];
  }
  return last + 1;
}

inline int64_t logical_elements(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= std::max<int64_t>(d, 0);
  return n;
}

// Memory offsets (in elements) of a tensor's logical elements in row-major
// order of its dimensions.
inline std::vector<int64_t> logical_offsets(const std::vector<int64_t> &dims,
                                            const std::vector<int64_t> &strides) {
  const int64_t n = logical_elements(dims);
  std::vector<int64_t> out;
  out.reserve(size_t(n));
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t off = 0;
    for (size_t i = 0; i < dims.size(); ++i)
      off += idx[i] * strides[i];
    out.push_back(off);
    for (size_t i = dims.size(); i-- > 0;) {
      if (++idx[i] < dims[i])
        break;
      idx[i] = 0;
    }
  }
  return out;
}

// -------------------------------------------------------------- comparison

struct Comparison {
  int64_t elements = 0;
  int64_t nonfinite = 0; // NaN or Inf in the output (poison included for floats)
  int64_t unwritten = 0; // still holding the poison bytes where the reference differs
  int64_t ref_nonfinite = 0;
  double error = 0.0; // ‖out − ref‖ / ‖ref‖ over finite pairs (absolute if ‖ref‖ = 0)
  double max_abs_diff = 0.0;
  double tolerance = 0.0;
  bool correct = false;
  std::string why; // empty when correct
};

// Compares an output (raw host bytes of `dtype`, element offsets `offsets`)
// with reference values (doubles in the same logical order).
inline Comparison compare(const void *out, DType dtype, const std::vector<int64_t> &offsets,
                          const std::vector<double> &ref, double tolerance) {
  Comparison c;
  c.tolerance = tolerance;
  c.elements = int64_t(offsets.size());
  if (ref.size() != offsets.size()) {
    c.why = "the reference has " + std::to_string(ref.size()) + " elements, the output " +
            std::to_string(offsets.size());
    c.error = std::numeric_limits<double>::quiet_NaN();
    return c;
  }
  double diff2 = 0.0, ref2 = 0.0;
  for (size_t i = 0; i < offsets.size(); ++i) {
    const size_t at = size_t(offsets[i]);
    const double r = ref[i];
    if (!std::isfinite(r)) {
      ++c.ref_nonfinite;
      continue;
    }
    const bool poisoned = is_poison(out, dtype, at);
    const double o = load_as_double(out, dtype, at);
    if (poisoned && (dtype_info(dtype).is_float || o != r)) {
      ++c.unwritten;
      continue;
    }
    if (!std::isfinite(o)) {
      ++c.nonfinite;
      continue;
    }
    const double d = o - r;
    diff2 += d * d;
    ref2 += r * r;
    c.max_abs_diff = std::max(c.max_abs_diff, std::fabs(d));
  }
  c.error = ref2 > 0 ? std::sqrt(diff2) / std::sqrt(ref2) : std::sqrt(diff2);
  char buf[160];
  if (c.ref_nonfinite) {
    std::snprintf(buf, sizeof buf, "the reference has %lld NaN/Inf elements",
                  (long long)c.ref_nonfinite);
    c.why = buf;
  } else if (c.unwritten) {
    std::snprintf(buf, sizeof buf, "%lld of %lld output elements were never written",
                  (long long)c.unwritten, (long long)c.elements);
    c.why = buf;
  } else if (c.nonfinite) {
    std::snprintf(buf, sizeof buf, "%lld of %lld output elements are NaN or Inf",
                  (long long)c.nonfinite, (long long)c.elements);
    c.why = buf;
  } else if (!(c.error <= tolerance)) {
    std::snprintf(buf, sizeof buf, "relative error %.3g exceeds the tolerance %.3g", c.error,
                  tolerance);
    c.why = buf;
  }
  c.correct = c.why.empty();
  return c;
}

// --------------------------------------------------------------- statistics

struct Timing {
  double median_ms = 0.0;
  double min_ms = 0.0;
  int runs = 0;
};

inline Timing summarize(std::vector<double> ms) {
  Timing t;
  t.runs = int(ms.size());
  if (ms.empty())
    return t;
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  t.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  t.min_ms = ms.front();
  return t;
}

// How many input sets to rotate among while timing: enough that their total
// exceeds 3x the L2 (so each run reads from device memory, not a warm cache),
// at most 16 and within `memory_budget` bytes; 1 when one set is already that big.
inline int rotation_sets(uint64_t working_set_bytes, uint64_t l2_bytes, uint64_t memory_budget) {
  if (working_set_bytes == 0)
    return 1;
  if (working_set_bytes >= 3 * l2_bytes)
    return 1;
  uint64_t sets = (3 * l2_bytes + working_set_bytes - 1) / working_set_bytes;
  sets = std::min<uint64_t>(sets, 16);
  if (working_set_bytes * sets > memory_budget)
    sets = std::max<uint64_t>(1, memory_budget / working_set_bytes);
  return int(sets);
}

// ------------------------------------------------------------------- peaks

struct DevicePeak {
  const char *match;  // a substring of the device name
  double bf16_tflops; // dense tensor-core bf16/f16
  double fp8_tflops;  // dense fp8
  double f32_tflops;  // plain (non-tensor) fp32
  double f64_tflops;
  double bandwidth_gbps; // device memory, GB/s
};

// Datasheet figures (dense, boost clock). Order matters: first match wins.
inline constexpr DevicePeak kDevicePeaks[] = {
    {"H200", 989.0, 1979.0, 67.0, 34.0, 4800.0}, {"H100 PCIe", 756.0, 1513.0, 51.0, 26.0, 2000.0},
    {"H100", 989.0, 1979.0, 67.0, 34.0, 3350.0}, {"MI300X", 1307.0, 2615.0, 163.4, 81.7, 5300.0},
    {"A100", 312.0, 0.0, 19.5, 9.7, 2039.0},
};

inline const DevicePeak *find_peak(std::string_view device_name) {
  for (const auto &p : kDevicePeaks)
    if (device_name.find(p.match) != std::string_view::npos)
      return &p;
  return nullptr;
}

// The arithmetic peak that applies to a kernel whose narrowest float input is `dtype`.
inline double peak_tflops(const DevicePeak &p, DType dtype) {
  switch (dtype) {
  case DType::F64:
    return p.f64_tflops;
  case DType::F32:
    return p.f32_tflops;
  case DType::FP8E4M3:
  case DType::FP8E5M2:
  case DType::FP8E4M3FNUZ:
  case DType::FP8E5M2FNUZ:
    return p.fp8_tflops > 0 ? p.fp8_tflops : p.bf16_tflops;
  default:
    return p.bf16_tflops;
  }
}

// ------------------------------------------------------------------ sizes

// Parses "M=4096" or "M=4096,N=2048,K=512" (also a float value, "alpha=0.5")
// and appends to `sizes` (a later value for a name replaces the earlier one).
// Returns an error message, or empty.
inline std::string parse_sizes(std::string_view text,
                               std::vector<std::pair<std::string, double>> &sizes) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view item = text.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
      return "bad size '" + std::string(item) + "' (expected NAME=VALUE)";
    const std::string name(item.substr(0, eq));
    const std::string value(item.substr(eq + 1));
    char *stop = nullptr;
    const double v = std::strtod(value.c_str(), &stop);
    if (stop != value.c_str() + value.size() || !std::isfinite(v))
      return "bad value in size '" + std::string(item) + "'";
    for (char ch : name)
      if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'))
        return "bad name in size '" + std::string(item) + "'";
    auto it =
        std::find_if(sizes.begin(), sizes.end(), [&](const auto &s) { return s.first == name; });
    if (it != sizes.end())
      it->second = v;
    else
      sizes.emplace_back(name, v);
    start = end + 1;
    if (end == text.size())
      break;
  }
  return {};
}

// ---------------------------------------------------------------- options

struct Options {
  std::string artifact_dir;
  std::optional<int> bench; // --bench N (0-based index into the artifact's benches)
  std::string kernel;       // --kernel K
  std::string reference;    // --reference R (overrides the bench's)
  std::vector<std::pair<std::string, double>> sizes; // --size
  uint64_t seed = 1;
  int iters = 100; // timed runs (the default; the issue asks for at least 50)
  int warmup = 10; // untimed runs first
  double timeout_s = 300.0;
  bool expect_refusal = false;
  bool no_timing = false;
  bool help = false;
};

inline constexpr const char *kUsage =
    "Usage: argus-runner ARTIFACT_DIR [--bench N | --kernel K --size M=...[,N=...]]\n"
    "                    [--reference R] [--seed S] [--iters N] [--warmup N]\n"
    "                    [--timeout-s T] [--expect-refusal] [--no-timing]\n"
    "Runs the artifact's @bench specs (all, one, or a kernel at given sizes),\n"
    "checks each kernel against its reference and times it; prints JSON on stdout.\n";

// Parses argv[1..]. Returns an error message (a usage error), or empty.
inline std::string parse_options(const std::vector<std::string> &args, Options &o) {
  auto number = [](const std::string &s, double &out) {
    char *stop = nullptr;
    out = std::strtod(s.c_str(), &stop);
    return !s.empty() && stop == s.c_str() + s.size() && std::isfinite(out);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    bool has_inline = false;
    if (a.rfind("--", 0) == 0) {
      const size_t eq = a.find('=');
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
        has_inline = true;
      }
    }
    auto take = [&](std::string &out) {
      if (has_inline) {
        out = value;
        return true;
      }
      if (i + 1 >= args.size())
        return false;
      out = args[++i];
      return true;
    };
    auto flag = [&]() { return !has_inline; };
    double num = 0;
    std::string v;
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "--expect-refusal") {
      if (!flag())
        return "--expect-refusal takes no value";
      o.expect_refusal = true;
    } else if (a == "--no-timing") {
      if (!flag())
        return "--no-timing takes no value";
      o.no_timing = true;
    } else if (a == "--bench" || a == "--kernel" || a == "--reference" || a == "--size" ||
               a == "--seed" || a == "--iters" || a == "--warmup" || a == "--timeout-s") {
      if (!take(v))
        return a + " needs a value";
      if (a == "--kernel") {
        o.kernel = v;
      } else if (a == "--reference") {
        o.reference = v;
      } else if (a == "--size") {
        std::string err = parse_sizes(v, o.sizes);
        if (!err.empty())
          return err;
      } else if (!number(v, num)) {
        return "bad number '" + v + "' for " + a;
      } else if (a == "--bench") {
        if (num < 0 || num != std::floor(num) || num > 1e6)
          return "--bench needs an index >= 0";
        o.bench = int(num);
      } else if (a == "--seed") {
        if (num < 0 || num != std::floor(num))
          return "--seed needs an integer >= 0";
        o.seed = uint64_t(num);
      } else if (a == "--iters") {
        if (num < 1 || num > 1e6 || num != std::floor(num))
          return "--iters needs an integer in [1, 1000000]";
        o.iters = int(num);
      } else if (a == "--warmup") {
        if (num < 0 || num > 1e6 || num != std::floor(num))
          return "--warmup needs an integer in [0, 1000000]";
        o.warmup = int(num);
      } else { // --timeout-s
        if (num <= 0 || num > 86400)
          return "--timeout-s needs a number of seconds in (0, 86400]";
        o.timeout_s = num;
      }
    } else if (!a.empty() && a[0] == '-') {
      return "unknown option '" + a + "'";
    } else if (o.artifact_dir.empty()) {
      o.artifact_dir = a;
    } else {
      return "unexpected argument '" + a + "'";
    }
  }
  if (o.help)
    return {};
  if (o.artifact_dir.empty())
    return "missing ARTIFACT_DIR";
  if (o.bench && !o.kernel.empty())
    return "--bench and --kernel exclude each other";
  if (!o.sizes.empty() && o.kernel.empty() && !o.bench)
    return "--size needs --kernel or --bench";
  return {};
}

// -------------------------------------------------------------------- JSON

inline std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += char(c); // UTF-8 passes through
      }
    }
  }
  return out + "\"";
}

// A number; NaN and Inf (which JSON lacks) become null. Integers print exactly.
inline std::string json_number(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[40];
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// One benchmark's outcome, printed as one JSON object.
struct Result {
  std::string kernel;
  std::vector<std::pair<std::string, double>> sizes;
  std::string reference; // empty: none
  std::string device;
  bool refused = false; // the launcher refused (with --expect-refusal: the expected outcome)
  std::string refusal;  // the launcher's message
  bool correct = false;
  std::optional<double> error; // relative Frobenius error (worst output)
  double tolerance = 0.0;
  std::string why; // why not correct
  std::optional<Timing> timing;
  int input_sets = 1;
  std::optional<double> flops, bytes;
  std::optional<double> peak_tflops, peak_gbps;
};

inline std::string to_json(const Result &r) {
  std::string s = "{\"kernel\": " + json_string(r.kernel) + ", \"sizes\": {";
  for (size_t i = 0; i < r.sizes.size(); ++i)
    s += (i ? ", " : "") + json_string(r.sizes[i].first) + ": " + json_number(r.sizes[i].second);
  s += "}";
  if (r.refused) {
    s += ", \"refused\": true, \"refusal\": " + json_string(r.refusal);
    s += ", \"device\": " + json_string(r.device) + "}";
    return s;
  }
  s += ", \"correct\": " + std::string(r.correct ? "true" : "false");
  s += ", \"error\": " + (r.error ? json_number(*r.error) : std::string("null"));
  s += ", \"tolerance\": " + json_number(r.tolerance);
  if (!r.why.empty())
    s += ", \"why\": " + json_string(r.why);
  if (r.timing) {
    s += ", \"median_ms\": " + json_number(r.timing->median_ms);
    s += ", \"min_ms\": " + json_number(r.timing->min_ms);
    s += ", \"runs\": " + json_number(r.timing->runs);
    s += ", \"input_sets\": " + json_number(r.input_sets);
    const double seconds = r.timing->median_ms * 1e-3;
    std::optional<double> fraction;
    if (r.flops && seconds > 0) {
      const double tflops = *r.flops / seconds / 1e12;
      s += ", \"tflops\": " + json_number(tflops);
      if (r.peak_tflops && *r.peak_tflops > 0)
        fraction = tflops / *r.peak_tflops;
    }
    if (r.bytes && seconds > 0) {
      const double gbps = *r.bytes / seconds / 1e9;
      s += ", \"gbps\": " + json_number(gbps);
      if (!fraction && r.peak_gbps && *r.peak_gbps > 0)
        fraction = gbps / *r.peak_gbps;
    }
    s += ", \"peak_fraction\": " + (fraction ? json_number(*fraction) : std::string("null"));
  }
  s += ", \"reference\": " + (r.reference.empty() ? std::string("null") : json_string(r.reference));
  s += ", \"device\": " + json_string(r.device) + "}";
  return s;
}

// A failure that ends the run: {"error": ..., "stage": ...} plus context.
inline std::string error_json(std::string_view stage, std::string_view message,
                              std::string_view kernel = {},
                              const std::vector<std::string> &completed = {}) {
  std::string s = "{\"error\": " + json_string(message) + ", \"stage\": " + json_string(stage);
  if (!kernel.empty())
    s += ", \"kernel\": " + json_string(kernel);
  if (!completed.empty()) {
    s += ", \"results\": [";
    for (size_t i = 0; i < completed.size(); ++i)
      s += (i ? ", " : "") + completed[i];
    s += "]";
  }
  return s + "}";
}

} // namespace argus::runner
