// Compile drivers: ptxas -v parsing, compiler messages mapped to .argus
// lines, sha256, and a real nvcc error mapped through #line.
#include "argus/codegen/artifact.h"
#include "argus/codegen/codes.h"
#include "argus/codegen/compile.h"
#include "codegen_test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace argus::codegen {
namespace {

TEST(Ptxas, ParsesEveryEntryFunction) {
  const std::string output = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'gemm_tiled' for 'sm_90a'
ptxas info    : Function properties for gemm_tiled
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 92 registers, used 1 barriers, 8704 bytes smem
ptxas info    : Compile time = 14.020 ms
ptxas info    : Compiling entry function 'k2' for 'sm_90a'
ptxas info    : Function properties for k2
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers, 400 bytes cmem[0]
)";
  const auto kernels = parse_ptxas_verbose(output);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "gemm_tiled");
  EXPECT_EQ(kernels[0].registers, 92);
  EXPECT_EQ(kernels[0].shared_bytes, 8704);
  EXPECT_EQ(kernels[0].barriers, 1);
  EXPECT_EQ(kernels[0].spill_store_bytes, 0);
  EXPECT_EQ(kernels[1].name, "k2");
  EXPECT_EQ(kernels[1].registers, 255);
  EXPECT_EQ(kernels[1].stack_bytes, 16);
  EXPECT_EQ(kernels[1].spill_store_bytes, 8);
  EXPECT_EQ(kernels[1].spill_load_bytes, 4);
  EXPECT_EQ(kernels[1].shared_bytes, 0);
  EXPECT_TRUE(parse_ptxas_verbose("garbage\n(12): error\n").empty());
}

// cuobjdump -sass: the families of interest counted per function, with
// predicated instructions and dotted opcodes; other opcodes are not counted.
TEST(Sass, MixCountsTheFamiliesPerFunction) {
  const std::string output = R"sass(
	code for sm_90a
		Function : gemm_tma_wgmma_sm90
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                         /* 0x00000a00ff017b82 */
        /*0010*/              @!P0 SYNCS.EXCH.64 URZ, [UR4], UR6 ;               /* 0x000000ff00ff09a7 */
        /*0020*/                   UTMALDG.2D [UR8], [UR10], desc[UR12] ;      /* 0x0000000008007fb4 */
        /*0030*/                   WARPGROUP.ARRIVE ;                            /* 0x0000000000007f7c */
        /*0040*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24 ;
        /*0050*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR8], R24, gsb0 ;
        /*0060*/              @P1 SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R2 ;
        /*0070*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0074*/                   UTMALDG.2D.MULTICAST [UR8], [UR10], UR5, desc[UR12] ;
        /*0078*/                   UCGABAR_ARV ;
        /*007c*/                   UCGABAR_WAIT ;
        /*0080*/                   EXIT ;
		Function : transpose
        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;
        /*0010*/                   STS [R5], R2 ;
        /*0020*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
)sass";
  const auto mix = parse_sass_mix(output);
  ASSERT_EQ(mix.size(), 2u);
  const auto &tma = mix.at("gemm_tma_wgmma_sm90");
  EXPECT_EQ(tma.at("HGMMA"), 2);
  EXPECT_EQ(tma.at("UTMALDG"), 2); // one of them multicast
  EXPECT_EQ(tma.at("UCGABAR_ARV"), 1);
  EXPECT_EQ(tma.at("UCGABAR_WAIT"), 1);
  EXPECT_EQ(tma.at("SYNCS"), 2);
  EXPECT_EQ(tma.at("WARPGROUP"), 1);
  EXPECT_EQ(tma.at("BAR"), 1);
  EXPECT_EQ(tma.at("LDGSTS"), 0);
  EXPECT_EQ(tma.count("LDC"), 0u);
  EXPECT_EQ(mix.at("transpose").at("BAR"), 1);
  EXPECT_EQ(mix.at("transpose").at("HGMMA"), 0);
  EXPECT_TRUE(parse_sass_mix("no functions here\n/*0000*/ HGMMA ;\n").empty());
}

TEST(CompilerMessages, MapToArgusLines) {
  const std::string output =
      "examples/x.argus(12): error: identifier \"q\" is undefined\n"
      "examples/x.argus(3): warning #177-D: variable \"v\" was declared but never referenced\n"
      "kernels.cu(80): error: something in the scaffolding\n"
      "examples/x.argus:7:5: error: no matching function\n"
      "1 error detected in the compilation of \"kernels.cu\".\n";
  const auto d = map_compiler_messages(output, "examples/x.argus");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].code, codes::kDeviceCompileError);
  EXPECT_EQ(d[0].severity, Severity::Error);
  EXPECT_EQ(d[0].range.begin.line, 11u);
  EXPECT_NE(d[0].message.find("identifier \"q\" is undefined"), std::string::npos);
  EXPECT_EQ(d[1].code, codes::kDeviceCompileWarning);
  EXPECT_EQ(d[1].range.begin.line, 2u);
  EXPECT_EQ(d[2].range.begin.line, 6u);
  EXPECT_EQ(d[2].range.begin.column, 4u);
}

TEST(Artifact, Sha256AndDefaultDirectory) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
  EXPECT_EQ(default_artifact_dir("examples/gemm_tiled.argus", GpuTarget::Sm90), "gemm_tiled.sm90");
  EXPECT_EQ(default_artifact_dir("k.argus", GpuTarget::Gfx942), "k.gfx942");
}

TEST(Nvcc, ErrorsInsideTheArgusFileBecomeDiagnostics) {
  const auto nvcc = find_nvcc();
  if (!nvcc)
    GTEST_SKIP() << "nvcc not found";
  const std::string dir = test::temp_dir("argus-nvcc-error");
  const std::string source = dir + "/kernels.cu";
  {
    std::ofstream out(source);
    out << "__global__ void k(float *x) {\n#line 5 \"bad.argus\"\n  x[0] = undefined_name;\n}\n";
  }
  const CompileReport report = compile_sm90(*nvcc, source, dir + "/kernels.cubin", "bad.argus");
  EXPECT_FALSE(report.ok);
  ASSERT_FALSE(report.diagnostics.empty()) << report.output;
  EXPECT_EQ(report.diagnostics[0].code, codes::kDeviceCompileError);
  EXPECT_EQ(report.diagnostics[0].range.begin.line, 4u);
  EXPECT_NE(report.diagnostics[0].message.find("undefined_name"), std::string::npos);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

} // namespace
} // namespace argus::codegen
