#include "argus/dsl/layout_calc.h"
#include "argus/dsl/layout_svg.h"

#include "argus/layout/layout_expr.h"

#include <string>

namespace argus {

namespace {

nlohmann::json error_json(std::string_view expr, const layout::calc::ExprError &error) {
  return nlohmann::json{{"expr", std::string(expr)},
                        {"error",
                         {{"message", error.message},
                          {"column", layout::calc::column_of(expr, error.offset)},
                          {"offset", error.offset},
                          {"length", error.length}}}};
}

} // namespace

nlohmann::json layout_calculation(std::string_view expr, bool table, bool svg) {
  const layout::calc::Evaluation evaluation = layout::calc::evaluate_expression(expr);
  if (evaluation.error)
    return error_json(expr, *evaluation.error);
  const layout::calc::Value &value = *evaluation.value;
  nlohmann::json j;
  j["expr"] = std::string(expr);
  j["result"] = layout::calc::to_string(value);
  j["kind"] = std::string(layout::calc::kind_name(value));
  if (table) {
    layout::Result<layout::calc::Table> made = layout::calc::make_table(value);
    if (!made.ok())
      return error_json(expr, {made.error().message, 0, expr.size()});
    j["table"] = made.value().cells;
  }
  if (svg) {
    std::string why;
    if (auto picture = layout_svg(expr, why))
      j["svg"] = std::move(*picture);
    else
      j["svgError"] = why;
  }
  return j;
}

} // namespace argus
