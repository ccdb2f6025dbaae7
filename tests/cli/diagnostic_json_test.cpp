#include "argus/cli/diagnostic_json.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace argus::cli {
namespace {

using nlohmann::json;

TEST(DiagnosticJsonTest, LspDiagnosticFields) {
  const SourceFile source("k.argus", "x = yy\n");
  const Diagnostic d{Severity::Error,       "E0301", {{0, 4}, {0, 6}},
                     "undefined name 'yy'", nullptr, {}};
  const json result = lsp_diagnostic(source, d, "file:///k.argus", ColumnUnit::Utf16CodeUnits);
  EXPECT_EQ(result, json::parse(R"({
    "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 6}},
    "severity": 1, "code": "E0301", "source": "argus", "message": "undefined name 'yy'"})"));
}

TEST(DiagnosticJsonTest, DataAndRelatedInformationWhenPresent) {
  const SourceFile source("k.argus", "x = 1\nx = 2\n");
  Diagnostic d{Severity::Warning, "W0301", {{1, 0}, {1, 1}}, "unused", {{"name", "x"}}, {}};
  d.related.push_back({{{0, 0}, {0, 1}}, "first assigned here"});
  const json result = lsp_diagnostic(source, d, "file:///k.argus", ColumnUnit::Utf16CodeUnits);
  EXPECT_EQ(result["severity"], 2);
  EXPECT_EQ(result["data"], json({{"name", "x"}}));
  EXPECT_EQ(result["relatedInformation"], json::parse(R"([{
    "location": {"uri": "file:///k.argus",
                 "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}},
    "message": "first assigned here"}])"));
}

TEST(DiagnosticJsonTest, CharactersInEachPositionEncoding) {
  // "😀é" then "yy": 6 bytes, 3 UTF-16 code units, 2 code points before "yy".
  const SourceFile source("u.argus", "😀é yy\n");
  const Range range{{0, 7}, {0, 9}};
  EXPECT_EQ(lsp_range(source, range, ColumnUnit::Utf16CodeUnits)["start"]["character"], 4);
  EXPECT_EQ(lsp_range(source, range, ColumnUnit::Utf8Bytes)["start"]["character"], 7);
  EXPECT_EQ(lsp_range(source, range, ColumnUnit::CodePoints)["start"]["character"], 3);
  EXPECT_EQ(lsp_range(source, range, ColumnUnit::Utf16CodeUnits)["end"]["character"], 6);
}

TEST(DiagnosticJsonTest, PositionEncodingNames) {
  for (const ColumnUnit unit :
       {ColumnUnit::Utf16CodeUnits, ColumnUnit::Utf8Bytes, ColumnUnit::CodePoints}) {
    EXPECT_EQ(parse_position_encoding(position_encoding_name(unit)), unit);
  }
  EXPECT_EQ(parse_position_encoding("utf-7"), std::nullopt);
  EXPECT_EQ(parse_position_encoding("UTF-16"), std::nullopt);
}

TEST(DiagnosticJsonTest, FileUris) {
  EXPECT_EQ(file_uri("/tmp/a b/k#1.argus"), "file:///tmp/a%20b/k%231.argus");
  EXPECT_EQ(file_uri("/tmp/./x/../é.argus"), "file:///tmp/%C3%A9.argus");
  const std::string relative = file_uri("k.argus");
  EXPECT_TRUE(relative.starts_with("file:///")) << relative;
  EXPECT_TRUE(relative.ends_with("/k.argus")) << relative;
}

TEST(DiagnosticJsonTest, FileObjects) {
  const SourceFile source("/tmp/k.argus", "x\n");
  const json checked = checked_file_json(source, {}, ColumnUnit::Utf16CodeUnits);
  EXPECT_EQ(checked, json::parse(R"({"path": "/tmp/k.argus", "uri": "file:///tmp/k.argus",
                                     "diagnostics": []})"));
  const json unreadable = unreadable_file_json("/tmp/missing.argus", "no such file");
  EXPECT_EQ(unreadable["error"], "no such file");
  EXPECT_EQ(unreadable["diagnostics"], json::array());
}

TEST(DiagnosticJsonTest, DumpNeverThrowsOnInvalidUtf8) {
  const json value = {{"path", "caf\xe9.argus"}};
  std::string text;
  EXPECT_NO_THROW(text = dump_json(value));
  EXPECT_EQ(text, "{\"path\":\"caf\xef\xbf\xbd.argus\"}");
}

} // namespace
} // namespace argus::cli
