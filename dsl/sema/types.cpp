#include "argus/dsl/types.h"

#include <array>

namespace argus::sema {
namespace {

struct ScalarInfo {
  ScalarKind kind;
  const char *name;
  int bits;
  bool is_float;
  bool is_signed;
};

constexpr std::array kScalars = {
    ScalarInfo{ScalarKind::I8, "i8", 8, false, true},
    ScalarInfo{ScalarKind::I16, "i16", 16, false, true},
    ScalarInfo{ScalarKind::I32, "i32", 32, false, true},
    ScalarInfo{ScalarKind::I64, "i64", 64, false, true},
    ScalarInfo{ScalarKind::U8, "u8", 8, false, false},
    ScalarInfo{ScalarKind::U16, "u16", 16, false, false},
    ScalarInfo{ScalarKind::U32, "u32", 32, false, false},
    ScalarInfo{ScalarKind::U64, "u64", 64, false, false},
    ScalarInfo{ScalarKind::F16, "f16", 16, true, true},
    ScalarInfo{ScalarKind::BF16, "bf16", 16, true, true},
    ScalarInfo{ScalarKind::F32, "f32", 32, true, true},
    ScalarInfo{ScalarKind::F64, "f64", 64, true, true},
    ScalarInfo{ScalarKind::FP8E4M3, "fp8e4m3", 8, true, true},
    ScalarInfo{ScalarKind::FP8E5M2, "fp8e5m2", 8, true, true},
    ScalarInfo{ScalarKind::FP8E4M3FNUZ, "fp8e4m3fnuz", 8, true, true},
    ScalarInfo{ScalarKind::FP8E5M2FNUZ, "fp8e5m2fnuz", 8, true, true},
    ScalarInfo{ScalarKind::Bool, "bool", 8, false, false},
};

const ScalarInfo &info(ScalarKind kind) { return kScalars[static_cast<size_t>(kind)]; }

} // namespace

std::optional<ScalarKind> scalar_from_name(std::string_view name) {
  for (const ScalarInfo &s : kScalars) {
    if (name == s.name)
      return s.kind;
  }
  return std::nullopt;
}

const char *to_string(ScalarKind kind) { return info(kind).name; }
int bit_width(ScalarKind kind) { return info(kind).bits; }
bool is_float(ScalarKind kind) { return info(kind).is_float; }
bool is_integer(ScalarKind kind) { return !info(kind).is_float && kind != ScalarKind::Bool; }
bool is_signed(ScalarKind kind) { return info(kind).is_signed; }

bool is_fp8(ScalarKind kind) {
  return kind == ScalarKind::FP8E4M3 || kind == ScalarKind::FP8E5M2 ||
         kind == ScalarKind::FP8E4M3FNUZ || kind == ScalarKind::FP8E5M2FNUZ;
}

const char *to_string(MemorySpace space) {
  switch (space) {
  case MemorySpace::Global:
    return "global";
  case MemorySpace::Shared:
    return "shared";
  case MemorySpace::Local:
    return "local";
  }
  return "?";
}

std::string Dim::str() const { return value ? std::to_string(*value) : symbol; }

std::string shape_to_string(const std::vector<Dim> &shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ", ";
    out += shape[i].str();
  }
  if (shape.size() == 1)
    out += ",";
  return out + ")";
}

Type Type::tensor_of(TensorType t) {
  Type type = of(TypeKind::Tensor);
  type.tensor = std::make_shared<const TensorType>(std::move(t));
  return type;
}

Type Type::tensor_spec_of(TensorType t) {
  Type type = of(TypeKind::TensorSpec);
  type.tensor = std::make_shared<const TensorType>(std::move(t));
  return type;
}

Type Type::tuple_of(std::vector<Type> elements) {
  Type type = of(TypeKind::Tuple);
  type.elements = std::move(elements);
  return type;
}

bool Type::is_numeric() const {
  return kind == TypeKind::Scalar || kind == TypeKind::IntLiteral || kind == TypeKind::FloatLiteral;
}

bool Type::is_integer_like() const {
  return kind == TypeKind::IntLiteral ||
         (kind == TypeKind::Scalar && (is_integer(scalar) || scalar == ScalarKind::Bool));
}

std::string Type::str() const {
  switch (kind) {
  case TypeKind::Unknown:
    return "<unknown>";
  case TypeKind::Void:
    return "None";
  case TypeKind::IntLiteral:
    return "int";
  case TypeKind::FloatLiteral:
    return "float";
  case TypeKind::Scalar:
    return to_string(scalar);
  case TypeKind::Tensor:
    return tensor->str();
  case TypeKind::Tuple: {
    std::string out = "(";
    for (size_t i = 0; i < elements.size(); ++i)
      out += (i ? ", " : "") + elements[i].str();
    return out + (elements.size() == 1 ? ",)" : ")");
  }
  case TypeKind::Dtype:
    return std::string("dtype ") + to_string(scalar);
  case TypeKind::String:
    return "str";
  case TypeKind::Dict:
    return "tag record";
  case TypeKind::Lambda:
    return "lambda";
  case TypeKind::TensorSpec:
    return "Tensor(" + shape_to_string(tensor->shape) + ", " + to_string(tensor->dtype) + ")";
  case TypeKind::Layout:
    return "layout";
  case TypeKind::Swizzle:
    return "swizzle";
  case TypeKind::Range:
    return "range";
  case TypeKind::Namespace:
    return "namespace";
  case TypeKind::Function:
    return "function";
  }
  return "?";
}

std::optional<int64_t> TensorType::element_count() const {
  int64_t count = 1;
  for (const Dim &d : shape) {
    if (!d.value)
      return std::nullopt;
    count *= *d.value;
  }
  return count;
}

std::optional<int64_t> TensorType::byte_size() const {
  const auto count = element_count();
  if (!count)
    return std::nullopt;
  return *count * bit_width(dtype) / 8;
}

std::string TensorType::str() const {
  std::string out = std::string(to_string(space)) + " Tensor(" + shape_to_string(shape);
  if (!strides.empty())
    out += ", " + shape_to_string(strides);
  out += std::string(", ") + to_string(dtype) + ")";
  if (swizzled)
    out += " swizzled";
  return out;
}

bool assignable(const Type &to, const Type &from) {
  if (to.is_unknown() || from.is_unknown())
    return true;
  switch (to.kind) {
  case TypeKind::Scalar:
    if (from.kind == TypeKind::Scalar) {
      if (from.scalar == to.scalar)
        return true;
      // Integers widen implicitly; floats of different formats never do.
      return is_integer(to.scalar) && (is_integer(from.scalar) || from.scalar == ScalarKind::Bool);
    }
    if (from.kind == TypeKind::IntLiteral)
      return to.scalar != ScalarKind::Bool;
    if (from.kind == TypeKind::FloatLiteral)
      return is_float(to.scalar);
    return false;
  case TypeKind::Tensor: {
    if (from.kind != TypeKind::Tensor)
      return false;
    const TensorType &a = *to.tensor;
    const TensorType &b = *from.tensor;
    return a.dtype == b.dtype && a.element_count() == b.element_count() &&
           (a.element_count() || a.shape == b.shape);
  }
  case TypeKind::Tuple:
    if (from.kind != TypeKind::Tuple || from.elements.size() != to.elements.size())
      return false;
    for (size_t i = 0; i < to.elements.size(); ++i) {
      if (!assignable(to.elements[i], from.elements[i]))
        return false;
    }
    return true;
  default:
    return to.kind == from.kind;
  }
}

} // namespace argus::sema
