// SVG pictures of layouts and thread–value layouts (layout_svg.h).
#include "argus/dsl/layout_svg.h"

#include "argus/layout/layout_expr.h"
#include "argus/layout/tv_layouts.h"

#include <cstdio>
#include <sstream>
#include <vector>

namespace argus {

namespace {

constexpr int kCellWidth = 44;
constexpr int kCellHeight = 30;
constexpr int kMargin = 30; // room for the row and column indices
constexpr int64_t kMaxCells = 1 << 15;

std::string xml_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return s;
}

// `tv(INSTRUCTION, OPERAND)` as written, or null.
const layout::TvLayout *tv_entry_of(std::string_view expr) {
  expr = trim(expr);
  if (!expr.starts_with("tv(") || !expr.ends_with(")"))
    return nullptr;
  const std::string_view inside = expr.substr(3, expr.size() - 4);
  const size_t comma = inside.find(',');
  if (comma == std::string_view::npos)
    return nullptr;
  return layout::find_tv_entry(trim(inside.substr(0, comma)), trim(inside.substr(comma + 1)));
}

// One colour per thread, neighbours far apart on the hue circle.
std::string thread_colour(int64_t thread) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "hsl(%lld,65%%,78%%)",
                static_cast<long long>((thread * 137) % 360));
  return buf;
}

// CuTe's eight pastel colours for offsets modulo 8.
std::string offset_colour(int64_t offset) {
  static const char *palette[] = {"#afd5f0", "#f5c6a5", "#b8e3b0", "#f2b5c4",
                                  "#d7c6f0", "#f0e6a5", "#a5e6e0", "#d9d9d9"};
  return palette[((offset % 8) + 8) % 8];
}

struct Cell {
  std::string fill;
  std::vector<std::string> lines; // one or two labels
  std::string tooltip;
};

std::string render(const std::string &title, int64_t rows, int64_t cols,
                   const std::vector<Cell> &cells) {
  const int64_t width = kMargin + cols * kCellWidth + 1;
  const int64_t height = kMargin + rows * kCellHeight + 1;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height
      << "\" font-family=\"monospace\" font-size=\"11\" text-anchor=\"middle\">\n"
      << "<title>" << xml_escape(title) << "</title>\n";
  for (int64_t n = 0; n < cols; ++n)
    svg << "<text x=\"" << kMargin + n * kCellWidth + kCellWidth / 2 << "\" y=\"" << kMargin - 10
        << "\">" << n << "</text>\n";
  for (int64_t m = 0; m < rows; ++m)
    svg << "<text x=\"" << kMargin / 2 << "\" y=\""
        << kMargin + m * kCellHeight + kCellHeight / 2 + 4 << "\">" << m << "</text>\n";
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t n = 0; n < cols; ++n) {
      const Cell &c = cells[static_cast<size_t>(m * cols + n)];
      const int64_t x = kMargin + n * kCellWidth, y = kMargin + m * kCellHeight;
      svg << "<g class=\"cell\" data-row=\"" << m << "\" data-col=\"" << n << "\"><title>"
          << xml_escape(c.tooltip) << "</title><rect x=\"" << x << "\" y=\"" << y << "\" width=\""
          << kCellWidth << "\" height=\"" << kCellHeight << "\" fill=\"" << c.fill
          << "\" stroke=\"#000\" stroke-width=\"0.5\"/>";
      const int64_t first = y + (c.lines.size() == 1 ? kCellHeight / 2 + 4 : kCellHeight / 2 - 2);
      for (size_t i = 0; i < c.lines.size(); ++i)
        svg << "<text x=\"" << x + kCellWidth / 2 << "\" y=\""
            << first + static_cast<int64_t>(i) * 12 << "\">" << xml_escape(c.lines[i]) << "</text>";
      svg << "</g>\n";
    }
  svg << "</svg>\n";
  return svg.str();
}

std::optional<std::string> tv_svg(const layout::TvLayout &tv, std::string_view expr,
                                  std::string &error) {
  const int64_t rows = tv.rows, cols = tv.cols; // at most kMaxCells: drawing_of
  const bool broadcast = layout::is_broadcast(tv);
  const int64_t threads = tv.threads, values = layout::values_per_thread(tv);
  std::vector<Cell> cells(static_cast<size_t>(rows * cols));
  std::vector<bool> held(cells.size(), false);
  for (int64_t v = 0; v < values; ++v)
    for (int64_t t = 0; t < (broadcast ? 1 : threads); ++t) {
      auto index = tv.layout(t + threads * v);
      if (!index.ok() || index.value() < 0 || index.value() >= rows * cols) {
        error = "the layout maps (thread " + std::to_string(t) + ", value " + std::to_string(v) +
                ") outside the operand";
        return std::nullopt;
      }
      const int64_t m = index.value() % rows, n = index.value() / rows; // column-major
      Cell &c = cells[static_cast<size_t>(m * cols + n)];
      held[static_cast<size_t>(m * cols + n)] = true;
      const std::string where = "(" + std::to_string(m) + ", " + std::to_string(n) + "): ";
      if (broadcast) {
        c = {"#d9d9d9",
             {"V" + std::to_string(v)},
             where + "value " + std::to_string(v) + " of every thread"};
      } else {
        c = {thread_colour(t),
             {"T" + std::to_string(t), "V" + std::to_string(v)},
             where + "thread " + std::to_string(t) + ", value " + std::to_string(v)};
      }
    }
  for (size_t i = 0; i < cells.size(); ++i)
    if (!held[i])
      cells[i] = {"#ffffff", {}, "held by no thread"};
  const std::string title = std::string(expr) + ": " + std::string(tv.instruction) + " " +
                            std::string(tv.operand) + ", " + std::to_string(rows) + " x " +
                            std::to_string(cols) + ", " + std::to_string(threads) + " threads x " +
                            std::to_string(values) + " values";
  return render(title, rows, cols, cells);
}

} // namespace

namespace {

// What layout_svg draws for EXPR, without drawing it: a thread-value entry,
// or the index table of a plain layout (at most kMaxCells cells).
struct Drawing {
  const layout::TvLayout *tv = nullptr;
  std::optional<layout::calc::Value> value;
  layout::calc::Table table;
};

std::optional<Drawing> drawing_of(std::string_view expr, std::string &error) {
  const layout::calc::Evaluation evaluation = layout::calc::evaluate_expression(expr);
  if (evaluation.error) {
    error = layout::calc::format_error(expr, *evaluation.error);
    return std::nullopt;
  }
  Drawing d;
  if ((d.tv = tv_entry_of(expr))) {
    if (int64_t{d.tv->rows} * d.tv->cols > kMaxCells) {
      error = "the operand has " + std::to_string(int64_t{d.tv->rows} * d.tv->cols) +
              " elements; at most " + std::to_string(kMaxCells) + " are drawn";
      return std::nullopt;
    }
    return d;
  }
  const layout::calc::Value &value = *evaluation.value;
  const auto *plain = std::get_if<layout::Layout>(&value);
  layout::calc::Value grid = value;
  if (plain && layout::rank(plain->shape()) == 1) // one row
    grid = layout::make_layout({layout::Layout(1, 0), *plain});
  auto made = layout::calc::make_table(grid);
  if (!made.ok()) {
    error = made.error().message;
    return std::nullopt;
  }
  d.table = std::move(made.value());
  const int64_t rows = static_cast<int64_t>(d.table.cells.size());
  const int64_t cols = rows == 0 ? 0 : static_cast<int64_t>(d.table.cells[0].size());
  if (rows * cols > kMaxCells) {
    error = "the layout has " + std::to_string(rows * cols) + " cells; at most " +
            std::to_string(kMaxCells) + " are drawn";
    return std::nullopt;
  }
  d.value = value;
  return d;
}

} // namespace

bool layout_drawable(std::string_view expr) {
  std::string error;
  return drawing_of(expr, error).has_value();
}

std::optional<std::string> layout_svg(std::string_view expr, std::string &error) {
  std::optional<Drawing> d = drawing_of(expr, error);
  if (!d)
    return std::nullopt;
  if (d->tv)
    return tv_svg(*d->tv, expr, error);
  const layout::calc::Table &table = d->table;
  const int64_t rows = static_cast<int64_t>(table.cells.size());
  const int64_t cols = rows == 0 ? 0 : static_cast<int64_t>(table.cells[0].size());
  std::vector<Cell> cells;
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t n = 0; n < cols; ++n) {
      const int64_t offset = table.cells[static_cast<size_t>(m)][static_cast<size_t>(n)];
      cells.push_back({offset_colour(offset),
                       {std::to_string(offset)},
                       "(" + std::to_string(m) + ", " + std::to_string(n) + "): offset " +
                           std::to_string(offset)});
    }
  return render(std::string(expr) + " = " + layout::calc::to_string(*d->value), rows, cols, cells);
}

} // namespace argus
