#include "codegen_test_support.h"
#include "argus/dsl/driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

namespace argus::codegen::test {

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> example_files() {
  std::vector<std::string> files;
  for (const auto &entry :
       std::filesystem::directory_iterator(std::string(ARGUS_SOURCE_DIR) + "/examples"))
    if (entry.path().extension() == ".argus")
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Snippets test the lowering, not the kernels' data flow: the invariant
// checker stays off for them (the examples, through check_file, keep it).
CheckedFile check(const std::string &path, const std::string &text) {
  FrontendOptions options;
  options.invariants = false;
  return check_source(path, text, options);
}

// The examples' invariants are tests/checker/'s; here they only need to lower.
CheckedFile check_file(const std::string &path) {
  FrontendOptions options;
  options.invariants = false;
  return check_source(path, read_file(path), options);
}

LowerResult lower_text(const std::string &text, GpuTarget target, bool expect_ok) {
  const CheckedFile checked = check("test.argus", text);
  for (const Diagnostic &d : checked.diagnostics)
    EXPECT_NE(d.severity, Severity::Error) << d.code << " " << d.message;
  LowerResult result = lower(checked, target);
  if (expect_ok) {
    EXPECT_TRUE(result.ok);
    for (const Diagnostic &d : result.diagnostics)
      ADD_FAILURE() << d.code << " line " << d.range.begin.line + 1 << ": " << d.message;
  }
  return result;
}

std::string device_part(const std::string &source) {
  size_t begin = source.find("// ---- @device functions");
  if (begin == std::string::npos)
    begin = source.find("// ---- kernels");
  const size_t end = source.find("// ---- host checks");
  if (begin == std::string::npos || end == std::string::npos)
    return "";
  return source.substr(begin, end - begin);
}

std::string temp_dir(const std::string &prefix) {
  std::string base = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  std::vector<char> buffer(base.begin(), base.end());
  buffer.push_back('\0');
  const char *made = mkdtemp(buffer.data());
  return made ? std::string(made) : std::string();
}

Run run(const std::string &command) {
  Run r;
  FILE *pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    return r;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    r.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string quote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

} // namespace argus::codegen::test
