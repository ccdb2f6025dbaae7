// `argus layout` as a function: arguments in, streams and exit status out.
#include "argus/cli/layout_command.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <vector>

namespace argus::cli {
namespace {

struct Outcome {
  int status;
  std::string out;
  std::string err;
};

Outcome run(std::vector<std::string> args) {
  std::ostringstream out, err;
  Environment env{out, err};
  const int status = run_layout(args, env);
  return {status, out.str(), err.str()};
}

TEST(LayoutCommand, AnswersEveryVectorOfTheDesignDocument) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"(2,(2,2)):(4,(2,1))(5)", "5"},
      {"((4,2)):((2,1))(3)", "6"},
      {"idx2crd(16, (3,(2,3)))", "(1,(1,2))"},
      {"idx2crd((1,5), (3,(2,3)))", "(1,(1,2))"},
      {"crd2idx(16, (3,(2,3)), (3,(12,1)))", "17"},
      {"crd2idx((1,5), (3,(2,3)), (3,(12,1)))", "17"},
      {"crd2idx((1,(1,2)), (3,(2,3)), (3,(12,1)))", "17"},
      {"left((2,(2,2)))", "(2,(2,2)):(1,(2,4))"},
      {"right((2,4))", "(2,4):(4,1)"},
      {"mode((4,(3,6)):(1,(4,12)), 1)", "(3,6):(4,12)"},
      {"coalesce((2,(1,6)):(1,(6,2)))", "12:1"},
      {"coalesce((2,(1,6)):(1,(6,2)), (1,1))", "(2,6):(1,2)"},
      {"composition((6,2):(8,2), (4,3):(3,1))", "((2,2),3):((24,2),8)"},
      {"composition(20:2, (5,4):(4,1))", "(5,4):(8,2)"},
      {"composition((3,6,2,8):(1,7,100,1000), 16:9)", "(2,2,4):(21,100,1000)"},
      {"complement(4:1, 24)", "6:4"},
      {"complement(6:4, 24)", "4:1"},
      {"complement((4,6):(1,4), 24)", "1:0"},
      {"complement(4:2, 24)", "(2,3):(1,8)"},
      {"complement((2,4):(1,6), 24)", "3:2"},
      {"complement((2,2):(1,6), 24)", "(3,2):(2,12)"},
      {"logical_divide((4,2,3):(2,1,8), 4:2)", "((2,2),(2,3)):((4,1),(2,8))"},
      {"logical_product((2,2):(4,1), 6:1)", "((2,2),(2,3)):((4,1),(2,8))"},
      {"coalesce((3,(4,5)):(8,(1,4)), (1,1))", "(3,20):(8,1)"},
      {"coalesce((4,5):(1,4))", "20:1"},
      {"complement((2,2):(4,1), 24)", "(2,3):(2,8)"},
      {"complement(3:2, 6)", "2:1"},
      {"right_inverse((2,4,6):(4,1,8))", "(4,2,6):(2,1,8)"},
      {"right_inverse((4,3):(1,4))", "12:1"},
      {"right_inverse((4,3):(3,1))", "(3,4):(4,1)"},
      {"right_inverse((2,4):(1,2))", "8:1"},
      {"logical_product((2,2):(4,1), (3,2):(2,1))", "((2,2),(3,2)):((4,1),(8,2))"},
      {"cosize((4,3,2):(1,4,12))", "24"},
      {"size((4,(16,32)):(1,(4,64)))", "2048"},
      {"crd2idx((1,2), (4,8))", "9"},
      {"idx2crd(9, (4,8))", "(1,2)"},
      {"make_swizzle(0b1000, 0b0100)", "Sw<1,2,1>"},
      {"swizzle(3,4,3)(144)", "128"},
      {"tv(mma_m16n8k16_bf16, A)", "((4,8),(2,2,2)):((32,1),(16,8,128))"},
  };
  for (const auto &[expr, expected] : cases) {
    const Outcome r = run({expr});
    EXPECT_EQ(r.status, kExitOk) << expr << "\n" << r.err;
    EXPECT_EQ(r.out, expected + "\n") << expr;
    EXPECT_EQ(r.err, "") << expr;
  }
}

TEST(LayoutCommand, JoinsWordsAndAcceptsDashes) {
  EXPECT_EQ(run({"complement(4:2,", "24)"}).out, "(2,3):(1,8)\n");
  EXPECT_EQ(run({"-3", "+", "4"}).out, "1\n");
  EXPECT_EQ(run({"--", "size(12:1)"}).out, "12\n");
}

TEST(LayoutCommand, InadmissibleCompositionFailsWithReasonAndCaret) {
  const Outcome r = run({"composition((6,2):(1,10), 4:4)"});
  EXPECT_EQ(r.status, kExitErrors);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "argus layout: error at column 1: composition (6,2):(1,10) ∘ 4:4 is not "
                   "admissible: at mode 0 of A (size 6), stride 4 neither divides nor is divisible "
                   "by 6\n"
                   "  composition((6,2):(1,10), 4:4)\n"
                   "  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

TEST(LayoutCommand, MalformedExpressionSaysWhere) {
  const Outcome r = run({"logical_divide((4,2,3):(2,1,8) 4:2)"});
  EXPECT_EQ(r.status, kExitErrors);
  EXPECT_EQ(r.err, "argus layout: error at column 32: expected ',' or ')' but found '4'\n"
                   "  logical_divide((4,2,3):(2,1,8) 4:2)\n"
                   "  " +
                       std::string(31, ' ') + "^\n");
}

TEST(LayoutCommand, Table) {
  const Outcome r = run({"--table", "(2,3):(3,1)"});
  EXPECT_EQ(r.status, kExitOk) << r.err;
  EXPECT_EQ(r.out, "(2,3):(3,1)\n"
                   "    0   1   2 \n"
                   "  +---+---+---+\n"
                   "0 | 0 | 1 | 2 |\n"
                   "  +---+---+---+\n"
                   "1 | 3 | 4 | 5 |\n"
                   "  +---+---+---+\n");
  const Outcome rank1 = run({"--table", "12:1"});
  EXPECT_EQ(rank1.status, kExitErrors);
  EXPECT_NE(rank1.err.find("a table needs a rank-2 layout; 12:1 has rank 1"), std::string::npos);
}

TEST(LayoutCommand, Json) {
  const Outcome r = run({"--format=json", "--table", "composition((6,2):(8,2), (4,3):(3,1))"});
  ASSERT_EQ(r.status, kExitOk) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["expr"], "composition((6,2):(8,2), (4,3):(3,1))");
  EXPECT_EQ(j["result"], "((2,2),3):((24,2),8)");
  EXPECT_EQ(j["kind"], "layout");
  EXPECT_EQ(j["table"], nlohmann::json::parse("[[0,8,16],[24,32,40],[2,10,18],[26,34,42]]"));

  const Outcome i = run({"--format", "json", "size(12:1)"});
  const nlohmann::json ij = nlohmann::json::parse(i.out);
  EXPECT_EQ(ij["result"], "12");
  EXPECT_EQ(ij["kind"], "int");
  EXPECT_FALSE(ij.contains("table"));

  const Outcome e = run({"--format=json", "complement(4:2, x)"});
  EXPECT_EQ(e.status, kExitErrors);
  const nlohmann::json ej = nlohmann::json::parse(e.out);
  EXPECT_EQ(ej["error"]["column"], 17);
  EXPECT_EQ(ej["error"]["length"], 1);
  EXPECT_NE(ej["error"]["message"].get<std::string>().find("the cotarget must be an integer"),
            std::string::npos);
}

TEST(LayoutCommand, UsageErrors) {
  for (const std::vector<std::string> &args :
       std::vector<std::vector<std::string>>{{},
                                             {"--table"},
                                             {"--format=xml", "12:1"},
                                             {"--format"},
                                             {"--frobnicate", "12:1"},
                                             {" "}}) {
    const Outcome r = run(args);
    EXPECT_EQ(r.status, kExitUsage) << (args.empty() ? "" : args[0]);
    EXPECT_NE(r.err.find("argus layout: error: "), std::string::npos);
    EXPECT_EQ(r.out, "");
  }
  const Outcome help = run({"--help"});
  EXPECT_EQ(help.status, kExitOk);
  EXPECT_EQ(help.out, std::string(kLayoutHelp));
}

TEST(LayoutCommand, SvgPrintsAPictureOrSaysWhyNot) {
  const Outcome tv = run({"--svg", "tv(mma_m16n8k16_bf16, C)"});
  EXPECT_EQ(tv.status, kExitOk) << tv.err;
  EXPECT_TRUE(tv.out.starts_with("<svg ")) << tv.out.substr(0, 80);
  EXPECT_NE(tv.out.find("thread 31, value 3"), std::string::npos);
  const Outcome number = run({"--svg", "3"});
  EXPECT_EQ(number.status, kExitErrors);
  EXPECT_TRUE(number.out.empty());
  EXPECT_NE(number.err.find("rank-2"), std::string::npos) << number.err;
  const Outcome json = run({"--svg", "--format=json", "4:1"});
  EXPECT_EQ(json.status, kExitOk);
  EXPECT_TRUE(nlohmann::json::parse(json.out)["svg"].get<std::string>().starts_with("<svg "));
}

// The examples of the help text print what the help says they print.
TEST(LayoutCommand, HelpExamplesAreTrue) {
  const std::string help(kLayoutHelp);
  size_t pos = 0;
  int checked = 0;
  while ((pos = help.find("argus layout '", pos)) != std::string::npos) {
    const size_t start = pos + 14;
    const size_t end = help.find('\'', start);
    const size_t arrow = help.find("->", end);
    const size_t eol = help.find('\n', end);
    pos = end;
    if (arrow == std::string::npos || arrow > eol)
      continue;
    const std::string expr = help.substr(start, end - start);
    const std::string expected = help.substr(arrow + 3, eol - arrow - 3);
    EXPECT_EQ(run({expr}).out, expected + "\n") << expr;
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

} // namespace
} // namespace argus::cli
