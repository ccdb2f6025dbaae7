// `argus layout [--table | --svg] [--format=text|json] EXPR`
#include "argus/cli/layout_command.h"

#include "argus/dsl/layout_calc.h"
#include "argus/dsl/layout_svg.h"
#include "argus/layout/layout_expr.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace argus::cli {

const std::string_view kLayoutSummary = "Evaluate a layout-algebra expression (CuTe notation)";

const std::string_view kLayoutHelp = R"(Usage: argus layout [options] EXPR

Evaluates a layout-algebra expression and prints its value in CuTe notation.
Quote EXPR for the shell; its words are joined by spaces.

Examples:
  argus layout 'composition((6,2):(8,2), (4,3):(3,1))'   -> ((2,2),3):((24,2),8)
  argus layout 'complement(4:2, 24)'                      -> (2,3):(1,8)
  argus layout 'logical_divide((4,2,3):(2,1,8), 4:2)'     -> ((2,2),(2,3)):((4,1),(2,8))
  argus layout 'right_inverse((4,3):(3,1))'               -> (3,4):(4,1)
  argus layout 'swizzle(3,4,3)(144)'                      -> 128
  argus layout '(2,(2,2)):(4,(2,1))(5)'                   -> 5
  argus layout 'idx2crd(16, (3,(2,3)))'                   -> (1,(1,2))
  argus layout --table 'tv(mma_m16n8k16_bf16, C)'
  argus layout --svg 'tv(mma_m16n8k16_bf16, C)' > mma_c.svg

Values: integers (12, 0x10, 0b1000), tuples ((2,(1,6))), layouts (shape:stride),
tilers (tuples holding layouts: (4:2, 8:1)), swizzles (swizzle(B,M,S)).
Functions: composition (or A ∘ B), complement, logical_divide, zipped_divide,
tiled_divide, flat_divide, logical_product, blocked_product, raked_product,
tile_to_shape, right_inverse, left_inverse, coalesce, filter, flatten, size,
cosize, rank, depth, shape, stride, mode (get), idx2crd, crd2idx, left, right,
make_layout, swizzle, make_swizzle, tv. L(i) evaluates a layout at an index or a
coordinate; integers allow + - * / %. The language is described in docs/layout.md.

Options:
  --table              Print the index grid of a rank-2 layout (rows x columns).
  --svg                Print an SVG picture instead: for tv(INSTRUCTION, OPERAND)
                       the operand matrix with the thread and value of each
                       element (a colour per thread), for another layout of
                       rank 1 or 2 its index grid. With --format=json, the
                       picture is the "svg" field.
  --format=text|json   text (default), or one JSON object on stdout:
                       {"expr", "result", "kind", "table"?} or {"expr", "error"}.
  -h, --help           Print this help, then exit.
  --                   Everything after it is the expression.

Exit status:
  0  the expression was evaluated
  1  the expression is malformed or an operation failed (the message says
     which condition failed; a caret points at the sub-expression)
  2  a usage error
)";

namespace {

struct LayoutOptions {
  bool table = false;
  bool svg = false;
  bool json = false;
  bool help = false;
  std::string expr;
};

struct Usage {
  std::string message;
};

// An option is a word that starts with "-" and a letter or "--"; "-3" and
// "-(...)" belong to the expression.
bool looks_like_option(const std::string &arg) {
  if (arg.size() < 2 || arg[0] != '-')
    return false;
  return arg[1] == '-' || (arg[1] >= 'a' && arg[1] <= 'z') || (arg[1] >= 'A' && arg[1] <= 'Z');
}

std::optional<Usage> parse(std::span<const std::string> args, LayoutOptions &options) {
  std::vector<std::string> words;
  bool only_words = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (only_words || !looks_like_option(arg)) {
      words.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_words = true;
    } else if (arg == "--table") {
      options.table = true;
    } else if (arg == "--svg") {
      options.svg = true;
    } else if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else if (arg == "--format" || arg.rfind("--format=", 0) == 0) {
      std::string value;
      if (arg == "--format") {
        if (i + 1 == args.size())
          return Usage{"--format needs a value (text or json)"};
        value = args[++i];
      } else {
        value = arg.substr(9);
      }
      if (value != "text" && value != "json")
        return Usage{"invalid --format '" + value + "' (expected text or json)"};
      options.json = value == "json";
    } else {
      return Usage{"unknown option '" + arg + "'"};
    }
  }
  for (const std::string &w : words)
    options.expr += (options.expr.empty() ? "" : " ") + w;
  if (!options.help && options.expr.find_first_not_of(" \t\r\n") == std::string::npos)
    return Usage{"no expression"};
  return std::nullopt;
}

int report_error(Environment &env, const LayoutOptions &options,
                 const layout::calc::ExprError &error) {
  env.err << "argus layout: error at " << layout::calc::format_error(options.expr, error);
  return kExitErrors;
}

} // namespace

int run_layout(std::span<const std::string> args, Environment &env) {
  LayoutOptions options;
  if (const std::optional<Usage> usage = parse(args, options)) {
    env.err << "argus layout: error: " << usage->message << " (see 'argus help layout')\n";
    return kExitUsage;
  }
  if (options.help) {
    env.out << kLayoutHelp;
    return kExitOk;
  }
  if (options.json) {
    // One path with the language server's argus.layout command.
    const nlohmann::json j = layout_calculation(options.expr, options.table, options.svg);
    env.out << j.dump(2) << '\n';
    return j.contains("error") || j.contains("svgError") ? kExitErrors : kExitOk;
  }
  if (options.svg) {
    std::string why;
    const std::optional<std::string> picture = layout_svg(options.expr, why);
    if (!picture) {
      env.err << "argus layout: error: " << why << '\n';
      return kExitErrors;
    }
    env.out << *picture;
    return kExitOk;
  }
  const layout::calc::Evaluation evaluation = layout::calc::evaluate_expression(options.expr);
  if (evaluation.error)
    return report_error(env, options, *evaluation.error);
  const layout::calc::Value &value = *evaluation.value;

  std::optional<layout::calc::Table> table;
  if (options.table) {
    layout::Result<layout::calc::Table> made = layout::calc::make_table(value);
    if (!made.ok())
      return report_error(env, options, {made.error().message, 0, options.expr.size()});
    table = std::move(made).value();
  }

  if (table)
    env.out << layout::calc::render_table(*table);
  else
    env.out << layout::calc::to_string(value) << '\n';
  return kExitOk;
}

} // namespace argus::cli
