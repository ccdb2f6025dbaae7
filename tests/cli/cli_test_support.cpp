#include "cli_test_support.h"

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace argus::testing {

void CliTest::SetUp() {
  std::string pattern = (std::filesystem::temp_directory_path() / "argus-cli-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  dir_ = pattern;
}

void CliTest::TearDown() {
  std::error_code ec;
  std::filesystem::permissions(dir_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(dir_, ec);
}

std::string CliTest::write_file(const std::string &name, const std::string &contents) const {
  const std::filesystem::path file = dir_ / name;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  EXPECT_TRUE(out) << "could not write " << file;
  return file.string();
}

ProcessResult CliTest::argus(const std::vector<std::string> &args,
                             const ProcessOptions &options) const {
  // The binary runs from the test's directory so relative paths name its files.
  ProcessOptions in_dir = options;
  in_dir.working_directory = dir_.string();
  return run_process(ARGUS_BINARY, args, in_dir);
}

std::vector<std::string> codes_in_text(const std::string &text) {
  static const std::regex kHeader(R"(^.*:\d+:\d+: (error|warning): .*\[([EW]\d{4})\]$)");
  std::vector<std::string> codes;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_match(line, match, kHeader))
      codes.push_back(match[2]);
  }
  return codes;
}

std::vector<std::string> lines_with(const std::string &text, const std::string &needle) {
  std::vector<std::string> result;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find(needle) != std::string::npos)
      result.push_back(line);
  }
  return result;
}

::testing::AssertionResult ran_cleanly(const ProcessResult &result) {
  if (result.timed_out)
    return ::testing::AssertionFailure() << "argus hung (killed after the timeout)";
  if (result.signal != 0)
    return ::testing::AssertionFailure()
           << "argus died of signal " << result.signal << "; stderr:\n"
           << result.err;
  if (result.exit_code == 86 || result.exit_code == 87 ||
      result.err.find("Sanitizer") != std::string::npos ||
      result.err.find("runtime error:") != std::string::npos)
    return ::testing::AssertionFailure() << "sanitizer report; stderr:\n" << result.err;
  if (result.exit_code == 127)
    return ::testing::AssertionFailure() << "could not run " << ARGUS_BINARY;
  return ::testing::AssertionSuccess();
}

} // namespace argus::testing
