// The sm90 compile: nvcc as a subprocess, ptxas -v parsed per kernel, and
// compiler messages mapped back to .argus lines through #line.
#include "argus/codegen/codes.h"
#include "argus/codegen/compile.h"
#include "argus/codegen/spawn.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace argus::codegen {

namespace {

bool is_executable(const std::string &path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0 &&
         std::filesystem::is_regular_file(path);
}

} // namespace

std::optional<std::string> find_nvcc() {
  if (const char *env = std::getenv("ARGUS_NVCC"); env && *env) {
    if (is_executable(env))
      return std::string(env);
    return std::nullopt;
  }
  if (const char *path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (dir.empty())
        continue;
      const std::string candidate = dir + "/nvcc";
      if (is_executable(candidate))
        return candidate;
    }
  }
  for (const char *candidate : {"/usr/local/cuda/bin/nvcc", "/opt/cuda/bin/nvcc"})
    if (is_executable(candidate))
      return std::string(candidate);
  return std::nullopt;
}

std::vector<KernelResources> parse_ptxas_verbose(std::string_view output) {
  std::vector<KernelResources> kernels;
  std::string props_for;
  KernelResources *current = nullptr;
  static const std::regex compiling(R"(Compiling entry function '([^']+)')");
  static const std::regex properties(R"(Function properties for ([A-Za-z_$][\w$]*))");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::istringstream lines{std::string(output)};
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, compiling)) {
      kernels.push_back(KernelResources{});
      kernels.back().name = m[1];
      current = &kernels.back();
      continue;
    }
    if (std::regex_search(line, m, properties)) {
      props_for = m[1];
      continue;
    }
    if (std::regex_search(line, m, frame)) {
      for (KernelResources &k : kernels) {
        if (k.name == props_for) {
          k.stack_bytes = std::stoll(m[1]);
          k.spill_store_bytes = std::stoll(m[2]);
          k.spill_load_bytes = std::stoll(m[3]);
        }
      }
      continue;
    }
    if (current && std::regex_search(line, m, used)) {
      current->registers = std::stoi(m[1]);
      if (std::regex_search(line, m, barriers))
        current->barriers = std::stoi(m[1]);
      if (std::regex_search(line, m, smem))
        current->shared_bytes = std::stoll(m[1]);
    }
  }
  return kernels;
}

std::vector<Diagnostic> map_compiler_messages(std::string_view output,
                                              std::string_view argus_path) {
  std::vector<Diagnostic> out;
  // nvcc (EDG): "path(12): error: message" or "path(12): warning #177-D: message"
  static const std::regex edg(R"(^(.+)\((\d+)\): (error|warning|remark)( #[\w-]+)?: (.*)$)");
  // clang: "path:12:3: error: message"
  static const std::regex clang(R"(^(.+):(\d+):(\d+): (error|warning|fatal error): (.*)$)");
  std::istringstream lines{std::string(output)};
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    std::string file;
    uint32_t line_number = 0;
    uint32_t column = 0;
    std::string kind;
    std::string message;
    if (std::regex_match(line, m, edg)) {
      file = m[1];
      line_number = static_cast<uint32_t>(std::stoul(m[2]));
      kind = m[3];
      message = m[5];
    } else if (std::regex_match(line, m, clang)) {
      file = m[1];
      line_number = static_cast<uint32_t>(std::stoul(m[2]));
      column = static_cast<uint32_t>(std::stoul(m[3]));
      kind = m[4];
      message = m[5];
    } else {
      continue;
    }
    if (file != argus_path || kind == "remark" || line_number == 0)
      continue;
    Diagnostic d;
    const bool is_error = kind != "warning";
    d.severity = is_error ? Severity::Error : Severity::Warning;
    d.code = std::string(is_error ? codes::kDeviceCompileError : codes::kDeviceCompileWarning);
    d.range.begin = Position{line_number - 1, column > 0 ? column - 1 : 0};
    d.range.end = d.range.begin;
    d.message = "device compiler: " + message;
    out.push_back(std::move(d));
  }
  return out;
}

namespace {

// The families a user checks to see whether a kernel got the hardware path
// it was written for: tensor cores (HGMMA: wgmma, HMMA: mma.sync), the TMA
// engine (UTMALDG/UTMASTG tensor copies, UBLKCP bulk copies), mbarriers and
// their waits (SYNCS), cp.async (LDGSTS), ldmatrix (LDSM), and barriers: of
// the block (BAR) and of a thread-block cluster (UCGABAR_ARV / _WAIT).
constexpr std::array<std::string_view, 12> kSassFamilies = {
    "HGMMA",  "HMMA", "UTMALDG", "UTMASTG",   "UBLKCP",      "SYNCS",
    "LDGSTS", "LDSM", "BAR",     "WARPGROUP", "UCGABAR_ARV", "UCGABAR_WAIT"};

} // namespace

std::map<std::string, std::map<std::string, int64_t>> parse_sass_mix(std::string_view output) {
  std::map<std::string, std::map<std::string, int64_t>> mix;
  static const std::regex function(R"(Function\s*:\s*(\S+))");
  // "/*0a30*/  @!P0 HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24 ;"
  static const std::regex instruction(R"(/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*))");
  std::map<std::string, int64_t> *current = nullptr;
  std::istringstream in{std::string(output)};
  std::string text;
  while (std::getline(in, text)) {
    std::smatch m;
    if (std::regex_search(text, m, function)) {
      current = &mix[m[1]];
      for (std::string_view family : kSassFamilies)
        (*current)[std::string(family)] = 0;
      continue;
    }
    if (!current || !std::regex_search(text, m, instruction))
      continue;
    if (auto it = current->find(m[1]); it != current->end())
      ++it->second;
  }
  return mix;
}

CompileReport compile_sm90(const std::string &nvcc, const std::string &source_path,
                           const std::string &cubin_path, std::string_view argus_path) {
  CompileReport report;
  report.target = GpuTarget::Sm90;
  // nvcc runs its own steps through a shell with the paths it was given in
  // double quotes, so it gets no path of ours: it runs in the artifact
  // directory on the fixed names written there.
  const std::filesystem::path source(source_path), cubin_file(cubin_path);
  std::error_code ec;
  const std::string program = nvcc.find('/') == std::string::npos
                                  ? nvcc
                                  : std::filesystem::absolute(nvcc, ec).string(); // cwd changes
  SpawnOptions options;
  options.merge_stderr = true;
  options.timeout = std::chrono::minutes(10);
  const SpawnResult version = spawn({program, "--version"}, options);
  if (version.started && version.exit_code == 0) {
    static const std::regex release(R"(release [\d.]+, V([\d.]+))");
    std::smatch m;
    if (std::regex_search(version.out, m, release))
      report.compiler = "nvcc " + std::string(m[1]);
  }
  if (report.compiler.empty())
    report.compiler = "nvcc";
  options.cwd = source.parent_path().string();
  const std::vector<std::string> argv = {program,      "-gencode=arch=compute_90a,code=sm_90a",
                                         "-cubin",     "-Xptxas",
                                         "-v",         "-O3",
                                         "-std=c++17", source.filename().string(),
                                         "-o",         cubin_file.filename().string()};
  report.command =
      (options.cwd.empty() ? "" : "cd " + shell_quote(options.cwd) + " && ") + command_line(argv);
  const auto start = std::chrono::steady_clock::now();
  const SpawnResult run = spawn(argv, options);
  report.output = run.started ? run.out : run.error;
  const int status = run.started ? (run.exit_code >= 0 ? run.exit_code : 128) : -1;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.diagnostics = map_compiler_messages(report.output, argus_path);
  report.kernels = parse_ptxas_verbose(report.output);
  if (status != 0) {
    report.message =
        run.started ? "nvcc failed (exit status " + std::to_string(status) + ")" : run.error;
    return report;
  }
  std::ifstream cubin(cubin_path, std::ios::binary);
  if (!cubin) {
    report.message = "nvcc wrote no " + cubin_path;
    return report;
  }
  report.binary.assign(std::istreambuf_iterator<char>(cubin), std::istreambuf_iterator<char>());
  report.ok = true;
  // ptxas's performance notes ("ptxas info : (C7514) ...") are kept: a
  // serialized wgmma is a correct kernel at a fraction of its speed.
  static const std::regex note(R"(ptxas info\s*:\s*(\(C\d+\)[^\n]*))");
  for (std::sregex_iterator it(report.output.begin(), report.output.end(), note), end; it != end;
       ++it)
    report.ptxas_notes.push_back((*it)[1]);
  // The SASS mix, from the cuobjdump beside nvcc (or on PATH).
  std::string cuobjdump = "cuobjdump";
  if (program.find('/') != std::string::npos) {
    const auto beside = std::filesystem::path(program).parent_path() / "cuobjdump";
    if (std::filesystem::exists(beside, ec))
      cuobjdump = beside.string();
  }
  const SpawnResult sass = spawn({cuobjdump, "-sass", cubin_file.filename().string()}, options);
  if (!sass.started || sass.exit_code != 0) {
    report.sass_note =
        "no SASS instruction mix: cuobjdump " +
        std::string(sass.started ? "failed" : "was not found beside nvcc or on PATH");
    return report;
  }
  const auto mix = parse_sass_mix(sass.out);
  for (KernelResources &k : report.kernels)
    if (auto it = mix.find(k.name); it != mix.end())
      k.sass_mix = it->second;
  return report;
}

nlohmann::json compile_json(const CompileReport &report) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelResources &k : report.kernels) {
    if (report.target == GpuTarget::Sm90) {
      kernels.push_back(
          {{"name", k.name},
           {"registers", k.registers},
           {"spill_store_bytes", k.spill_store_bytes},
           {"spill_load_bytes", k.spill_load_bytes},
           {"shared_bytes", k.shared_bytes},
           {"dynamic_shared_bytes", k.dynamic_shared_bytes},
           {"stack_bytes", k.stack_bytes},
           {"barriers", k.barriers},
           {"sass", k.sass_mix.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.sass_mix)}});
    } else {
      kernels.push_back({{"name", k.name},
                         {"vgprs", k.vgprs},
                         {"agprs", k.agprs},
                         {"sgprs", k.sgprs},
                         {"lds_bytes", k.shared_bytes},
                         {"dynamic_lds_bytes", k.dynamic_shared_bytes},
                         {"scratch_bytes", k.scratch_bytes},
                         {"spill_vgprs", k.spill_vgprs},
                         {"spill_sgprs", k.spill_sgprs},
                         {"occupancy_waves_per_simd", k.occupancy_waves_per_simd}});
    }
  }
  nlohmann::json j = {{"target", std::string(target_name(report.target))},
                      {"ok", report.ok},
                      {"compiler", report.compiler},
                      {"seconds", report.seconds},
                      {"kernels", kernels}};
  if (!report.command.empty())
    j["command"] = report.command;
  if (report.target == GpuTarget::Sm90) {
    j["ptxas_notes"] = report.ptxas_notes;
    if (!report.sass_note.empty())
      j["sass_note"] = report.sass_note;
  }
  return j;
}

// Shared memory as the table shows it: the static bytes, and "+N dyn" when
// the launcher asks for more at launch (a compiler reports only the former).
static std::string shared_text(const KernelResources &k) {
  std::string text = std::to_string(k.shared_bytes);
  if (k.dynamic_shared_bytes > 0)
    text += "+" + std::to_string(k.dynamic_shared_bytes) + " dyn";
  return text;
}

std::string resource_table(const CompileReport &report) {
  std::ostringstream out;
  char buffer[256];
  if (report.target == GpuTarget::Sm90) {
    std::snprintf(buffer, sizeof buffer, "%-24s %9s %12s %12s %8s %8s\n", "kernel", "registers",
                  "spill st/ld", "shared", "stack", "barriers");
    out << buffer;
    for (const KernelResources &k : report.kernels) {
      const std::string spills =
          std::to_string(k.spill_store_bytes) + "/" + std::to_string(k.spill_load_bytes);
      std::snprintf(buffer, sizeof buffer, "%-24s %9d %12s %12s %8lld %8d\n", k.name.c_str(),
                    k.registers, spills.c_str(), shared_text(k).c_str(),
                    static_cast<long long>(k.stack_bytes), k.barriers);
      out << buffer;
    }
    // The SASS mix: only the families a kernel has.
    for (const KernelResources &k : report.kernels) {
      std::string families;
      for (const auto &[family, count] : k.sass_mix)
        if (count > 0)
          families += " " + family + " " + std::to_string(count);
      if (!families.empty())
        out << "  " << k.name << " SASS:" << families << "\n";
    }
    if (!report.sass_note.empty())
      out << "  (" << report.sass_note << ")\n";
    for (const std::string &n : report.ptxas_notes)
      out << "  ptxas: " << n << "\n";
  } else {
    std::snprintf(buffer, sizeof buffer, "%-24s %6s %6s %6s %12s %8s %7s %10s\n", "kernel", "vgprs",
                  "agprs", "sgprs", "lds", "scratch", "spills", "waves/simd");
    out << buffer;
    for (const KernelResources &k : report.kernels) {
      std::snprintf(buffer, sizeof buffer, "%-24s %6d %6d %6d %12s %8lld %7lld %10d\n",
                    k.name.c_str(), k.vgprs, k.agprs, k.sgprs, shared_text(k).c_str(),
                    static_cast<long long>(k.scratch_bytes),
                    static_cast<long long>(k.spill_vgprs + k.spill_sgprs),
                    k.occupancy_waves_per_simd);
      out << buffer;
    }
  }
  return out.str();
}

} // namespace argus::codegen
