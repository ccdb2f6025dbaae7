// argus-runner: runs an Argus artifact's kernels on the GPU, checks them
// against their references and times them; one JSON result on stdout.
//
// Built by nvcc together with an artifact's kernels.cu into one executable
// (codegen/runner/argus-runner does that and caches the binary):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a
//        -I codegen/runner/include runner_main.cu ARTIFACT/kernels.cu -o run
// The artifact provides argus_artifact_kernels(), argus_artifact_benches(),
// argus_tensor_shape() and argus_launch() (argus/runner/artifact_abi.h); the
// runner evaluates no expressions itself.
//
// For a gfx942 artifact (ARGUS_RUNNER_HIP, hipcc): the artifact's kernels.hip
// is compiled for the host only (ARGUS_HIP_MODULE) and its launchers call
// argus_hip_module_launch() below, which launches the kernels of the code
// object argus compiled (kernels.hsaco, named by $ARGUS_CODE_OBJECT) through
// hipModuleLoadData / hipModuleLaunchKernel: a hipcc that does not know
// gfx942 (Debian's is 5.2, Clang 15) builds the runner all the same.
#include "argus/runner/artifact_abi.h"
#include "argus/runner/core.h"
#include "argus/runner/gpu_runtime.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ar = argus::runner;

namespace {

// argus_launch's return codes (docs/artifacts.md).
constexpr int kLaunchAssumeFailed = 1;
constexpr int kLaunchInvalidArgument = 2;

// The artifact's tables.
struct ArtifactInfo {
  const ArgusKernelInfo *kernels = nullptr;
  int nkernels = 0;
  const ArgusBenchInfo *benches = nullptr;
  int nbenches = 0;
};

// ------------------------------------------------------------ output, exit

std::timed_mutex g_print_mutex;
std::atomic<const char *> g_stage{"startup"};
std::atomic<const char *> g_kernel{""};
std::vector<std::string> g_completed; // JSON of finished results (main thread only)

void set_stage(const char *stage) { g_stage.store(stage); }

// Prints a fatal error as JSON (with the results finished so far) and exits.
// _exit: after a device fault, CUDA's teardown can block.
[[noreturn]] void fail(const std::string &message, int code = 1) {
  std::lock_guard<std::timed_mutex> lock(g_print_mutex);
  const std::string json = ar::error_json(g_stage.load(), message, g_kernel.load(), g_completed);
  std::fputs((json + "\n").c_str(), stdout);
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(code);
}

void check_cuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess)
    fail(std::string(what) + ": " + cudaGetErrorString(e));
}

// A watchdog: after `seconds`, prints a JSON time-out error and _exit(3)s, so
// a hung kernel or launcher never hangs the caller.
void start_watchdog(double seconds) {
  std::thread([seconds] {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    if (!g_print_mutex.try_lock_for(std::chrono::seconds(2)))
      _exit(3);
    char message[128];
    std::snprintf(message, sizeof message, "timed out after %g s", seconds);
    const std::string json = ar::error_json("timeout", message, g_kernel.load());
    std::fputs((json + "\n").c_str(), stdout);
    std::fflush(stdout);
    _exit(3);
  }).detach();
}

// ------------------------------------------------------------ device memory

struct DeviceBuffer {
  void *ptr = nullptr;
  size_t bytes = 0;
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) : bytes(n) {
    check_cuda(cudaMalloc(&ptr, n ? n : 1), "cudaMalloc");
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() {
    if (ptr)
      (void)cudaFree(ptr); // teardown: nothing to do about a failure
  }
};

// ------------------------------------------------------------ builtin matmul

__device__ double load_element(const void *p, int dtype, int64_t i) {
  switch (dtype) {
  case int(ar::DType::F64):
    return static_cast<const double *>(p)[i];
  case int(ar::DType::F32):
    return static_cast<const float *>(p)[i];
  case int(ar::DType::F16):
    return __half2float(static_cast<const __half *>(p)[i]);
#if defined(ARGUS_RUNNER_HIP)
  case int(ar::DType::BF16): // the high half of an f32
    return __uint_as_float(unsigned(static_cast<const unsigned short *>(p)[i]) << 16);
  case int(ar::DType::FP8E4M3):   // OCP e4m3: bias 7, no infinities, S.1111.111 is NaN
  case int(ar::DType::FP8E5M2): { // OCP e5m2: bias 15, IEEE-like
    const unsigned b = static_cast<const unsigned char *>(p)[i];
    const bool e4 = dtype == int(ar::DType::FP8E4M3);
    const int mbits = e4 ? 3 : 2, bias = e4 ? 7 : 15, emax = e4 ? 15 : 31;
    const int exp = int(b & 0x7F) >> mbits, mant = int(b) & ((1 << mbits) - 1);
    if (e4 && (b & 0x7F) == 0x7F)
      return nan("");
    if (!e4 && exp == emax)
      return mant ? nan("") : ((b & 0x80) ? -INFINITY : INFINITY);
    const double v = exp == 0 ? ldexp(double(mant), 1 - bias - mbits)
                              : ldexp(double((1 << mbits) + mant), exp - bias - mbits);
    return (b & 0x80) ? -v : v;
  }
#else
  case int(ar::DType::BF16):
    return __bfloat162float(static_cast<const __nv_bfloat16 *>(p)[i]);
  case int(ar::DType::FP8E4M3):
    return float(static_cast<const __nv_fp8_e4m3 *>(p)[i]);
  case int(ar::DType::FP8E5M2):
    return float(static_cast<const __nv_fp8_e5m2 *>(p)[i]);
#endif
  case int(ar::DType::FP8E4M3FNUZ):
  case int(ar::DType::FP8E5M2FNUZ): { // MI300's formats: decoded by hand
    const unsigned b = static_cast<const unsigned char *>(p)[i];
    if (b == 0x80)
      return nan("");
    const bool e4 = dtype == int(ar::DType::FP8E4M3FNUZ);
    const int mbits = e4 ? 3 : 2, bias = e4 ? 8 : 16;
    const int exp = int(b & 0x7F) >> mbits, mant = int(b) & ((1 << mbits) - 1);
    const double v = exp == 0 ? ldexp(double(mant), 1 - bias - mbits)
                              : ldexp(double((1 << mbits) + mant), exp - bias - mbits);
    return (b & 0x80) ? -v : v;
  }
  case int(ar::DType::I8):
    return static_cast<const int8_t *>(p)[i];
  case int(ar::DType::I32):
    return static_cast<const int32_t *>(p)[i];
  default:
    return 0.0;
  }
}

// C[m, n] = Σ_k A[m, k] · B[n, k] in double, C contiguous M x N.
constexpr int kRefTile = 16;
__global__ void reference_matmul(const void *A, int a_dtype, int64_t sam, int64_t sak,
                                 const void *B, int b_dtype, int64_t sbn, int64_t sbk, double *C,
                                 int64_t M, int64_t N, int64_t K) {
  __shared__ double as[kRefTile][kRefTile + 1];
  __shared__ double bs[kRefTile][kRefTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t m = int64_t(blockIdx.y) * kRefTile + ty;
  const int64_t n = int64_t(blockIdx.x) * kRefTile + tx;
  const int64_t nb = int64_t(blockIdx.x) * kRefTile + ty;
  double acc = 0.0;
  for (int64_t k0 = 0; k0 < K; k0 += kRefTile) {
    const int64_t k = k0 + tx;
    as[ty][tx] = (m < M && k < K) ? load_element(A, a_dtype, m * sam + k * sak) : 0.0;
    bs[ty][tx] = (nb < N && k < K) ? load_element(B, b_dtype, nb * sbn + k * sbk) : 0.0;
    __syncthreads();
    for (int kk = 0; kk < kRefTile; ++kk)
      acc += as[ty][kk] * bs[tx][kk];
    __syncthreads();
  }
  if (m < M && n < N)
    C[m * N + n] = acc;
}

// Row-wise softmax of scores * scale in place (rows x cols doubles); causal:
// row r keeps columns 0..r, the rest become 0.
__global__ void reference_softmax_rows(double *scores, int64_t rows, int64_t cols, double scale,
                                       int causal) {
  const int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  double *row = scores + r * cols;
  const int64_t end = causal ? (r + 1 < cols ? r + 1 : cols) : cols;
  double mx = -INFINITY;
  for (int64_t c = 0; c < end; ++c)
    mx = fmax(mx, row[c] * scale);
  double sum = 0.0;
  for (int64_t c = 0; c < end; ++c) {
    row[c] = exp(row[c] * scale - mx);
    sum += row[c];
  }
  for (int64_t c = 0; c < end; ++c)
    row[c] /= sum;
  for (int64_t c = end; c < cols; ++c)
    row[c] = 0.0;
}

// ------------------------------------------------------------ the artifact

struct TensorSpec {
  int param = -1;
  ar::DType dtype = ar::DType::F32;
  std::vector<int64_t> dims, strides;
  int64_t span = 0; // elements spanned in memory (0: invalid shape)
  size_t bytes = 0;
  bool output = false;
};

struct Plan {
  const ArgusKernelInfo *kernel = nullptr;
  std::vector<std::pair<std::string, double>> sizes;
  std::string reference;
  // The @bench's before= kernels, launched in order before `kernel` every time.
  std::vector<const ArgusKernelInfo *> before;
  // The @bench's flops= / bytes= (0: not given), valid at its own sizes.
  double flops = 0, bytes = 0;
  std::vector<std::pair<std::string, double>> bench_sizes;
};

const ArgusKernelInfo *find_kernel(const ArtifactInfo &info, const std::string &name) {
  for (int i = 0; i < info.nkernels; ++i)
    if (info.kernels[i].name && name == info.kernels[i].name)
      return &info.kernels[i];
  return nullptr;
}

// The names of a bench's before= list ("a,b"), in order.
std::vector<std::string> before_names(const char *list) {
  std::vector<std::string> out;
  if (!list)
    return out;
  std::string item;
  for (const char *c = list;; ++c) {
    if (*c == ',' || *c == 0) {
      if (!item.empty())
        out.push_back(item);
      item.clear();
      if (*c == 0)
        break;
    } else {
      item += *c;
    }
  }
  return out;
}

ArtifactInfo load_artifact() {
  set_stage("artifact");
  ArtifactInfo result;
  result.nkernels = argus_artifact_kernels(&result.kernels);
  result.nbenches = argus_artifact_benches(&result.benches);
  const ArtifactInfo *info = &result;
  if (info->nkernels < 0 || (info->nkernels > 0 && !info->kernels) || info->nbenches < 0 ||
      (info->nbenches > 0 && !info->benches))
    fail("the artifact's kernel or bench table is malformed");
  for (int k = 0; k < info->nkernels; ++k) {
    const ArgusKernelInfo &ki = info->kernels[k];
    if (!ki.name || ki.nparams < 0 || (ki.nparams > 0 && !ki.params))
      fail("kernel #" + std::to_string(k) + " of the artifact is malformed");
    for (int p = 0; p < ki.nparams; ++p) {
      const ArgusParamInfo &pi = ki.params[p];
      if (!pi.name || !pi.dtype || !ar::find_dtype(pi.dtype) || pi.kind < 0 || pi.kind > 2 ||
          pi.rank < 0 || pi.rank > 8)
        fail(std::string("parameter #") + std::to_string(p) + " of kernel " + ki.name +
             " is malformed");
    }
  }
  for (int b = 0; b < info->nbenches; ++b) {
    const ArgusBenchInfo &bi = info->benches[b];
    if (!bi.kernel || !find_kernel(*info, bi.kernel) ||
        (bi.nsizes > 0 && (!bi.size_names || !bi.size_values)))
      fail("bench #" + std::to_string(b) +
           " of the artifact is malformed or names no kernel of it");
    for (const std::string &name : before_names(bi.before))
      if (!find_kernel(*info, name))
        fail("bench #" + std::to_string(b) + " runs '" + name +
             "' before its kernel, which is not a kernel of the artifact");
  }
  return result;
}

std::vector<Plan> make_plans(const ArtifactInfo &info, const ar::Options &o) {
  set_stage("plan");
  std::vector<Plan> plans;
  auto from_bench = [&](const ArgusBenchInfo &b) {
    Plan p;
    p.kernel = find_kernel(info, b.kernel);
    for (int i = 0; i < b.nsizes; ++i)
      p.sizes.emplace_back(b.size_names[i] ? b.size_names[i] : "", double(b.size_values[i]));
    p.bench_sizes = p.sizes;
    p.reference = b.reference ? b.reference : "";
    for (const std::string &name : before_names(b.before))
      p.before.push_back(find_kernel(info, name));
    p.flops = b.flops;
    p.bytes = b.bytes;
    return p;
  };
  auto override_sizes = [&](Plan &p) {
    for (const auto &s : o.sizes) {
      auto it = std::find_if(p.sizes.begin(), p.sizes.end(),
                             [&](const auto &x) { return x.first == s.first; });
      if (it != p.sizes.end())
        it->second = s.second;
      else
        p.sizes.push_back(s);
    }
    if (!o.reference.empty())
      p.reference = o.reference == "none" ? "" : o.reference;
  };
  if (!o.kernel.empty()) {
    Plan p;
    p.kernel = find_kernel(info, o.kernel);
    if (!p.kernel)
      fail("the artifact has no kernel '" + o.kernel + "'");
    // Its @bench closest to the sizes given (fewest values that differ; the
    // first among equals) lends reference, before, flops and bytes: two
    // @bench of one kernel may differ in a flag that changes the reference
    // (causal=0 "attention", causal=1 "attention_causal").
    int chosen = -1;
    size_t fewest = SIZE_MAX;
    for (int b = 0; b < info.nbenches; ++b) {
      const ArgusBenchInfo &bi = info.benches[b];
      if (o.kernel != bi.kernel)
        continue;
      size_t differ = 0;
      for (int i = 0; i < bi.nsizes; ++i)
        for (const auto &given : o.sizes)
          if (bi.size_names[i] && given.first == bi.size_names[i] &&
              given.second != double(bi.size_values[i]))
            ++differ;
      if (differ < fewest) {
        fewest = differ;
        chosen = b;
      }
    }
    if (chosen >= 0) {
      Plan bp = from_bench(info.benches[chosen]);
      p.reference = bp.reference;
      p.before = bp.before;
      p.flops = bp.flops;
      p.bytes = bp.bytes;
      p.bench_sizes = bp.bench_sizes;
    }
    override_sizes(p);
    plans.push_back(p);
  } else if (o.bench) {
    if (*o.bench >= info.nbenches)
      fail("the artifact has " + std::to_string(info.nbenches) + " benches; no bench #" +
           std::to_string(*o.bench));
    Plan p = from_bench(info.benches[*o.bench]);
    override_sizes(p);
    plans.push_back(p);
  } else {
    for (int b = 0; b < info.nbenches; ++b) {
      Plan p = from_bench(info.benches[b]);
      override_sizes(p);
      plans.push_back(p);
    }
    if (plans.empty())
      fail("the artifact has no @bench; run a kernel with --kernel K --size ...");
  }
  return plans;
}

// Scalar arguments from the sizes; tensors are filled in later.
std::vector<ArgusArg> make_args(const ArgusKernelInfo &k,
                                const std::vector<std::pair<std::string, double>> &sizes) {
  set_stage("sizes");
  std::vector<ArgusArg> args(size_t(k.nparams));
  for (const auto &s : sizes) {
    bool known = false;
    for (int p = 0; p < k.nparams; ++p)
      known = known || (k.params[p].kind != ARGUS_ARG_TENSOR && s.first == k.params[p].name);
    if (!known)
      fail("size '" + s.first + "' is no scalar parameter of kernel " + k.name);
  }
  for (int p = 0; p < k.nparams; ++p) {
    const ArgusParamInfo &pi = k.params[p];
    ArgusArg &a = args[size_t(p)];
    a.name = pi.name;
    a.kind = pi.kind;
    if (pi.kind == ARGUS_ARG_TENSOR)
      continue;
    auto it =
        std::find_if(sizes.begin(), sizes.end(), [&](const auto &s) { return s.first == pi.name; });
    if (it == sizes.end() && pi.default_num_sms) {
      // `P: i32 = num_sms()`: this device's SM count.
      int device = 0;
      check_cuda(cudaGetDevice(&device), "cudaGetDevice");
      cudaDeviceProp prop{};
      check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
      a.int_value = prop.multiProcessorCount;
      a.float_value = prop.multiProcessorCount;
      continue;
    }
    if (it == sizes.end())
      fail(std::string("no value for scalar parameter '") + pi.name + "' of kernel " + k.name +
           " (give it with --size " + pi.name + "=...)");
    a.int_value = int64_t(it->second);
    a.float_value = it->second;
  }
  return args;
}

std::vector<TensorSpec> tensor_specs(const ArgusKernelInfo &k, const std::vector<ArgusArg> &args) {
  set_stage("shapes");
  std::vector<TensorSpec> specs;
  std::vector<int64_t> scalars; // the scalar parameters' values, in parameter order
  for (int p = 0; p < k.nparams; ++p)
    if (k.params[p].kind != ARGUS_ARG_TENSOR)
      scalars.push_back(args[size_t(p)].int_value);
  for (int p = 0; p < k.nparams; ++p) {
    const ArgusParamInfo &pi = k.params[p];
    if (pi.kind != ARGUS_ARG_TENSOR)
      continue;
    TensorSpec t;
    t.param = p;
    t.dtype = ar::find_dtype(pi.dtype)->dtype;
    t.dims.assign(size_t(pi.rank), 0);
    t.strides.assign(size_t(pi.rank), 0);
    // Non-zero: unknown parameter or a dimension that is not positive. The
    // latter is a size the launcher must refuse: keep span 0 (a one-element
    // placeholder buffer) and let the launch decide.
    if (argus_tensor_shape(k.name, p, scalars.data(), t.dims.data(), t.strides.data()) != 0)
      t.dims.assign(size_t(pi.rank), 0);
    t.span = ar::span_elements(t.dims, t.strides);
    t.bytes = size_t(std::max<int64_t>(t.span, 1)) * size_t(ar::dtype_info(t.dtype).bytes);
    t.output = pi.is_output != 0;
    specs.push_back(std::move(t));
  }
  return specs;
}

uint64_t mix_seed(uint64_t seed, uint64_t a, uint64_t b) {
  ar::Rng r(seed * 0x100000001B3ull ^ (a << 32) ^ b);
  return r.next();
}

// One set of device tensors for a kernel's arguments.
struct TensorSet {
  std::vector<std::unique_ptr<DeviceBuffer>> buffers; // parallel to specs
  std::vector<ArgusArg> args;
};

void fill_input(const TensorSpec &t, DeviceBuffer &buf, uint64_t seed) {
  std::vector<unsigned char> host(buf.bytes);
  ar::fill_random(host.data(), t.dtype, host.size() / size_t(ar::dtype_info(t.dtype).bytes), seed);
  check_cuda(cudaMemcpy(buf.ptr, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
}

TensorSet make_set(const std::vector<TensorSpec> &specs, const std::vector<ArgusArg> &scalars,
                   uint64_t seed, int set_index) {
  set_stage("alloc");
  TensorSet s;
  s.args = scalars;
  for (size_t i = 0; i < specs.size(); ++i) {
    const TensorSpec &t = specs[i];
    auto buf = std::make_unique<DeviceBuffer>(t.bytes);
    if (t.output)
      check_cuda(cudaMemset(buf->ptr, ar::poison_byte(t.dtype), buf->bytes), "cudaMemset");
    else
      fill_input(t, *buf, mix_seed(seed, uint64_t(set_index), uint64_t(t.param)));
    s.args[size_t(t.param)].data = buf->ptr;
    s.buffers.push_back(std::move(buf));
  }
  return s;
}

// The tensors of the builtin "grouped_matmul" reference: C[t, n] =
// Σ_k A[t, k] · B[e, n, k] for offsets[e] <= t < offsets[e + 1]. A is the
// first rank-2 input, B the first rank-3 input, offsets the first rank-1
// integer input (E + 1 values), C the first rank-2 output.
struct GroupedTensors {
  const TensorSpec *a = nullptr, *b = nullptr, *offsets = nullptr, *c = nullptr;
  size_t c_index = 0;
};

GroupedTensors grouped_tensors(const std::vector<TensorSpec> &specs) {
  GroupedTensors g;
  for (size_t i = 0; i < specs.size(); ++i) {
    const TensorSpec &t = specs[i];
    if (!t.output && t.dims.size() == 2 && !g.a)
      g.a = &t;
    else if (!t.output && t.dims.size() == 3 && !g.b)
      g.b = &t;
    else if (!t.output && t.dims.size() == 1 && !ar::dtype_info(t.dtype).is_float && !g.offsets)
      g.offsets = &t;
    else if (t.output && t.dims.size() == 2 && !g.c) {
      g.c = &t;
      g.c_index = i;
    }
  }
  if (!g.a || !g.b || !g.offsets || !g.c)
    fail("the builtin grouped_matmul reference needs inputs A (T x K), B (E x N x K), integer "
         "offsets (E + 1) and an output C (T x N)");
  const int64_t T = g.a->dims[0], K = g.a->dims[1], E = g.b->dims[0], N = g.b->dims[1];
  if (g.b->dims[2] != K || g.offsets->dims[0] != E + 1 || g.c->dims[0] != T || g.c->dims[1] != N)
    fail("grouped_matmul: shapes do not match C[T, N] = A[T, K] . B[e, N, K]^T with E + 1 "
         "offsets");
  return g;
}

// Replaces the random contents of the offsets by a partition of A's rows
// among the experts (ar::grouped_offsets: uneven, some experts empty).
void fill_grouped_offsets(const std::vector<TensorSpec> &specs, TensorSet &set, uint64_t seed) {
  const GroupedTensors g = grouped_tensors(specs);
  const std::vector<int64_t> offsets =
      ar::grouped_offsets(g.offsets->dims[0] - 1, g.a->dims[0], seed);
  const DeviceBuffer &buf = *set.buffers[size_t(g.offsets - specs.data())];
  std::vector<unsigned char> host(buf.bytes, 0);
  for (size_t e = 0; e < offsets.size(); ++e)
    ar::store_from_double(host.data(), g.offsets->dtype, size_t(e * size_t(g.offsets->strides[0])),
                          double(offsets[e]));
  check_cuda(cudaMemcpy(buf.ptr, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
}

// Outputs replaced by fresh poisoned buffers, inputs shared: for a reference kernel.
TensorSet reference_set(const std::vector<TensorSpec> &specs, const TensorSet &base) {
  set_stage("alloc");
  TensorSet s;
  s.args = base.args;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!specs[i].output) {
      s.buffers.push_back(nullptr);
      continue;
    }
    auto buf = std::make_unique<DeviceBuffer>(specs[i].bytes);
    check_cuda(cudaMemset(buf->ptr, ar::poison_byte(specs[i].dtype), buf->bytes), "cudaMemset");
    s.args[size_t(specs[i].param)].data = buf->ptr;
    s.buffers.push_back(std::move(buf));
  }
  return s;
}

std::vector<unsigned char> to_host(const DeviceBuffer &buf) {
  std::vector<unsigned char> host(buf.bytes);
  check_cuda(cudaMemcpy(host.data(), buf.ptr, buf.bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  return host;
}

void synchronize(const char *what) {
  check_cuda(cudaGetLastError(), what);
  check_cuda(cudaDeviceSynchronize(), what);
}

// Launches; returns the launcher's code (its message in `message`).
int launch(const ArgusKernelInfo &k, const std::vector<ArgusArg> &args, std::string &message) {
  char error[2048] = {0};
  const int rc = argus_launch(k.name, args.data(), int(args.size()), nullptr, error, sizeof error);
  error[sizeof error - 1] = 0;
  message = error;
  return rc;
}

// One launch of a bench's sequence: its before= kernels in order, then `k`
// (a refusal or failure of any of them is the sequence's).
int launch_sequence(const Plan &plan, const ArgusKernelInfo &k, const std::vector<ArgusArg> &args,
                    std::string &message) {
  for (const ArgusKernelInfo *b : plan.before) {
    const int rc = launch(*b, args, message);
    if (rc != 0) {
      message = std::string(b->name) + " (run before " + k.name + "): " + message;
      return rc;
    }
  }
  return launch(k, args, message);
}

bool same_signature(const ArgusKernelInfo &a, const ArgusKernelInfo &b) {
  if (a.nparams != b.nparams)
    return false;
  for (int p = 0; p < a.nparams; ++p) {
    const ArgusParamInfo &x = a.params[p], &y = b.params[p];
    if (x.kind != y.kind || std::string(x.dtype) != y.dtype || x.rank != y.rank ||
        x.is_output != y.is_output)
      return false;
  }
  return true;
}

// Reference values of each output (logical order), from the builtin matmul or a kernel.
std::vector<std::vector<double>> reference_values(const ArtifactInfo &info, const Plan &plan,
                                                  const std::vector<TensorSpec> &specs,
                                                  const TensorSet &set) {
  set_stage("reference");
  std::vector<std::vector<double>> values(specs.size());
  if (plan.reference == "matmul") {
    const TensorSpec *a = nullptr, *b = nullptr, *c = nullptr;
    size_t c_index = 0;
    for (size_t i = 0; i < specs.size(); ++i) {
      const TensorSpec &t = specs[i];
      if (!t.output && !a)
        a = &t;
      else if (!t.output && !b)
        b = &t;
      else if (t.output && !c) {
        c = &t;
        c_index = i;
      }
    }
    if (!a || !b || !c || a->dims.size() != 2 || b->dims.size() != 2 || c->dims.size() != 2)
      fail("the builtin matmul reference needs two rank-2 input tensors and a rank-2 output");
    const int64_t M = a->dims[0], K = a->dims[1], N = b->dims[0];
    if (b->dims[1] != K || c->dims[0] != M || c->dims[1] != N)
      fail("matmul: shapes do not match C[M, N] = A[M, K] . B[N, K]^T");
    DeviceBuffer out(size_t(M * N) * sizeof(double));
    const dim3 block(kRefTile, kRefTile);
    const dim3 grid(unsigned((N + kRefTile - 1) / kRefTile),
                    unsigned((M + kRefTile - 1) / kRefTile));
    reference_matmul<<<grid, block>>>(set.args[size_t(a->param)].data, int(a->dtype), a->strides[0],
                                      a->strides[1], set.args[size_t(b->param)].data, int(b->dtype),
                                      b->strides[0], b->strides[1], static_cast<double *>(out.ptr),
                                      M, N, K);
    synchronize("the builtin matmul reference");
    std::vector<double> host(size_t(M * N));
    check_cuda(cudaMemcpy(host.data(), out.ptr, out.bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    values[c_index] = std::move(host);
    return values;
  }
  if (plan.reference == "attention" || plan.reference == "attention_causal") {
    // Per (batch, head): scores = Q.K^T, P = softmax(scores / sqrt(D)), O = P.V, in double.
    const TensorSpec *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr;
    size_t o_index = 0;
    for (size_t i = 0; i < specs.size(); ++i) {
      const TensorSpec &t = specs[i];
      if (t.dims.size() != 4)
        continue;
      if (!t.output && !q)
        q = &t;
      else if (!t.output && !k)
        k = &t;
      else if (!t.output && !v)
        v = &t;
      else if (t.output && !o) {
        o = &t;
        o_index = i;
      }
    }
    if (!q || !k || !v || !o)
      fail("the builtin " + plan.reference +
           " reference needs inputs Q, K, V and an output O, each B x H x S x D");
    const int64_t B = q->dims[0], H = q->dims[1], S = q->dims[2], D = q->dims[3];
    for (const TensorSpec *t : {k, v, o})
      if (t->dims != q->dims)
        fail(plan.reference + ": Q, K, V and O must have one shape B x H x S x D");
    DeviceBuffer scores(size_t(std::max<int64_t>(S * S, 1)) * sizeof(double));
    DeviceBuffer out(size_t(std::max<int64_t>(B * H * S * D, 1)) * sizeof(double));
    const int qb = ar::dtype_info(q->dtype).bytes, kb = ar::dtype_info(k->dtype).bytes,
              vb = ar::dtype_info(v->dtype).bytes;
    const dim3 block(kRefTile, kRefTile);
    const unsigned tiles_s = unsigned((S + kRefTile - 1) / kRefTile);
    const unsigned tiles_d = unsigned((D + kRefTile - 1) / kRefTile);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h) {
        const auto at = [&](const TensorSpec &t, int bytes) {
          return static_cast<const unsigned char *>(set.args[size_t(t.param)].data) +
                 (b * t.strides[0] + h * t.strides[1]) * bytes;
        };
        auto *sc = static_cast<double *>(scores.ptr);
        reference_matmul<<<dim3(tiles_s, tiles_s), block>>>(
            at(*q, qb), int(q->dtype), q->strides[2], q->strides[3], at(*k, kb), int(k->dtype),
            k->strides[2], k->strides[3], sc, S, S, D);
        reference_softmax_rows<<<unsigned((S + 127) / 128), 128>>>(
            sc, S, S, 1.0 / std::sqrt(double(D)), plan.reference == "attention_causal");
        // O[s, d] = Σ_j P[s, j] · V[j, d]: B[n = d, k = j] is V with its strides swapped.
        reference_matmul<<<dim3(tiles_d, tiles_s), block>>>(
            sc, int(ar::DType::F64), S, 1, at(*v, vb), int(v->dtype), v->strides[3], v->strides[2],
            static_cast<double *>(out.ptr) + (b * H + h) * S * D, S, D, S);
      }
    synchronize(("the builtin " + plan.reference + " reference").c_str());
    std::vector<double> host(size_t(B * H * S * D));
    check_cuda(
        cudaMemcpy(host.data(), out.ptr, host.size() * sizeof(double), cudaMemcpyDeviceToHost),
        "cudaMemcpy");
    values[o_index] = std::move(host);
    return values;
  }
  if (plan.reference == "grouped_matmul") {
    // One matmul reference per expert, on its rows (offsets read back).
    const GroupedTensors g = grouped_tensors(specs);
    const int64_t T = g.a->dims[0], K = g.a->dims[1], E = g.b->dims[0], N = g.b->dims[1];
    const std::vector<unsigned char> raw = to_host(*set.buffers[size_t(g.offsets - specs.data())]);
    std::vector<int64_t> offsets(size_t(E + 1));
    for (int64_t e = 0; e <= E; ++e)
      offsets[size_t(e)] = int64_t(
          ar::load_as_double(raw.data(), g.offsets->dtype, size_t(e * g.offsets->strides[0])));
    DeviceBuffer out(size_t(std::max<int64_t>(T * N, 1)) * sizeof(double));
    const int a_bytes = ar::dtype_info(g.a->dtype).bytes,
              b_bytes = ar::dtype_info(g.b->dtype).bytes;
    for (int64_t e = 0; e < E; ++e) {
      const int64_t first = offsets[size_t(e)], rows = offsets[size_t(e + 1)] - first;
      if (first < 0 || rows < 0 || first + rows > T)
        fail("grouped_matmul: the offsets are not a partition of the rows");
      if (rows == 0)
        continue;
      const dim3 block(kRefTile, kRefTile);
      const dim3 grid(unsigned((N + kRefTile - 1) / kRefTile),
                      unsigned((rows + kRefTile - 1) / kRefTile));
      const auto *a = static_cast<const unsigned char *>(set.args[size_t(g.a->param)].data) +
                      first * g.a->strides[0] * a_bytes;
      const auto *b = static_cast<const unsigned char *>(set.args[size_t(g.b->param)].data) +
                      e * g.b->strides[0] * b_bytes;
      reference_matmul<<<grid, block>>>(a, int(g.a->dtype), g.a->strides[0], g.a->strides[1], b,
                                        int(g.b->dtype), g.b->strides[1], g.b->strides[2],
                                        static_cast<double *>(out.ptr) + first * N, rows, N, K);
    }
    synchronize("the builtin grouped_matmul reference");
    std::vector<double> host(size_t(T * N));
    check_cuda(
        cudaMemcpy(host.data(), out.ptr, host.size() * sizeof(double), cudaMemcpyDeviceToHost),
        "cudaMemcpy");
    values[g.c_index] = std::move(host);
    return values;
  }
  const ArgusKernelInfo *ref = find_kernel(info, plan.reference);
  if (!ref)
    fail("the reference '" + plan.reference + "' is neither a kernel of the artifact nor builtin");
  if (!same_signature(*ref, *plan.kernel))
    fail("the reference kernel " + plan.reference + " has another parameter list than " +
         plan.kernel->name);
  TensorSet rs = reference_set(specs, set);
  set_stage("reference");
  std::string message;
  const int rc = launch(*ref, rs.args, message);
  if (rc != 0)
    fail("the reference kernel " + plan.reference + " did not launch (code " + std::to_string(rc) +
         "): " + message);
  synchronize("the reference kernel");
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!specs[i].output)
      continue;
    const std::vector<unsigned char> host = to_host(*rs.buffers[i]);
    const std::vector<int64_t> offsets = ar::logical_offsets(specs[i].dims, specs[i].strides);
    std::vector<double> v;
    v.reserve(offsets.size());
    for (int64_t off : offsets)
      v.push_back(ar::is_poison(host.data(), specs[i].dtype, size_t(off))
                      ? std::numeric_limits<double>::quiet_NaN()
                      : ar::load_as_double(host.data(), specs[i].dtype, size_t(off)));
    values[i] = std::move(v);
  }
  return values;
}

struct Device {
  std::string name;
  uint64_t l2_bytes = 0;
  const ar::DevicePeak *peak = nullptr;
};

std::string run_plan(const ArtifactInfo &info, const Plan &plan, const ar::Options &o,
                     const Device &dev, bool &ok) {
  const ArgusKernelInfo &k = *plan.kernel;
  g_kernel.store(k.name);
  ar::Result r;
  r.kernel = k.name;
  r.device = dev.name;
  r.reference = plan.reference;

  std::vector<ArgusArg> scalars = make_args(k, plan.sizes);
  for (int p = 0; p < k.nparams; ++p)
    if (k.params[p].kind != ARGUS_ARG_TENSOR)
      r.sizes.emplace_back(k.params[p].name, k.params[p].kind == ARGUS_ARG_INT
                                                 ? double(scalars[size_t(p)].int_value)
                                                 : scalars[size_t(p)].float_value);
  const std::vector<TensorSpec> specs = tensor_specs(k, scalars);
  double matmul_flops = 0; // 2·M·N·K from the first two inputs (A: M x K, B: N x K)
  {
    std::vector<const TensorSpec *> inputs;
    for (const TensorSpec &t : specs)
      if (!t.output)
        inputs.push_back(&t);
    if (inputs.size() >= 2 && inputs[0]->dims.size() == 2 && inputs[1]->dims.size() == 2)
      matmul_flops = 2.0 * double(inputs[0]->dims[0]) * double(inputs[1]->dims[0]) *
                     double(inputs[0]->dims[1]);
  }
  uint64_t working_set = 0;
  std::vector<ar::DType> dtypes;
  std::optional<ar::DType> narrowest_input;
  for (const TensorSpec &t : specs) {
    working_set += t.bytes;
    dtypes.push_back(t.dtype);
    if (!t.output && ar::dtype_info(t.dtype).is_float &&
        (!narrowest_input ||
         ar::dtype_info(t.dtype).bytes < ar::dtype_info(*narrowest_input).bytes))
      narrowest_input = t.dtype;
  }
  r.tolerance = ar::tolerance_for(dtypes);
  size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (2 * working_set + (64u << 20) > free_bytes)
    fail("the tensors need " + std::to_string(working_set) +
         " bytes (twice, with the reference); " + std::to_string(free_bytes) + " are free");

  TensorSet set = make_set(specs, scalars, o.seed, 0);
  if (plan.reference == "grouped_matmul")
    fill_grouped_offsets(specs, set, mix_seed(o.seed, 0, 0x0ff5e7));

  // The kernel first: a refusal needs no reference.
  set_stage("launch");
  std::string message;
  for (const ArgusKernelInfo *b : plan.before)
    if (b->nparams != k.nparams)
      fail(std::string("the kernel ") + b->name + " run before " + k.name +
           " has another parameter list");
  const int rc = launch_sequence(plan, k, set.args, message);
  if (rc == kLaunchAssumeFailed || rc == kLaunchInvalidArgument) {
    if (!o.expect_refusal)
      fail("the launcher refused (code " + std::to_string(rc) + "): " + message);
    r.refused = true;
    r.refusal = message;
    ok = true;
    return ar::to_json(r);
  }
  if (rc != 0)
    fail("the launcher failed (code " + std::to_string(rc) + "): " + message);
  set_stage("kernel");
  synchronize("the kernel");
  if (o.expect_refusal)
    fail("expected the launcher to refuse these sizes, but it launched the kernel");
  for (const TensorSpec &t : specs)
    if (t.span == 0)
      fail("the launcher accepted a tensor with an empty or negative shape");

  // Compare every output.
  bool correct = true;
  double worst = 0.0;
  if (!plan.reference.empty()) {
    const std::vector<std::vector<double>> ref = reference_values(info, plan, specs, set);
    set_stage("compare");
    for (size_t i = 0; i < specs.size(); ++i) {
      if (!specs[i].output || (!find_kernel(info, plan.reference) && ref[i].empty()))
        continue;
      const std::vector<unsigned char> host = to_host(*set.buffers[i]);
      const ar::Comparison c =
          ar::compare(host.data(), specs[i].dtype,
                      ar::logical_offsets(specs[i].dims, specs[i].strides), ref[i], r.tolerance);
      worst = std::max(worst, std::isfinite(c.error) ? c.error : worst);
      if (!c.correct && correct) {
        correct = false;
        r.why = std::string(k.params[specs[i].param].name) + ": " + c.why;
      }
    }
    r.error = worst;
  } else {
    // No reference: every output element must still be written and finite.
    set_stage("compare");
    for (size_t i = 0; i < specs.size(); ++i) {
      if (!specs[i].output)
        continue;
      const std::vector<unsigned char> host = to_host(*set.buffers[i]);
      int64_t bad = 0;
      for (int64_t off : ar::logical_offsets(specs[i].dims, specs[i].strides)) {
        const double v = ar::load_as_double(host.data(), specs[i].dtype, size_t(off));
        bad += ar::is_poison(host.data(), specs[i].dtype, size_t(off)) || !std::isfinite(v);
      }
      if (bad && correct) {
        correct = false;
        r.why = std::string(k.params[specs[i].param].name) + ": " + std::to_string(bad) +
                " elements unwritten, NaN or Inf (no reference to compare with)";
      }
    }
  }
  r.correct = correct;

  // Time, rotating among input sets when one set would sit in L2.
  if (!o.no_timing) {
    set_stage("timing");
    const uint64_t budget = std::min<uint64_t>(free_bytes / 2, uint64_t(8) << 30);
    const int nsets = ar::rotation_sets(working_set, dev.l2_bytes, budget);
    std::vector<TensorSet> sets;
    sets.push_back(std::move(set));
    for (int s = 1; s < nsets; ++s) {
      sets.push_back(make_set(specs, scalars, o.seed, s));
      if (plan.reference == "grouped_matmul")
        fill_grouped_offsets(specs, sets.back(), mix_seed(o.seed, uint64_t(s), 0x0ff5e7));
    }
    set_stage("timing");
    r.input_sets = nsets;
    auto timed_launch = [&](int i) {
      std::string msg;
      const int code = launch_sequence(plan, k, sets[size_t(i % nsets)].args, msg);
      if (code != 0)
        fail("the launcher failed while timing (code " + std::to_string(code) + "): " + msg);
    };
    for (int i = 0; i < o.warmup; ++i)
      timed_launch(i);
    synchronize("the warm-up runs");
    std::vector<cudaEvent_t> events(size_t(2 * o.iters));
    for (auto &e : events)
      check_cuda(cudaEventCreate(&e), "cudaEventCreate");
    for (int i = 0; i < o.iters; ++i) {
      check_cuda(cudaEventRecord(events[size_t(2 * i)]), "cudaEventRecord");
      timed_launch(i);
      check_cuda(cudaEventRecord(events[size_t(2 * i + 1)]), "cudaEventRecord");
    }
    synchronize("the timed runs");
    std::vector<double> ms;
    for (int i = 0; i < o.iters; ++i) {
      float t = 0;
      check_cuda(cudaEventElapsedTime(&t, events[size_t(2 * i)], events[size_t(2 * i + 1)]),
                 "cudaEventElapsedTime");
      ms.push_back(t);
    }
    for (auto &e : events)
      (void)cudaEventDestroy(e);
    r.timing = ar::summarize(ms);
  }
  // Rates: the @bench's flops/bytes at its own sizes; at other sizes 2·M·N·K
  // for a matmul, and otherwise the bytes of every tensor read or written once.
  const bool at_bench_sizes = [&] {
    for (const auto &s : plan.sizes) {
      auto it = std::find_if(plan.bench_sizes.begin(), plan.bench_sizes.end(),
                             [&](const auto &b) { return b.first == s.first; });
      if (it == plan.bench_sizes.end() || it->second != s.second)
        return false;
    }
    return true;
  }();
  if (at_bench_sizes && plan.flops > 0)
    r.flops = plan.flops;
  if (at_bench_sizes && plan.bytes > 0)
    r.bytes = plan.bytes;
  if (!at_bench_sizes && plan.reference == "matmul" && matmul_flops > 0)
    r.flops = matmul_flops;
  if (!r.flops && !r.bytes) {
    double total = 0;
    for (const TensorSpec &t : specs)
      total += double(ar::logical_elements(t.dims)) * ar::dtype_info(t.dtype).bytes;
    r.bytes = total;
  }
  if (dev.peak) {
    r.peak_tflops = ar::peak_tflops(*dev.peak, narrowest_input.value_or(ar::DType::BF16));
    r.peak_gbps = dev.peak->bandwidth_gbps;
  }
  ok = correct;
  return ar::to_json(r);
}

} // namespace

#if defined(ARGUS_RUNNER_HIP)
// The launchers of a gfx942 artifact built with ARGUS_HIP_MODULE call this:
// the code object ($ARGUS_CODE_OBJECT, set by the argus-runner script) is
// loaded once, each kernel looked up once.
extern "C" hipError_t argus_hip_module_launch(const char *kernel, dim3 grid, dim3 block,
                                              unsigned shared_bytes, hipStream_t stream,
                                              void **params) {
  static hipModule_t module = nullptr;
  static std::vector<std::pair<std::string, hipFunction_t>> functions;
  if (!module) {
    const char *path = std::getenv("ARGUS_CODE_OBJECT");
    if (!path || !*path)
      fail("ARGUS_CODE_OBJECT is not set: the runner needs the artifact's kernels.hsaco");
    std::FILE *f = std::fopen(path, "rb");
    if (!f)
      fail(std::string("cannot read the code object ") + path);
    std::vector<char> image;
    char chunk[65536];
    for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;)
      image.insert(image.end(), chunk, chunk + n);
    std::fclose(f);
    const hipError_t loaded = hipModuleLoadData(&module, image.data());
    if (loaded != hipSuccess)
      return loaded;
  }
  hipFunction_t function = nullptr;
  for (const auto &[name, fn] : functions)
    if (name == kernel)
      function = fn;
  if (!function) {
    const hipError_t found = hipModuleGetFunction(&function, module, kernel);
    if (found != hipSuccess)
      return found;
    functions.emplace_back(kernel, function);
  }
  return hipModuleLaunchKernel(function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                               shared_bytes, stream, params, nullptr);
}
#endif

int main(int argc, char **argv) {
  ar::Options o;
  const std::string usage = ar::parse_options(std::vector<std::string>(argv + 1, argv + argc), o);
  if (o.help) {
    std::fputs(ar::kUsage, stdout);
    return 0;
  }
  if (!usage.empty()) {
    set_stage("usage");
    std::fputs((ar::error_json("usage", usage) + "\n").c_str(), stdout);
    std::fputs(ar::kUsage, stderr);
    return 2;
  }
  start_watchdog(o.timeout_s);

  const ArtifactInfo artifact = load_artifact();
  const ArtifactInfo *info = &artifact;
  const std::vector<Plan> plans = make_plans(*info, o);

  set_stage("device");
  int devices = 0;
  const cudaError_t counted = cudaGetDeviceCount(&devices);
  if (counted != cudaSuccess || devices == 0)
    fail(std::string("no " ARGUS_GPU_RUNTIME " device on this machine (") +
         (counted != cudaSuccess ? cudaGetErrorString(counted) : "0 devices") +
         "): run argus-runner on a GPU host");
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  Device dev;
  dev.name = prop.name;
  dev.l2_bytes = uint64_t(prop.l2CacheSize);
  dev.peak = ar::find_peak(dev.name);

  bool all_ok = true;
  for (const Plan &plan : plans) {
    bool ok = false;
    g_completed.push_back(run_plan(*info, plan, o, dev, ok));
    all_ok = all_ok && ok;
  }

  std::lock_guard<std::timed_mutex> lock(g_print_mutex);
  std::string out;
  if (g_completed.size() == 1) {
    out = g_completed[0];
  } else {
    out = "[";
    for (size_t i = 0; i < g_completed.size(); ++i)
      out += (i ? ",\n " : "") + g_completed[i];
    out += "]";
  }
  std::fputs((out + "\n").c_str(), stdout);
  std::fflush(stdout);
  _exit(all_ok ? 0 : 1);
}
