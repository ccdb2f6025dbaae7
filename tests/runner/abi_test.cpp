// The artifact ABI as the runner reads it: tables written in C
// (abi_c_test.c), the shape function, and the embedded copy of the header
// that `argus compile` writes into artifacts.
#include "argus/runner/artifact_abi.h"
#include "argus/runner/artifact_abi_text.h"
#include "argus/runner/core.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

extern "C" {
int test_artifact_kernels(const ArgusKernelInfo **out);
int test_artifact_benches(const ArgusBenchInfo **out);
int test_tensor_shape(const char *kernel, int param, const int64_t *scalars, int64_t *shape,
                      int64_t *strides);
}

namespace {

namespace ar = argus::runner;

TEST(ArtifactAbi, TablesWrittenInCAreReadable) {
  const ArgusKernelInfo *kernels = nullptr;
  ASSERT_EQ(test_artifact_kernels(&kernels), 1);
  const ArgusKernelInfo &k = kernels[0];
  EXPECT_STREQ(k.name, "copy");
  ASSERT_EQ(k.nparams, 3);
  for (int p = 0; p < k.nparams; ++p)
    EXPECT_NE(ar::find_dtype(k.params[p].dtype), nullptr) << k.params[p].dtype;
  EXPECT_EQ(k.params[1].is_output, 1);
  EXPECT_EQ(k.params[1].rank, 1);

  const ArgusBenchInfo *benches = nullptr;
  ASSERT_EQ(test_artifact_benches(&benches), 1);
  const ArgusBenchInfo &b = benches[0];
  ASSERT_EQ(b.nsizes, 1);
  EXPECT_STREQ(b.size_names[0], "N");
  EXPECT_EQ(b.flops, 0.0);
  EXPECT_EQ(b.bytes, 8000.0);

  // The runner's use: scalars in parameter order, then shapes.
  const int64_t scalars[] = {b.size_values[0]};
  int64_t dims[1] = {0}, strides[1] = {0};
  ASSERT_EQ(test_tensor_shape("copy", 1, scalars, dims, strides), 0);
  EXPECT_EQ(dims[0], 1000);
  EXPECT_EQ(strides[0], 1);
  EXPECT_NE(test_tensor_shape("copy", 2, scalars, dims, strides), 0) << "a scalar has no shape";
  const int64_t zero[] = {0};
  EXPECT_NE(test_tensor_shape("copy", 0, zero, dims, strides), 0) << "a dimension is not positive";
}

TEST(ArtifactAbi, EmbeddedHeaderIsTheFile) {
  std::ifstream in(ARGUS_SOURCE_DIR "/codegen/runner/include/argus/runner/artifact_abi.h",
                   std::ios::binary);
  ASSERT_TRUE(in);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), std::string(ar::kArtifactAbiHeader));
  EXPECT_EQ(ar::kArtifactAbiFileName, "artifact_abi.h");
}

TEST(ArtifactAbi, ArgumentKinds) {
  EXPECT_EQ(ARGUS_ARG_TENSOR, 0);
  EXPECT_EQ(ARGUS_ARG_INT, 1);
  EXPECT_EQ(ARGUS_ARG_FLOAT, 2);
}

} // namespace
