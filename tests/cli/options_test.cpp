#include "argus/cli/options.h"

#include <gtest/gtest.h>

namespace argus::cli {
namespace {

constexpr OptionSpec kSpecs[] = {{"--format", true}, {"--list", false}, {"-h", false}};

ParsedOptions parse_ok(std::vector<std::string> args) {
  auto result = parse_options(args, kSpecs);
  EXPECT_TRUE(std::holds_alternative<ParsedOptions>(result))
      << std::get<UsageError>(result).message;
  return std::holds_alternative<ParsedOptions>(result) ? std::get<ParsedOptions>(result)
                                                       : ParsedOptions{};
}

std::string parse_error(std::vector<std::string> args) {
  auto result = parse_options(args, kSpecs);
  EXPECT_TRUE(std::holds_alternative<UsageError>(result));
  return std::holds_alternative<UsageError>(result) ? std::get<UsageError>(result).message : "";
}

TEST(OptionsTest, ValuesWithEqualsOrAsTheNextArgument) {
  const ParsedOptions equals = parse_ok({"--format=json", "a.argus"});
  ASSERT_NE(equals.last("--format"), nullptr);
  EXPECT_EQ(*equals.last("--format"), "json");
  EXPECT_EQ(equals.positional, std::vector<std::string>{"a.argus"});

  const ParsedOptions separate = parse_ok({"a.argus", "--format", "text", "b.argus"});
  EXPECT_EQ(*separate.last("--format"), "text");
  EXPECT_EQ(separate.positional, (std::vector<std::string>{"a.argus", "b.argus"}));

  EXPECT_EQ(*parse_ok({"--format=", "x"}).last("--format"), "");
}

TEST(OptionsTest, LaterOptionsWin) {
  EXPECT_EQ(*parse_ok({"--format=json", "--format=text"}).last("--format"), "text");
}

TEST(OptionsTest, FlagsAndShortOptions) {
  const ParsedOptions parsed = parse_ok({"-h", "--list"});
  EXPECT_TRUE(parsed.has("-h"));
  EXPECT_TRUE(parsed.has("--list"));
  EXPECT_FALSE(parsed.has("--format"));
}

TEST(OptionsTest, DoubleDashEndsOptionsAndDashIsPositional) {
  const ParsedOptions parsed = parse_ok({"-", "--", "--format=json", "-h"});
  EXPECT_EQ(parsed.positional, (std::vector<std::string>{"-", "--format=json", "-h"}));
  EXPECT_FALSE(parsed.has("--format"));
}

TEST(OptionsTest, Errors) {
  EXPECT_EQ(parse_error({"--frmat=json"}), "unknown option '--frmat'");
  EXPECT_EQ(parse_error({"-x"}), "unknown option '-x'");
  EXPECT_EQ(parse_error({"a.argus", "--format"}), "option '--format' needs a value");
  EXPECT_EQ(parse_error({"--list=yes"}), "option '--list' takes no value");
}

TEST(OptionsTest, ByteCounts) {
  EXPECT_EQ(parse_byte_count("4194304"), 4194304u);
  EXPECT_EQ(parse_byte_count("0"), 0u);
  EXPECT_EQ(parse_byte_count("4K"), 4096u);
  EXPECT_EQ(parse_byte_count("4m"), 4u << 20);
  EXPECT_EQ(parse_byte_count("2G"), uint64_t{2} << 30);
  EXPECT_EQ(parse_byte_count("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_byte_count("18446744073709551616"), std::nullopt);
  EXPECT_EQ(parse_byte_count("17179869184G"), std::nullopt);
  for (const char *bad : {"", "K", "-1", "1.5", "12KB", " 1", "0x10", "1e6"})
    EXPECT_EQ(parse_byte_count(bad), std::nullopt) << bad;
}

} // namespace
} // namespace argus::cli
