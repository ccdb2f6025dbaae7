// Helpers of the code generation tests: checking sources, temporary
// directories, running subprocesses.
#pragma once

#include "argus/codegen/lower.h"
#include "argus/dsl/frontend.h"

#include <string>
#include <vector>

namespace argus::codegen::test {

std::string read_file(const std::string &path);
std::vector<std::string> example_files(); // examples/*.argus, sorted
CheckedFile check(const std::string &path, const std::string &text);
CheckedFile check_file(const std::string &path);
// Lowers `text`; fails the test (with the diagnostics) when lowering fails and `expect_ok`.
LowerResult lower_text(const std::string &text, GpuTarget target, bool expect_ok = true);
// The device part of a generated file: from "// ---- kernels" (or the device
// functions) to the host checks.
std::string device_part(const std::string &source);
// A fresh directory under the system temp directory, removed by the caller.
std::string temp_dir(const std::string &prefix);

struct Run {
  int status = -1;
  std::string output; // stdout and stderr together
};
Run run(const std::string &command);
std::string quote(const std::string &s);

} // namespace argus::codegen::test
