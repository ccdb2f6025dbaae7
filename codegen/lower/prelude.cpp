// The fixed text of generated files: target preludes and host-check helpers.
#include "prelude.h"

namespace argus::codegen::detail {

const std::string_view kHostCheckPrelude = R"(#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef ARGUS_HOST_CHECK_HELPERS
#define ARGUS_HOST_CHECK_HELPERS
// Argus integer semantics on the host, in int64: floor division and modulo. Each file uses
// some of these; unused ones must not warn (clang warns on unused static inline in a .cpp).
#define ARGUS_HOST_HELPER static inline __attribute__((unused))
ARGUS_HOST_HELPER int64_t argus_host_floordiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
ARGUS_HOST_HELPER int64_t argus_host_floormod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
ARGUS_HOST_HELPER int64_t argus_host_min(int64_t a, int64_t b) { return a < b ? a : b; }
ARGUS_HOST_HELPER int64_t argus_host_max(int64_t a, int64_t b) { return a > b ? a : b; }
ARGUS_HOST_HELPER int64_t argus_host_abs(int64_t a) { return a < 0 ? -a : a; }
ARGUS_HOST_HELPER int64_t argus_host_cdiv(int64_t a, int64_t b) { return -argus_host_floordiv(-a, b); }
// Writes a message into error[error_size] (when there is room) and returns code.
ARGUS_HOST_HELPER int argus_host_fail(char *error, size_t error_size, int code, const char *format,
                                  ...) {
  if (error != NULL && error_size > 0) {
    va_list args;
    va_start(args, format);
    vsnprintf(error, error_size, format, args);
    va_end(args);
  }
  return code;
}
#endif
)";

const std::string_view kCudaPrelude = R"(#include <cuda.h>
#include <cuda_runtime.h>
#include <math.h>
#include <string.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

// ---- Argus device helpers ----
// Floor division and modulo (Python semantics) for operands that may be
// negative; non-negative operands use plain / and %, powers of two shifts and masks.
template <typename T> __host__ __device__ __forceinline__ T argus_floordiv(T a, T b) {
  const T q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <typename T> __host__ __device__ __forceinline__ T argus_floormod(T a, T b) {
  const T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
template <typename T> __host__ __device__ __forceinline__ T argus_min(T a, T b) { return b < a ? b : a; }
template <typename T> __host__ __device__ __forceinline__ T argus_max(T a, T b) { return a < b ? b : a; }
template <typename T> __host__ __device__ __forceinline__ T argus_abs(T a) { return a < T(0) ? -a : a; }
// CuTe Swizzle<B, M, S> on an offset: x ^ ((x & ((2^B - 1) << (M + S))) >> S).
template <int B, int M, int S> __device__ __forceinline__ int argus_swizzle(int x) {
  return x ^ ((x & (((1 << B) - 1) << (M + S))) >> S);
}
// Bit casts between types of one width.
template <typename To, typename From> __device__ __forceinline__ To argus_bitcast(From x) {
  static_assert(sizeof(To) == sizeof(From), "bitcast needs equal widths");
  To to;
  memcpy(&to, &x, sizeof(To));
  return to;
}
// Two 16-bit values in one 32-bit register (low half first), as mma/ldmatrix want them.
__device__ __forceinline__ uint32_t argus_pack2(__nv_bfloat16 lo, __nv_bfloat16 hi) {
  return uint32_t(__bfloat16_as_ushort(lo)) | (uint32_t(__bfloat16_as_ushort(hi)) << 16);
}
__device__ __forceinline__ uint32_t argus_pack2(__half lo, __half hi) {
  return uint32_t(__half_as_ushort(lo)) | (uint32_t(__half_as_ushort(hi)) << 16);
}
template <typename T> __device__ __forceinline__ T argus_unpack(uint32_t r, int half);
template <> __device__ __forceinline__ __nv_bfloat16 argus_unpack<__nv_bfloat16>(uint32_t r, int half) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(half ? r >> 16 : r & 0xffffu));
}
template <> __device__ __forceinline__ __half argus_unpack<__half>(uint32_t r, int half) {
  return __ushort_as_half(static_cast<unsigned short>(half ? r >> 16 : r & 0xffffu));
}
template <> __device__ __forceinline__ int16_t argus_unpack<int16_t>(uint32_t r, int half) {
  return static_cast<int16_t>(half ? r >> 16 : r & 0xffffu);
}
template <> __device__ __forceinline__ uint16_t argus_unpack<uint16_t>(uint32_t r, int half) {
  return static_cast<uint16_t>(half ? r >> 16 : r & 0xffffu);
}
// The shared-state-space address of a generic pointer into shared memory.
// An empty asm that reads and writes every register of an array: other
// accesses to them cannot be moved across it (see fill_wgmma_fences).
template <int N> __device__ __forceinline__ void argus_register_fence(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+f"(r[i])::"memory");
}
// exp2 under fast_math: the hardware's ex2 with denormal inputs and results
// flushed to zero (one MUFU.EX2; exp2f adds a range check and two multiplies
// to keep denormal results), as exp2f under nvcc's --use_fast_math.
__device__ __forceinline__ float argus_exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// A 16-bit wgmma A fragment packed in pairs at a wgmma_fence, each packed
// register pinned there: the wgmma that follow read registers written before
// the fence (else ptxas injects a warpgroup.arrive before each, C7519).
template <typename T, int N>
__device__ __forceinline__ void argus_pack_fence(const T (&v)[N], uint32_t (&packed)[N / 2]) {
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    packed[i] = argus_pack2(v[2 * i], v[2 * i + 1]);
    asm volatile("" : "+r"(packed[i])::"memory");
  }
}
__device__ __forceinline__ uint32_t argus_smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// Distributed shared memory: the shared address of p in block `rank` of the
// cluster (mapa), and a load from there (ld.shared::cluster).
__device__ __forceinline__ uint32_t argus_cluster_addr(const void *p, uint32_t rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
               : "=r"(remote)
               : "r"(argus_smem_addr(p)), "r"(rank));
  return remote;
}
template <typename T> __device__ __forceinline__ T argus_dsmem_load(const T *p, uint32_t rank) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "dsmem_load of 2, 4 or 8 bytes");
  const uint32_t a = argus_cluster_addr(p, rank);
  if constexpr (sizeof(T) == 2) {
    uint16_t v;
    asm volatile("ld.shared::cluster.b16 %0, [%1];\n" : "=h"(v) : "r"(a) : "memory");
    return argus_bitcast<T>(v);
  } else if constexpr (sizeof(T) == 4) {
    uint32_t v;
    asm volatile("ld.shared::cluster.b32 %0, [%1];\n" : "=r"(v) : "r"(a) : "memory");
    return argus_bitcast<T>(v);
  } else {
    uint64_t v;
    asm volatile("ld.shared::cluster.b64 %0, [%1];\n" : "=l"(v) : "r"(a) : "memory");
    return argus_bitcast<T>(v);
  }
}
// A wgmma matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start
// address, leading byte offset (16: unused by the swizzled K-major layouts;
// MN-major: between atoms along N), stride byte offset (between 8-row groups),
// base offset 0 (tiles start on a swizzle-pattern boundary), swizzle mode (1:
// 128, 2: 64, 3: 32 bytes).
__device__ __forceinline__ uint64_t argus_wgmma_desc(uint32_t address, uint32_t leading_bytes,
                                                     uint32_t stride_bytes, uint32_t mode) {
  return static_cast<uint64_t>((address & 0x3FFFFu) >> 4) |
         (static_cast<uint64_t>((leading_bytes & 0x3FFFFu) >> 4) << 16) |
         (static_cast<uint64_t>((stride_bytes & 0x3FFFFu) >> 4) << 32) |
         (static_cast<uint64_t>(mode) << 62);
}
// Atomics (relaxed, as CUDA's atomic*): its 64-bit overloads take long long and
// unsigned long long, which int64_t and uint64_t need not be.
// The value's type follows the element's (a literal converts to it).
template <typename T> struct argus_atomic_word { typedef T type; };
template <> struct argus_atomic_word<int64_t> { typedef long long type; };
template <> struct argus_atomic_word<uint64_t> { typedef unsigned long long type; };
#define ARGUS_ATOMIC(name, fn)                                                   \
  template <typename T>                                                          \
  __device__ __forceinline__ T name(T *p, typename argus_atomic_word<T>::type v) { \
    typedef typename argus_atomic_word<T>::type W;                               \
    return static_cast<T>(fn(reinterpret_cast<W *>(p), static_cast<W>(v)));     \
  }
ARGUS_ATOMIC(argus_atomic_add, atomicAdd)
ARGUS_ATOMIC(argus_atomic_add_block, atomicAdd_block)
ARGUS_ATOMIC(argus_atomic_max, atomicMax)
ARGUS_ATOMIC(argus_atomic_max_block, atomicMax_block)
ARGUS_ATOMIC(argus_atomic_min, atomicMin)
ARGUS_ATOMIC(argus_atomic_min_block, atomicMin_block)
ARGUS_ATOMIC(argus_atomic_exch, atomicExch)
ARGUS_ATOMIC(argus_atomic_exch_block, atomicExch_block)
#undef ARGUS_ATOMIC
#define ARGUS_ATOMIC_CAS(name, fn)                                                  \
  template <typename T>                                                             \
  __device__ __forceinline__ T name(T *p, typename argus_atomic_word<T>::type expected, \
                                    typename argus_atomic_word<T>::type v) {        \
    typedef typename argus_atomic_word<T>::type W;                                  \
    return static_cast<T>(fn(reinterpret_cast<W *>(p), static_cast<W>(expected),    \
                             static_cast<W>(v)));                                   \
  }
ARGUS_ATOMIC_CAS(argus_atomic_cas, atomicCAS)
ARGUS_ATOMIC_CAS(argus_atomic_cas_block, atomicCAS_block)
#undef ARGUS_ATOMIC_CAS
)";

const std::string_view kHipPrelude =
    R"(// Self-contained: no ROCm header is needed to compile this file for the device
// (clang -x hip --offload-arch=gfx942 -nogpulib -nogpuinc). On a ROCm host,
// hipcc's own definitions of these macros win.
#include <stdint.h>
#include <string.h>
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __host__
#define __host__ __attribute__((host))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __forceinline__
#define __forceinline__ inline __attribute__((always_inline))
#endif
#ifndef INFINITY
#define INFINITY __builtin_inff()
#endif
#ifndef NAN
#define NAN __builtin_nanf("")
#endif

// ---- Argus device helpers ----
typedef unsigned int argus_u32x2 __attribute__((ext_vector_type(2)));
typedef unsigned int argus_u32x4 __attribute__((ext_vector_type(4)));
typedef short argus_s16x4 __attribute__((ext_vector_type(4)));
typedef float argus_f32x4 __attribute__((ext_vector_type(4)));
typedef float argus_f32x16 __attribute__((ext_vector_type(16)));

// bf16: the bits of a bfloat16; arithmetic goes through float.
struct argus_bf16 {
  unsigned short bits;
};
__host__ __device__ __forceinline__ float __bfloat162float(argus_bf16 x) {
  const unsigned int u = static_cast<unsigned int>(x.bits) << 16;
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
__host__ __device__ __forceinline__ argus_bf16 __float2bfloat16_rn(float f) {
  unsigned int u;
  __builtin_memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return argus_bf16{static_cast<unsigned short>((u >> 16) | 0x40u)}; // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u); // round to nearest even
  return argus_bf16{static_cast<unsigned short>(u >> 16)};
}
__host__ __device__ __forceinline__ unsigned short __bfloat16_as_ushort(argus_bf16 x) { return x.bits; }
__host__ __device__ __forceinline__ argus_bf16 __ushort_as_bfloat16(unsigned short b) { return argus_bf16{b}; }
#define ARGUS_BF16_BINARY(op)                                                                     \
  __host__ __device__ __forceinline__ argus_bf16 operator op(argus_bf16 a, argus_bf16 b) {       \
    return __float2bfloat16_rn(__bfloat162float(a) op __bfloat162float(b));                    \
  }                                                                                              \
  __host__ __device__ __forceinline__ argus_bf16 &operator op##=(argus_bf16 & a, argus_bf16 b) { \
    return a = a op b;                                                                           \
  }
ARGUS_BF16_BINARY(+)
ARGUS_BF16_BINARY(-)
ARGUS_BF16_BINARY(*)
ARGUS_BF16_BINARY(/)
#undef ARGUS_BF16_BINARY
#define ARGUS_BF16_COMPARE(op)                                                                   \
  __host__ __device__ __forceinline__ bool operator op(argus_bf16 a, argus_bf16 b) {            \
    return __bfloat162float(a) op __bfloat162float(b);                                          \
  }
ARGUS_BF16_COMPARE(<)
ARGUS_BF16_COMPARE(<=)
ARGUS_BF16_COMPARE(>)
ARGUS_BF16_COMPARE(>=)
ARGUS_BF16_COMPARE(==)
ARGUS_BF16_COMPARE(!=)
#undef ARGUS_BF16_COMPARE
__host__ __device__ __forceinline__ argus_bf16 operator-(argus_bf16 a) {
  return argus_bf16{static_cast<unsigned short>(a.bits ^ 0x8000u)};
}
// f16 is clang's _Float16.
__host__ __device__ __forceinline__ float __half2float(_Float16 x) { return static_cast<float>(x); }
__host__ __device__ __forceinline__ _Float16 __float2half_rn(float x) { return static_cast<_Float16>(x); }
// fp8: argus_fp8e4m3/e5m2 (OCP) and ..fnuz, kFp8Prelude after this text.

// The device helpers: not in the runner's host-only build of an artifact
// (ARGUS_HIP_MODULE), whose hipcc may not know these builtins or gfx942.
#if !defined(ARGUS_HIP_MODULE)
template <typename T> __device__ __forceinline__ T argus_floordiv(T a, T b) {
  const T q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <typename T> __device__ __forceinline__ T argus_floormod(T a, T b) {
  const T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
template <typename T> __device__ __forceinline__ T argus_min(T a, T b) { return b < a ? b : a; }
template <typename T> __device__ __forceinline__ T argus_max(T a, T b) { return a < b ? b : a; }
template <typename T> __device__ __forceinline__ T argus_abs(T a) { return a < T(0) ? -a : a; }
template <int B, int M, int S> __device__ __forceinline__ int argus_swizzle(int x) {
  return x ^ ((x & (((1 << B) - 1) << (M + S))) >> S);
}
template <typename To, typename From> __device__ __forceinline__ To argus_bitcast(From x) {
  static_assert(sizeof(To) == sizeof(From), "bitcast needs equal widths");
  return __builtin_bit_cast(To, x);
}
__device__ __forceinline__ float argus_tanhf(float x) {
  const float e = __builtin_expf(-2.0f * __builtin_fabsf(x));
  const float t = (1.0f - e) / (1.0f + e);
  return x < 0.0f ? -t : t;
}
// Linear thread index, lane (0..63) and wavefront of this work-item.
__device__ __forceinline__ int argus_lane() {
  return static_cast<int>(__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)));
}
__device__ __forceinline__ void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
// Cross-lane reads through ds_bpermute (64 lanes; a lane outside 0..63 reads its own value).
template <typename T> __device__ __forceinline__ T argus_shfl(T v, int src) {
  const int self = argus_lane();
  const int lane = (src < 0 || src > 63) ? self : src;
  if constexpr (sizeof(T) == 4) {
    return __builtin_bit_cast(T, __builtin_amdgcn_ds_bpermute(lane << 2, __builtin_bit_cast(int, v)));
  } else if constexpr (sizeof(T) == 8) {
    const long long bits = __builtin_bit_cast(long long, v);
    const int lo = __builtin_amdgcn_ds_bpermute(lane << 2, static_cast<int>(bits));
    const int hi = __builtin_amdgcn_ds_bpermute(lane << 2, static_cast<int>(bits >> 32));
    return __builtin_bit_cast(T, (static_cast<long long>(hi) << 32) | static_cast<unsigned int>(lo));
  } else {
    static_assert(sizeof(T) <= 2, "shuffle of 1, 2, 4 or 8 bytes");
    unsigned int bits = 0;
    __builtin_memcpy(&bits, &v, sizeof(T));
    const int r = __builtin_amdgcn_ds_bpermute(lane << 2, static_cast<int>(bits));
    T out;
    __builtin_memcpy(&out, &r, sizeof(T));
    return out;
  }
}
template <typename T> __device__ __forceinline__ T argus_shfl_xor(T v, int mask) {
  return argus_shfl(v, argus_lane() ^ mask);
}
template <typename T> __device__ __forceinline__ T argus_shfl_up(T v, int delta) {
  return argus_shfl(v, argus_lane() - delta);
}
template <typename T> __device__ __forceinline__ T argus_shfl_down(T v, int delta) {
  return argus_shfl(v, argus_lane() + delta);
}
// Raw buffer loads (amdgpu.raw_buffer_load_x*): a buffer resource for a tensor's base
// (stride 0, num_records in bytes, clamped to 32 bits; dword3 0x00020000 as AMD's Composable
// Kernel uses on gfx90a/gfx94x) and 4/8/16-byte loads at a byte offset from that base. The
// hardware range-checks the offset (a load past num_records returns 0) and the base stays
// in SGPRs.
__device__ __forceinline__ __amdgpu_buffer_rsrc_t argus_buffer_rsrc(const void *base,
                                                                    unsigned long long bytes) {
  const unsigned int records =
      bytes > 0xffffffffull ? 0xffffffffu : static_cast<unsigned int>(bytes);
  return __builtin_amdgcn_make_buffer_rsrc(const_cast<void *>(base), static_cast<short>(0),
                                           static_cast<int>(records), 0x00020000);
}
__device__ __forceinline__ unsigned int argus_buffer_load_b32(__amdgpu_buffer_rsrc_t r,
                                                              unsigned int offset) {
  return __builtin_amdgcn_raw_buffer_load_b32(r, static_cast<int>(offset), 0, 0);
}
__device__ __forceinline__ argus_u32x2 argus_buffer_load_b64(__amdgpu_buffer_rsrc_t r,
                                                             unsigned int offset) {
  return __builtin_amdgcn_raw_buffer_load_b64(r, static_cast<int>(offset), 0, 0);
}
__device__ __forceinline__ argus_u32x4 argus_buffer_load_b128(__amdgpu_buffer_rsrc_t r,
                                                              unsigned int offset) {
  return __builtin_amdgcn_raw_buffer_load_b128(r, static_cast<int>(offset), 0, 0);
}
// Warps: a wavefront runs in lockstep; syncwarp() orders its lanes' memory accesses.
__device__ __forceinline__ void argus_syncwarp() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
__device__ __forceinline__ uint64_t argus_ballot(bool p) { return __builtin_amdgcn_ballot_w64(p); }
// Atomics, relaxed: the agent (device) scope, or the workgroup (block) scope. The
// value's type follows the element's (a literal converts to it).
template <typename T> struct argus_same { typedef T type; };
#define ARGUS_ATOMIC(name, builtin, scope)                                       \
  template <typename T>                                                          \
  __device__ __forceinline__ T name(T *p, typename argus_same<T>::type v) {     \
    return builtin(p, v, __ATOMIC_RELAXED, scope);                               \
  }
ARGUS_ATOMIC(argus_atomic_add, __hip_atomic_fetch_add, __HIP_MEMORY_SCOPE_AGENT)
ARGUS_ATOMIC(argus_atomic_add_block, __hip_atomic_fetch_add, __HIP_MEMORY_SCOPE_WORKGROUP)
ARGUS_ATOMIC(argus_atomic_max, __hip_atomic_fetch_max, __HIP_MEMORY_SCOPE_AGENT)
ARGUS_ATOMIC(argus_atomic_max_block, __hip_atomic_fetch_max, __HIP_MEMORY_SCOPE_WORKGROUP)
ARGUS_ATOMIC(argus_atomic_min, __hip_atomic_fetch_min, __HIP_MEMORY_SCOPE_AGENT)
ARGUS_ATOMIC(argus_atomic_min_block, __hip_atomic_fetch_min, __HIP_MEMORY_SCOPE_WORKGROUP)
ARGUS_ATOMIC(argus_atomic_exch, __hip_atomic_exchange, __HIP_MEMORY_SCOPE_AGENT)
ARGUS_ATOMIC(argus_atomic_exch_block, __hip_atomic_exchange, __HIP_MEMORY_SCOPE_WORKGROUP)
#undef ARGUS_ATOMIC
template <typename T>
__device__ __forceinline__ T argus_atomic_cas(T *p, typename argus_same<T>::type expected,
                                              typename argus_same<T>::type v) {
  __hip_atomic_compare_exchange_strong(p, &expected, v, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                       __HIP_MEMORY_SCOPE_AGENT);
  return expected;
}
template <typename T>
__device__ __forceinline__ T argus_atomic_cas_block(T *p, typename argus_same<T>::type expected,
                                                    typename argus_same<T>::type v) {
  __hip_atomic_compare_exchange_strong(p, &expected, v, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                       __HIP_MEMORY_SCOPE_WORKGROUP);
  return expected;
}
#endif // !ARGUS_HIP_MODULE
)";

} // namespace argus::codegen::detail
