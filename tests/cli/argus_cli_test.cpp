// Runs the real `argus` binary on good, bad and hostile input and checks its
// exit status, its text and JSON output, and that it never crashes or hangs.
//
// Tests marked [needs lowering] or [needs sema] depend on diagnostics that
// dsl/parse/lower.cpp and dsl/sema/ report.
#include "argus/dsl/codes.h"
#include "cli_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <regex>

namespace argus::testing {
namespace {

using ::testing::AssertionFailure;
using ::testing::AssertionResult;
using ::testing::AssertionSuccess;

// A small kernel that checks clean.
constexpr const char *kValidKernel = R"(@kernel(grid=1, block=32)
def scale(X: Tensor((32,), f32), alpha: f32):
    i = thread_id()
    X[i] = X[i] * alpha
)";

bool contains(const std::vector<std::string> &codes, const std::string &code) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

// ---------------------------------------------------------------------------
// Usage

using CliUsageTest = CliTest;

TEST_F(CliUsageTest, NoArgumentsExitsTwoWithUsage) {
  const ProcessResult result = argus({});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("Usage: argus"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty());
}

TEST_F(CliUsageTest, CheckWithoutFilesExitsTwo) {
  const ProcessResult result = argus({"check"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("argus: error: no input files"), std::string::npos) << result.err;
}

TEST_F(CliUsageTest, UnknownOptionExitsTwo) {
  write_file("k.argus", kValidKernel);
  for (const std::vector<std::string> &args :
       {std::vector<std::string>{"check", "--bogus", "k.argus"},
        std::vector<std::string>{"check", "-x", "k.argus"}, std::vector<std::string>{"--bogus"}}) {
    const ProcessResult result = argus(args);
    ASSERT_TRUE(ran_cleanly(result));
    EXPECT_EQ(result.exit_code, 2) << args[1];
    EXPECT_NE(result.err.find("unknown option"), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
}

// vscode-languageclient starts servers with `--stdio`: argus lsp takes it (its
// one transport) and ends at the end of input (1), where an unknown argument
// is a usage error (2).
TEST_F(CliUsageTest, LspTakesStdioAndRefusesUnknownArguments) {
  const ProcessResult stdio = argus({"lsp", "--stdio"});
  ASSERT_TRUE(ran_cleanly(stdio));
  EXPECT_EQ(stdio.exit_code, 1) << stdio.err;
  EXPECT_EQ(stdio.err.find("unknown argument"), std::string::npos) << stdio.err;
  const ProcessResult bogus = argus({"lsp", "--pipe"});
  ASSERT_TRUE(ran_cleanly(bogus));
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_NE(bogus.err.find("unknown argument '--pipe'"), std::string::npos) << bogus.err;
}

TEST_F(CliUsageTest, UnknownCommandExitsTwo) {
  const ProcessResult result = argus({"chekc", "k.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("unknown command 'chekc'"), std::string::npos) << result.err;
}

TEST_F(CliUsageTest, BadOptionValuesExitTwo) {
  write_file("k.argus", kValidKernel);
  for (const std::string option :
       {"--format=xml", "--position-encoding=utf-7", "--color=sometimes", "--max-file-size=abc",
        "--max-file-size=0", "--max-file-size=99999999999999999999", "--help=yes",
        "--invariants=maybe", "--lints=1", "--unroll-bound=0", "--unroll-bound=12x",
        "--query-timeout-ms=-5", "--query-timeout-ms=999999999", "--sizes=M", "--sizes==3",
        "--sizes=M=1,", "--sizes=1=2", "--sizes=M=99999999999"}) {
    const ProcessResult result = argus({"check", option, "k.argus"});
    ASSERT_TRUE(ran_cleanly(result));
    EXPECT_EQ(result.exit_code, 2) << option;
    EXPECT_NE(result.err.find("argus: error: "), std::string::npos) << option << ": " << result.err;
  }
  const ProcessResult missing_value = argus({"check", "k.argus", "--format"});
  EXPECT_EQ(missing_value.exit_code, 2);
  EXPECT_NE(missing_value.err.find("needs a value"), std::string::npos) << missing_value.err;
}

TEST_F(CliUsageTest, HelpAndVersion) {
  const ProcessResult help = argus({"--help"});
  ASSERT_TRUE(ran_cleanly(help));
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("check"), std::string::npos) << help.out;

  const ProcessResult version = argus({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, std::string("argus ") + ARGUS_VERSION + "\n");

  for (const std::vector<std::string> &args :
       {std::vector<std::string>{"help", "check"}, std::vector<std::string>{"check", "--help"},
        std::vector<std::string>{"check", "-h"}}) {
    const ProcessResult result = argus(args);
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_TRUE(result.out.starts_with("Usage: argus check")) << result.out;
    EXPECT_NE(result.out.find("--format=text|json"), std::string::npos);
  }
  EXPECT_EQ(argus({"help", "nonsense"}).exit_code, 2);
}

TEST_F(CliUsageTest, ListCodesNamesEveryCode) {
  const ProcessResult result = argus({"check", "--list-codes"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 0);
  for (const codes::CodeInfo &info : codes::all_codes()) {
    EXPECT_NE(result.out.find(std::string(info.code) + "  " + std::string(info.title)),
              std::string::npos)
        << info.code;
  }
}

// ---------------------------------------------------------------------------
// Files that cannot be read: exit 2, a message on stderr, the others still checked

using CliIoTest = CliTest;

TEST_F(CliIoTest, MissingFileExitsTwo) {
  const ProcessResult result = argus({"check", "missing.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "argus: error: missing.argus: no such file\n");
  EXPECT_TRUE(result.out.empty());
}

TEST_F(CliIoTest, DirectoryExitsTwo) {
  std::filesystem::create_directory(path("dir.argus"));
  const ProcessResult result = argus({"check", "dir.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.err.starts_with("argus: error: dir.argus: is a directory")) << result.err;
}

TEST_F(CliIoTest, UnreadableFileExitsTwo) {
  if (geteuid() == 0)
    GTEST_SKIP() << "root reads files whatever their permissions";
  write_file("locked.argus", kValidKernel);
  std::filesystem::permissions(path("locked.argus"), std::filesystem::perms::none);
  const ProcessResult result = argus({"check", "locked.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.err.starts_with("argus: error: locked.argus: ")) << result.err;
}

// Reading a FIFO would block forever; it is refused before it is opened.
TEST_F(CliIoTest, FifoAndDevicesAreNotReadAndExitTwo) {
  ASSERT_EQ(mkfifo(path("pipe.argus").c_str(), 0600), 0);
  ProcessOptions options;
  options.timeout = std::chrono::seconds(20);
  const ProcessResult result = argus({"check", "pipe.argus", "/dev/null"}, options);
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "argus: error: pipe.argus: is not a regular file\n"
                        "argus: error: /dev/null: is not a regular file\n");
}

TEST_F(CliIoTest, OtherFilesAreStillChecked) {
  write_file("empty.argus", "");
  const ProcessResult result = argus({"check", "missing.argus", "empty.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 2); // an unreadable file outranks error diagnostics
  EXPECT_NE(result.err.find("missing.argus: no such file"), std::string::npos);
  EXPECT_EQ(codes_in_text(result.out), std::vector<std::string>{"E0001"}) << result.out;
}

TEST_F(CliIoTest, JsonReportsTheErrorOfEachUnreadableFile) {
  write_file("empty.argus", "");
  std::filesystem::create_directory(path("dir"));
  const ProcessResult result =
      argus({"check", "--format=json", "empty.argus", "missing.argus", "dir"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 2);
  nlohmann::json document;
  ASSERT_NO_THROW(document = nlohmann::json::parse(result.out)) << result.out;
  ASSERT_EQ(document["files"].size(), 3u);
  EXPECT_FALSE(document["files"][0].contains("error"));
  EXPECT_EQ(document["files"][1]["path"], "missing.argus");
  EXPECT_EQ(document["files"][1]["error"], "no such file");
  EXPECT_TRUE(document["files"][1]["diagnostics"].empty());
  EXPECT_TRUE(document["files"][2]["error"].get<std::string>().starts_with("is a directory"));
  EXPECT_NE(result.err.find("argus: error: missing.argus: no such file"), std::string::npos);
}

// ---------------------------------------------------------------------------
// Bad input: always a diagnostic and exit 1, never a crash or a hang

using CliBadInputTest = CliTest;

TEST_F(CliBadInputTest, EmptyFile) {
  write_file("empty.argus", "");
  const ProcessResult result = argus({"check", "empty.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(codes_in_text(result.out), std::vector<std::string>{"E0001"}) << result.out;
  EXPECT_TRUE(result.out.starts_with("empty.argus:1:1: error: ")) << result.out;
}

TEST_F(CliBadInputTest, BinaryFile) {
  std::string bytes = "\x7f"
                      "ELF\x02\x01\x01";
  for (int i = 0; i < 4096; ++i)
    bytes += static_cast<char>((i * 37) & 0xFF);
  write_file("a.out.argus", bytes);
  const ProcessResult result = argus({"check", "a.out.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(codes_in_text(result.out), std::vector<std::string>{"E0002"}) << result.out;
  // No raw binary is echoed to the terminal: only the header line.
  EXPECT_EQ(std::count(result.out.begin(), result.out.end(), '\n'), 1) << result.out;
}

TEST_F(CliBadInputTest, InvalidUtf8ReportsTheByteOffset) {
  write_file("latin1.argus", "BM = 64\n# caf\xe9 au lait\n");
  const ProcessResult result = argus({"check", "latin1.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(codes_in_text(result.out), std::vector<std::string>{"E0002"}) << result.out;
  EXPECT_NE(result.out.find("offset 13"), std::string::npos) << result.out;
  EXPECT_TRUE(result.out.starts_with("latin1.argus:2:6: error: ")) << result.out;
}

TEST_F(CliBadInputTest, TenMegabyteFile) {
  std::string big;
  const std::string line = "# " + std::string(77, 'x') + "\n";
  while (big.size() < 10u * 1024 * 1024)
    big += line;
  write_file("big.argus", big);
  const ProcessResult result = argus({"check", "big.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(codes_in_text(result.out), std::vector<std::string>{"E0003"}) << result.out;
}

TEST_F(CliBadInputTest, MaxFileSizeOption) {
  write_file("k.argus", kValidKernel);
  const ProcessResult refused = argus({"check", "--max-file-size=16", "k.argus"});
  ASSERT_TRUE(ran_cleanly(refused));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(codes_in_text(refused.out), std::vector<std::string>{"E0003"}) << refused.out;
  const ProcessResult accepted = argus({"check", "--max-file-size=1K", "k.argus"});
  EXPECT_FALSE(contains(codes_in_text(accepted.out), "E0003")) << accepted.out;
}

// [needs lowering] E0004 comes from LowerOptions::max_expression_depth.
TEST_F(CliBadInputTest, TenThousandNestedParentheses) {
  const std::string nested = std::string(10000, '(') + "1" + std::string(10000, ')');
  write_file("deep.argus", "@kernel(grid=1, block=32)\n"
                           "def deep(X: Tensor((32,), f32)):\n"
                           "    X[thread_id()] = " +
                               nested + "\n");
  const ProcessResult result = argus({"check", "deep.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(codes_in_text(result.out), "E0004")) << result.out;
  const ProcessResult json = argus({"check", "--format=json", "deep.argus"});
  ASSERT_TRUE(ran_cleanly(json));
  EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out;
}

// [needs lowering] E0101 comes from tree-sitter ERROR nodes.
TEST_F(CliBadInputTest, OnlySyntaxErrors) {
  write_file("syntax.argus", ")))\n"
                             "def (:\n"
                             "    = = =\n"
                             "@@@ ]\n");
  const ProcessResult result = argus({"check", "syntax.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1);
  const std::vector<std::string> codes = codes_in_text(result.out);
  EXPECT_TRUE(contains(codes, "E0101")) << result.out;
  for (const std::string &code : codes)
    EXPECT_TRUE(code.starts_with("E01")) << "not a syntax error: " << code << "\n" << result.out;
}

// [needs sema] E0706 comes from SemaOptions::max_kernel_params.
TEST_F(CliBadInputTest, KernelWith300Parameters) {
  std::string source = "@kernel(grid=1, block=32)\ndef wide(";
  for (int i = 0; i < 300; ++i)
    source += (i ? ", p" : "p") + std::to_string(i) + ": i32";
  source += "):\n    pass\n";
  write_file("wide.argus", source);
  const ProcessResult result = argus({"check", "wide.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(codes_in_text(result.out), "E0706")) << result.out;
}

// Random token soup (a fixed seed, so failures reproduce) in both formats.
TEST_F(CliBadInputTest, RandomTokensNeverCrashOrHang) {
  static const std::vector<std::string> kTokens = {"@kernel",
                                                   "@device",
                                                   "@bench",
                                                   "def",
                                                   "(",
                                                   ")",
                                                   "(",
                                                   ")",
                                                   "[",
                                                   "]",
                                                   "{",
                                                   "}",
                                                   ":",
                                                   ",",
                                                   "\n",
                                                   "\n    ",
                                                   "\n        ",
                                                   "\t",
                                                   " ",
                                                   "x",
                                                   "A",
                                                   "Tensor",
                                                   "f32",
                                                   "bf16",
                                                   "i32",
                                                   "=",
                                                   "+=",
                                                   "+",
                                                   "*",
                                                   "**",
                                                   "//",
                                                   "<<",
                                                   "==",
                                                   "not",
                                                   "and",
                                                   "1",
                                                   "0",
                                                   "-1",
                                                   "1.5",
                                                   "1e309",
                                                   "99999999999999999999999",
                                                   "0x",
                                                   "for",
                                                   "in",
                                                   "range",
                                                   "if",
                                                   "elif",
                                                   "else",
                                                   "while",
                                                   "return",
                                                   "lambda",
                                                   "pass",
                                                   "\"m\"",
                                                   "'",
                                                   "\"",
                                                   "\"\"\"",
                                                   "#",
                                                   "\\",
                                                   ".",
                                                   "nvvm",
                                                   "amdgpu",
                                                   "thread_id()",
                                                   "make_shared",
                                                   "tag",
                                                   "assume",
                                                   "é",
                                                   "😀",
                                                   "import",
                                                   "class",
                                                   "yield",
                                                   "async",
                                                   "await",
                                                   "*",
                                                   "**kwargs",
                                                   ";",
                                                   "grid=",
                                                   "block="};
  std::mt19937 random(20240601);
  std::vector<std::string> args = {"check"};
  for (int file = 0; file < 40; ++file) {
    std::string text;
    const int length = 50 + static_cast<int>(random() % 400);
    for (int i = 0; i < length; ++i)
      text += kTokens[random() % kTokens.size()];
    args.push_back("soup" + std::to_string(file) + ".argus");
    write_file(args.back(), text);
  }
  const ProcessResult text = argus(args);
  ASSERT_TRUE(ran_cleanly(text));
  EXPECT_TRUE(text.exit_code == 0 || text.exit_code == 1) << text.exit_code << "\n" << text.err;
  args.insert(args.begin() + 1, "--format=json");
  const ProcessResult json = argus(args);
  ASSERT_TRUE(ran_cleanly(json));
  EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out;
}

// ---------------------------------------------------------------------------
// JSON output

using CliJsonTest = CliTest;

AssertionResult is_lsp_position(const nlohmann::json &position) {
  if (!position.is_object() || position.size() != 2 || !position["line"].is_number_unsigned() ||
      !position["character"].is_number_unsigned())
    return AssertionFailure() << "not an LSP Position: " << position.dump();
  return AssertionSuccess();
}

AssertionResult is_lsp_range(const nlohmann::json &range) {
  if (!range.is_object() || range.size() != 2 || !range.contains("start") || !range.contains("end"))
    return AssertionFailure() << "not an LSP Range: " << range.dump();
  if (auto start = is_lsp_position(range["start"]); !start)
    return start;
  return is_lsp_position(range["end"]);
}

AssertionResult is_lsp_diagnostic(const nlohmann::json &d, const std::string &uri) {
  static const std::regex kCode("[EW][0-9]{4}");
  if (!d.is_object())
    return AssertionFailure() << "not an object: " << d.dump();
  for (const auto &[key, value] : d.items()) {
    static const std::vector<std::string> kKeys = {
        "range", "severity", "code", "source", "message", "data", "relatedInformation"};
    if (!contains(kKeys, key))
      return AssertionFailure() << "unexpected key '" << key << "' in " << d.dump();
  }
  if (auto range = is_lsp_range(d["range"]); !range)
    return range;
  if (!d["severity"].is_number_integer() || d["severity"] < 1 || d["severity"] > 4)
    return AssertionFailure() << "bad severity in " << d.dump();
  if (!d["code"].is_string() || !std::regex_match(d["code"].get<std::string>(), kCode))
    return AssertionFailure() << "bad code in " << d.dump();
  if (d["source"] != "argus")
    return AssertionFailure() << "source is not argus in " << d.dump();
  if (!d["message"].is_string() || d["message"].get<std::string>().empty())
    return AssertionFailure() << "bad message in " << d.dump();
  if (d.contains("data") && d["data"].is_null())
    return AssertionFailure() << "null data is left out, not written: " << d.dump();
  if (d.contains("relatedInformation")) {
    if (!d["relatedInformation"].is_array() || d["relatedInformation"].empty())
      return AssertionFailure() << "bad relatedInformation in " << d.dump();
    for (const nlohmann::json &info : d["relatedInformation"]) {
      if (!info["message"].is_string() || info["location"]["uri"] != uri)
        return AssertionFailure() << "bad relatedInformation in " << d.dump();
      if (auto range = is_lsp_range(info["location"]["range"]); !range)
        return range;
    }
  }
  return AssertionSuccess();
}

// One document: {"positionEncoding", "files": [{"path", "uri", "diagnostics"}]}.
void expect_lsp_document(const nlohmann::json &document, size_t file_count) {
  ASSERT_TRUE(document.is_object()) << document.dump();
  EXPECT_EQ(document["positionEncoding"], "utf-16");
  ASSERT_TRUE(document["files"].is_array());
  ASSERT_EQ(document["files"].size(), file_count);
  for (const nlohmann::json &file : document["files"]) {
    ASSERT_TRUE(file["path"].is_string());
    const std::string uri = file["uri"].get<std::string>();
    EXPECT_TRUE(uri.starts_with("file:///")) << uri;
    EXPECT_TRUE(uri.ends_with(file["path"].get<std::string>())) << uri;
    ASSERT_TRUE(file["diagnostics"].is_array());
    for (const nlohmann::json &diagnostic : file["diagnostics"])
      EXPECT_TRUE(is_lsp_diagnostic(diagnostic, uri));
  }
}

TEST_F(CliJsonTest, ValidJsonWithTheLspShape) {
  write_file("empty.argus", "");
  write_file("latin1.argus", "# caf\xe9\n");
  write_file("k.argus", kValidKernel);
  write_file("bad.argus", "@kernel(grid=1, block=32)\n"
                          "def bad(X: Tensor((32,), f32)):\n"
                          "    X[thread_id()] = undefined_name\n"
                          "    while True:\n"
                          "        pass\n");
  const ProcessResult result =
      argus({"check", "--format=json", "empty.argus", "latin1.argus", "k.argus", "bad.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1);
  nlohmann::json document;
  ASSERT_NO_THROW(document = nlohmann::json::parse(result.out)) << result.out;
  expect_lsp_document(document, 4);
  const nlohmann::json &empty = document["files"][0]["diagnostics"];
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0]["code"], "E0001");
  EXPECT_EQ(empty[0]["severity"], 1);
  EXPECT_EQ(empty[0]["range"]["start"], nlohmann::json({{"line", 0}, {"character", 0}}));
  EXPECT_TRUE(result.err.empty()) << "no summary line in json mode: " << result.err;
}

// The verification summary: per kernel in json, one line per kernel under --verbose;
// a file the checker did not run on has none.
TEST_F(CliJsonTest, VerificationSummaryPerKernel) {
  write_file("k.argus", kValidKernel);
  write_file("bad.argus", "@kernel(grid=1, block=32)\n"
                          "def bad(X: Tensor((32,), f32)):\n"
                          "    X[thread_id()] = undefined_name\n");
  const ProcessResult json = argus({"check", "--format=json", "k.argus", "bad.argus"});
  ASSERT_TRUE(ran_cleanly(json));
  nlohmann::json document;
  ASSERT_NO_THROW(document = nlohmann::json::parse(json.out)) << json.out;
  const nlohmann::json &summaries = document["files"][0]["verification"];
  ASSERT_EQ(summaries.size(), 1u) << json.out;
  EXPECT_EQ(summaries[0]["kernel"], "scale");
  EXPECT_EQ(summaries[0]["properties"]["bounds"]["verdict"], "all-sizes");
  EXPECT_EQ(summaries[0]["properties"]["races"]["verdict"], "all-sizes"); // no barrier, no shared
  EXPECT_EQ(summaries[0]["properties"]["initialization"]["verdict"], "instances");
  EXPECT_EQ(summaries[0]["properties"]["tags"]["verdict"], "absent");
  EXPECT_EQ(summaries[0]["unproven"], 0);
  EXPECT_EQ(document["files"][1]["verification"], nlohmann::json::array());

  const ProcessResult text = argus({"check", "--verbose", "k.argus"});
  ASSERT_TRUE(ran_cleanly(text));
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("k.argus: verified scale: bounds, races proved for all sizes; "
                          "initialization checked at 1 instance; tags, stores, operands, "
                          "barriers, async, coverage absent\n"),
            std::string::npos)
      << text.out;
  const ProcessResult quiet = argus({"check", "k.argus"});
  EXPECT_EQ(quiet.out.find("verified"), std::string::npos) << quiet.out;
}

// [needs lowering + sema] the file has exactly an E0301 and a W0201.
TEST_F(CliJsonTest, ErrorsAndWarningsOfAKernel) {
  write_file("bad.argus", "@kernel(grid=1, block=32)\n"
                          "def bad(X: Tensor((32,), f32)):\n"
                          "    X[thread_id()] = undefined_name\n"
                          "    while X[0] > 0.0:\n"
                          "        X[0] = X[0] - 1.0\n");
  const ProcessResult result = argus({"check", "--format=json", "bad.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1);
  nlohmann::json document;
  ASSERT_NO_THROW(document = nlohmann::json::parse(result.out)) << result.out;
  expect_lsp_document(document, 1);
  const nlohmann::json &diagnostics = document["files"][0]["diagnostics"];
  ASSERT_EQ(diagnostics.size(), 2u) << diagnostics.dump(2);
  EXPECT_EQ(diagnostics[0]["code"], "E0301");
  EXPECT_EQ(diagnostics[0]["severity"], 1);
  EXPECT_EQ(diagnostics[0]["range"]["start"], nlohmann::json({{"line", 2}, {"character", 21}}));
  EXPECT_EQ(diagnostics[0]["range"]["end"], nlohmann::json({{"line", 2}, {"character", 35}}));
  EXPECT_EQ(diagnostics[1]["code"], "W0201");
  EXPECT_EQ(diagnostics[1]["severity"], 2);
  EXPECT_EQ(diagnostics[1]["range"]["start"]["line"], 3);
}

// "# é€😀 " is 12 bytes, 7 UTF-16 code units and 6 code points before the bad byte.
TEST_F(CliJsonTest, ColumnsAfterNonAsciiTextInEachEncoding) {
  write_file("u.argus", "BM = 64\n# \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \xff tail\n");
  const auto start_character = [&](const std::vector<std::string> &extra) {
    std::vector<std::string> args = {"check", "--format=json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("u.argus");
    const ProcessResult result = argus(args);
    EXPECT_TRUE(ran_cleanly(result));
    const nlohmann::json document = nlohmann::json::parse(result.out);
    const nlohmann::json &d = document["files"][0]["diagnostics"][0];
    EXPECT_EQ(d["code"], "E0002");
    EXPECT_EQ(d["range"]["start"]["line"], 1);
    return d["range"]["start"]["character"].get<int>();
  };
  EXPECT_EQ(start_character({}), 7);
  EXPECT_EQ(start_character({"--position-encoding=utf-16"}), 7);
  EXPECT_EQ(start_character({"--position-encoding=utf-8"}), 12);
  EXPECT_EQ(start_character({"--position-encoding=utf-32"}), 6);
  // Text output counts bytes, plus one, as clang does.
  const ProcessResult text = argus({"check", "u.argus"});
  EXPECT_TRUE(text.out.starts_with("u.argus:2:13: error: ")) << text.out;
}

// [needs lowering + sema] "ñandú" is 7 bytes and 5 UTF-16 code units.
TEST_F(CliJsonTest, Utf16ColumnOfAnUndefinedNameAfterNonAsciiText) {
  write_file("n.argus", "@kernel(grid=1, block=32)\n"
                        "def k(X: Tensor((32,), f32)):\n"
                        "    ñandú = 1.0 + undefined_name\n"
                        "    X[thread_id()] = ñandú\n");
  const ProcessResult result = argus({"check", "--format=json", "n.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  nlohmann::json document;
  ASSERT_NO_THROW(document = nlohmann::json::parse(result.out)) << result.out;
  const nlohmann::json &diagnostics = document["files"][0]["diagnostics"];
  const auto undefined = std::find_if(diagnostics.begin(), diagnostics.end(),
                                      [](const nlohmann::json &d) { return d["code"] == "E0301"; });
  ASSERT_NE(undefined, diagnostics.end()) << diagnostics.dump(2);
  EXPECT_EQ((*undefined)["range"]["start"], nlohmann::json({{"line", 2}, {"character", 18}}));
  EXPECT_EQ((*undefined)["range"]["end"], nlohmann::json({{"line", 2}, {"character", 32}}));
  const ProcessResult text = argus({"check", "n.argus"});
  EXPECT_FALSE(lines_with(text.out, "n.argus:3:21: error: ").empty()) << text.out;
}

// ---------------------------------------------------------------------------
// Text output

using CliTextTest = CliTest;

TEST_F(CliTextTest, SummaryLineOnStderr) {
  write_file("a.argus", "");
  write_file("b.argus", "\xff");
  const ProcessResult result = argus({"check", "a.argus", "b.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "2 errors generated.\n");
}

// [needs lowering + sema] a clean kernel: no output at all, exit 0.
TEST_F(CliTextTest, CleanFileHasNoOutput) {
  write_file("k.argus", kValidKernel);
  const ProcessResult result = argus({"check", "k.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 0) << result.out;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "");
}

// [needs lowering + sema] warnings only: exit 0 and a summary.
TEST_F(CliTextTest, WarningsOnlyExitZero) {
  write_file("w.argus", "@kernel(grid=1, block=32)\n"
                        "def spin(X: Tensor((32,), f32)):\n"
                        "    if thread_id() == 0:\n"
                        "        i = 0\n"
                        "        while i < 4:\n"
                        "            X[8 * i] = 0.0\n"
                        "            i += 1\n");
  const ProcessResult result = argus({"check", "w.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 0) << result.out;
  EXPECT_EQ(codes_in_text(result.out), std::vector<std::string>{"W0201"}) << result.out;
  EXPECT_EQ(result.err, "1 warning generated.\n");
}

// [needs lowering + sema] the caret line keeps the source's tab.
TEST_F(CliTextTest, CaretLinesUpUnderTabs) {
  write_file("t.argus", "@kernel(grid=1, block=32)\n"
                        "def k(X: Tensor((32,), f32)):\n"
                        "\tX[thread_id()] = undefined_name\n");
  const ProcessResult result = argus({"check", "t.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1);
  const std::string expected = "t.argus:3:19: error: ";
  const size_t header = result.out.find(expected);
  ASSERT_NE(header, std::string::npos) << result.out;
  const size_t snippet = result.out.find('\n', header) + 1;
  const std::string expected_snippet = "\tX[thread_id()] = undefined_name\n\t" +
                                       std::string(17, ' ') + "^" + std::string(13, '~') + "\n";
  EXPECT_EQ(result.out.substr(snippet, expected_snippet.size()), expected_snippet) << result.out;
}

TEST_F(CliTextTest, ColorsFollowTheTerminalNoColorAndTheOption) {
  write_file("e.argus", "");
  const auto has_color = [&](const std::string &color, bool terminal, const char *no_color) {
    ProcessOptions options;
    options.stdout_is_terminal = terminal;
    options.env.emplace_back("NO_COLOR", no_color ? std::optional<std::string>(no_color)
                                                  : std::optional<std::string>());
    std::vector<std::string> args = {"check", "e.argus"};
    if (!color.empty())
      args.insert(args.begin() + 1, color);
    const ProcessResult result = argus(args, options);
    EXPECT_TRUE(ran_cleanly(result));
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.out.find("E0001"), std::string::npos) << result.out;
    return result.out.find("\x1b[") != std::string::npos;
  };
  EXPECT_FALSE(has_color("", false, nullptr));
  EXPECT_FALSE(has_color("--color=auto", false, nullptr));
  EXPECT_TRUE(has_color("--color=always", false, "1"));
  if (!pseudo_terminals_available())
    GTEST_SKIP() << "no pseudo-terminals here: the terminal cases are not tested";
  EXPECT_TRUE(has_color("", true, nullptr));
  EXPECT_FALSE(has_color("", true, "1"));
  EXPECT_TRUE(has_color("", true, "")); // an empty NO_COLOR does not count (no-color.org)
  EXPECT_FALSE(has_color("--color=never", true, nullptr));
}

// [needs the checker] a race: text with the counterexample and the note, JSON
// with the structured data, and --invariants=off for the front end alone.
const char *kRacyKernel = "@kernel(grid=1, block=64)\n"
                          "def racy(X: Tensor((64,), f32), Y: Tensor((64,), f32)):\n"
                          "    s = make_shared((64,), f32)\n"
                          "    t = thread_id()\n"
                          "    s[t] = X[t]\n"
                          "    Y[t] = s[(t + 1) % 64]\n";

TEST_F(CliTextTest, ViolationsPrintTheirCounterexampleAndWriteSite) {
  write_file("racy.argus", kRacyKernel);
  const ProcessResult result = argus({"check", "racy.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  EXPECT_EQ(result.exit_code, 1) << result.out;
  EXPECT_EQ(codes_in_text(result.out), std::vector<std::string>{"E0902"}) << result.out;
  EXPECT_NE(
      result.out.find("racy.argus:6:12: error: data race on s: read here, written by block "
                      "(0,0), thread 1 with no syncthreads() between (block (0,0), thread 0)"),
      std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("racy.argus:5:5: note: written here"), std::string::npos) << result.out;
  const ProcessResult off = argus({"check", "--invariants=off", "racy.argus"});
  EXPECT_EQ(off.exit_code, 0) << off.out;
  EXPECT_EQ(off.out, "");
}

TEST_F(CliJsonTest, ViolationsCarryTheirCounterexampleAsData) {
  write_file("racy.argus", kRacyKernel);
  const ProcessResult result = argus({"check", "--format=json", "racy.argus"});
  ASSERT_TRUE(ran_cleanly(result));
  nlohmann::json document;
  ASSERT_NO_THROW(document = nlohmann::json::parse(result.out)) << result.out;
  const nlohmann::json &d = document["files"][0]["diagnostics"].at(0);
  EXPECT_EQ(d["code"], "E0902");
  EXPECT_EQ(d["data"]["kind"], "race");
  EXPECT_EQ(d["data"]["thread"]["thread"], nlohmann::json({0, 0, 0}));
  EXPECT_EQ(d["data"]["other_thread"]["thread"], nlohmann::json({1, 0, 0}));
  EXPECT_EQ(d["data"]["element"]["tensor"], "s");
  EXPECT_EQ(d["data"]["fixes"], nlohmann::json({"argus.fix.insert-barrier"}));
  ASSERT_EQ(d["relatedInformation"].size(), 1u);
  EXPECT_EQ(d["relatedInformation"][0]["message"], "written here");
  EXPECT_EQ(d["relatedInformation"][0]["location"]["range"]["start"]["line"], 4);
}

} // namespace
} // namespace argus::testing
