// Shared helpers of the tests that run the real `argus` binary.
#pragma once

#include "process.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace argus::testing {

// A fresh temporary directory per test, removed afterwards.
class CliTest : public ::testing::Test {
protected:
  void SetUp() override;
  void TearDown() override;

  // Writes `contents` (bytes, as is) to `name` in the test's directory.
  std::string write_file(const std::string &name, const std::string &contents) const;
  std::string path(const std::string &name) const { return (dir_ / name).string(); }

  // Runs `argus ARGS...` from the test's directory.
  ProcessResult argus(const std::vector<std::string> &args,
                      const ProcessOptions &options = {}) const;

  std::filesystem::path dir_;
};

// The codes of the `file:line:col: error|warning: ... [CODE]` lines of text output.
std::vector<std::string> codes_in_text(const std::string &text);
// Lines of `text` that contain `needle`.
std::vector<std::string> lines_with(const std::string &text, const std::string &needle);

// Asserts the child ran to its end: no timeout, no signal, no sanitizer report.
::testing::AssertionResult ran_cleanly(const ProcessResult &result);

} // namespace argus::testing
