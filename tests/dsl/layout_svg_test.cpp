// Layout pictures (argus/dsl/layout_svg.h): one cell per (thread, value), a
// colour per thread, well-formed SVG; a golden file for one mma layout.
#include "argus/dsl/layout_calc.h"
#include "argus/dsl/layout_svg.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace argus {
namespace {

struct SvgCell {
  int row = 0, col = 0;
  std::string tooltip, fill;
};

std::vector<SvgCell> cells_of(const std::string &svg) {
  static const std::regex cell(
      R"re(<g class="cell" data-row="(\d+)" data-col="(\d+)"><title>([^<]*)</title><rect [^>]*fill="([^"]+)")re");
  std::vector<SvgCell> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), cell); it != std::sregex_iterator();
       ++it)
    out.push_back({std::stoi((*it)[1]), std::stoi((*it)[2]), (*it)[3], (*it)[4]});
  return out;
}

// Every opened element is closed, in order (the SVG is XML).
bool well_formed(const std::string &svg) {
  static const std::regex tag(R"(<(/?)([a-z]+)[^>]*?(/?)>)");
  std::vector<std::string> open;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator();
       ++it) {
    const std::string name = (*it)[2];
    if ((*it)[3] == "/")
      continue; // <rect .../>
    if ((*it)[1] == "/") {
      if (open.empty() || open.back() != name)
        return false;
      open.pop_back();
    } else {
      open.push_back(name);
    }
  }
  return open.empty() && svg.starts_with("<svg ");
}

TEST(LayoutSvg, MmaAccumulatorOneCellPerThreadAndValueAColourPerThread) {
  std::string error;
  const auto svg = layout_svg("tv(mma_m16n8k16_bf16, C)", error);
  ASSERT_TRUE(svg.has_value()) << error;
  EXPECT_TRUE(well_formed(*svg));
  const std::vector<SvgCell> cells = cells_of(*svg);
  ASSERT_EQ(cells.size(), 16u * 8u);
  std::set<std::pair<int, int>> held; // (thread, value)
  std::map<int, std::string> fill_of_thread;
  std::set<std::string> fills;
  static const std::regex who(R"(thread (\d+), value (\d+))");
  for (const SvgCell &c : cells) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(c.tooltip, m, who)) << c.tooltip;
    const int thread = std::stoi(m[1]), value = std::stoi(m[2]);
    EXPECT_TRUE(held.insert({thread, value}).second) << c.tooltip;
    auto [it, first] = fill_of_thread.emplace(thread, c.fill);
    EXPECT_EQ(it->second, c.fill) << "thread " << thread << " has one colour";
    if (first)
      fills.insert(c.fill);
  }
  EXPECT_EQ(held.size(), 32u * 4u);
  EXPECT_EQ(fills.size(), 32u) << "each thread its own colour";
  // The PTX ISA's accumulator fragment: lane 4 holds row 1, column 0; row 8 is value 2 of lane 0.
  for (const SvgCell &c : cells) {
    if (c.row == 1 && c.col == 0) {
      EXPECT_EQ(c.tooltip, "(1, 0): thread 4, value 0");
    }
    if (c.row == 8 && c.col == 0) {
      EXPECT_EQ(c.tooltip, "(8, 0): thread 0, value 2");
    }
  }
}

TEST(LayoutSvg, MatchesTheGoldenPicture) {
  std::ifstream in(std::string(ARGUS_SOURCE_DIR) + "/tests/dsl/golden/tv_mma_m16n8k16_bf16_C.svg");
  ASSERT_TRUE(in);
  std::stringstream golden;
  golden << in.rdbuf();
  std::string error;
  EXPECT_EQ(layout_svg("tv(mma_m16n8k16_bf16, C)", error).value_or(error), golden.str())
      << "regenerate with: argus layout --svg 'tv(mma_m16n8k16_bf16, C)' > "
         "tests/dsl/golden/tv_mma_m16n8k16_bf16_C.svg (and look at it)";
}

TEST(LayoutSvg, APlainLayoutIsItsIndexGrid) {
  std::string error;
  const auto grid = layout_svg("(4,8):(8,1)", error);
  ASSERT_TRUE(grid.has_value()) << error;
  EXPECT_TRUE(well_formed(*grid));
  const auto cells = cells_of(*grid);
  ASSERT_EQ(cells.size(), 32u);
  EXPECT_EQ(cells[9].tooltip, "(1, 1): offset 9");
  const auto row = layout_svg("8:2", error);
  ASSERT_TRUE(row.has_value()) << error;
  const auto row_cells = cells_of(*row);
  ASSERT_EQ(row_cells.size(), 8u);
  EXPECT_EQ(row_cells[3].tooltip, "(0, 3): offset 6");
}

TEST(LayoutSvg, WhatCannotBeDrawnSaysWhy) {
  std::string error;
  EXPECT_FALSE(layout_svg("12", error).has_value());
  EXPECT_NE(error.find("rank-2"), std::string::npos) << error;
  EXPECT_FALSE(layout_svg("complement(4:2, x)", error).has_value());
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(layout_svg("(256,256):(256,1)", error).has_value());
  EXPECT_NE(error.find("at most"), std::string::npos) << error;
  // The calculator's JSON carries the picture or why there is none.
  EXPECT_TRUE(layout_calculation("tv(mma_m16n8k16_bf16, A)", false, true).contains("svg"));
  EXPECT_TRUE(layout_calculation("12", false, true).contains("svgError"));
}

} // namespace
} // namespace argus
