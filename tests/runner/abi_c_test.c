/* artifact_abi.h compiles as strict C99, and a table written the way generated
 * code writes it is what the runner reads (abi_test.cpp checks it). The
 * functions get a test_ prefix: the real names belong to an artifact. */
#include "argus/runner/artifact_abi.h"

#include <string.h>

static const ArgusParamInfo c_params[] = {
    {"X", ARGUS_ARG_TENSOR, "f32", 0, 1, 0},
    {"Y", ARGUS_ARG_TENSOR, "f32", 1, 1, 0},
    {"N", ARGUS_ARG_INT, "i32", 0, 0, 0},
};
static const ArgusKernelInfo c_kernels[] = {{"copy", 3, c_params}};
static const char *const c_size_names[] = {"N"};
static const int64_t c_size_values[] = {1000};
static const ArgusBenchInfo c_benches[] = {
    {"copy", "copy_ref", 1, c_size_names, c_size_values, 0.0, 8000.0, NULL}};

int test_artifact_kernels(const ArgusKernelInfo **out);
int test_artifact_benches(const ArgusBenchInfo **out);
int test_tensor_shape(const char *kernel, int param, const int64_t *scalars, int64_t *shape,
                      int64_t *strides);

int test_artifact_kernels(const ArgusKernelInfo **out) {
  *out = c_kernels;
  return 1;
}

int test_artifact_benches(const ArgusBenchInfo **out) {
  *out = c_benches;
  return 1;
}

int test_tensor_shape(const char *kernel, int param, const int64_t *scalars, int64_t *shape,
                      int64_t *strides) {
  if (strcmp(kernel, "copy") != 0 || (param != 0 && param != 1))
    return 1;
  shape[0] = scalars[0];
  strides[0] = 1;
  return scalars[0] > 0 ? 0 : 1;
}
