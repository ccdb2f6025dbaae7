/* The C ABI between generated kernels.cu / kernels.hip and argus-runner.
 *
 * The generated code includes this header and defines the functions below, so
 * the runner learns the kernels, their parameters, tensor shapes and bench
 * specs from compiled code: it reads no JSON and parses no expressions (the
 * GPU host has only the GPU runtime and the C++ standard library).
 * meta.json / bench.json carry the same facts for people and for `argus`.
 */
#ifndef ARGUS_RUNNER_ARTIFACT_ABI_H
#define ARGUS_RUNNER_ARTIFACT_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ArgusArgKind { ARGUS_ARG_TENSOR = 0, ARGUS_ARG_INT = 1, ARGUS_ARG_FLOAT = 2 };

/* dtype names as in Argus: "bf16", "f32", "i32", ... */
typedef struct {
  const char *name;
  int kind; /* ArgusArgKind */
  const char *dtype;
  int is_output;       /* tensors the kernel stores into */
  int rank;            /* tensors: number of dims; scalars: 0 */
  int default_num_sms; /* `P: i32 = num_sms()`: the device's SM count when not given */
} ArgusParamInfo;

typedef struct {
  const char *name;
  int nparams;
  const ArgusParamInfo *params;
} ArgusKernelInfo;

typedef struct {
  const char *kernel;
  const char *reference; /* a kernel of this artifact, or "matmul" */
  int nsizes;
  const char *const *size_names; /* scalar parameter names */
  const int64_t *size_values;
  double flops; /* 0 when not given */
  double bytes; /* 0 when not given */
  /* Kernels of this artifact with the same parameters, comma-separated,
   * launched in order before `kernel` each time it runs (and timed with it);
   * NULL when none. */
  const char *before;
} ArgusBenchInfo;

typedef struct {
  const char *name;
  int kind;   /* ArgusArgKind */
  void *data; /* tensors: device pointer */
  int64_t int_value;
  double float_value;
} ArgusArg;

/* Tables with static storage; each returns the element count. */
int argus_artifact_kernels(const ArgusKernelInfo **kernels);
int argus_artifact_benches(const ArgusBenchInfo **benches);

/* Shape and strides (in elements) of tensor parameter `param_index` of `kernel`,
 * given the values of ALL the kernel's scalar parameters in parameter order
 * (`scalars[i]` is the i-th scalar parameter). Writes `rank` values to each
 * output. Returns 0, or non-zero when the kernel/param is unknown or a dim is
 * not positive. */
int argus_tensor_shape(const char *kernel, int param_index, const int64_t *scalars,
                       int64_t *shape_out, int64_t *strides_out);

/* Checks every assume(...) and size of `kernel` and launches it on `stream`
 * (a cudaStream_t / hipStream_t). Arguments in parameter order. Returns 0 on
 * launch; 1 an assume fails, 2 an invalid size or argument, 3 unknown kernel,
 * 4 the launch failed; `error` gets the message. Never launches on failure. */
int argus_launch(const char *kernel, const ArgusArg *args, int nargs, void *stream, char *error,
                 size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
