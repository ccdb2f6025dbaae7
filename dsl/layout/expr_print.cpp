// Printing symbolic expressions as mathematics (Python/Argus syntax) and as C++.
#include "argus/layout/expr.h"

#include <ostream>

namespace argus::layout {
namespace {

// Binding strength; the same order in Python and C++ for these operators.
enum Prec : int { kOr = 1, kXor, kAnd, kShift, kAdd, kMul, kUnary, kAtom };

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
int log2_exact(int64_t v) {
  int k = 0;
  while ((int64_t{1} << k) != v)
    ++k;
  return k;
}

class Printer {
public:
  Printer(bool cpp, const CppPrintOptions *options) : cpp_(cpp), options_(options) {}

  std::string print(ExprRef e) {
    emit(e);
    return std::move(out_);
  }

private:
  bool pow2_divisor(ExprRef d) const { return d.is_constant() && is_pow2(d.constant()); }
  // C++ / and % match floor semantics only here.
  static bool plain_division(ExprRef a, ExprRef d) {
    return a.range().non_negative_values() && d.range().positive_values();
  }

  int prec(ExprRef e) const {
    switch (e.kind()) {
    case ExprKind::Constant:
      return e.constant() < 0 ? kUnary : kAtom;
    case ExprKind::Symbol:
    case ExprKind::Min:
    case ExprKind::Max:
      return kAtom;
    case ExprKind::Add:
      return kAdd;
    case ExprKind::Mul:
      return kMul;
    case ExprKind::FloorDiv:
    case ExprKind::Mod:
      if (!cpp_)
        return kMul;
      if (pow2_divisor(e.operand(1)))
        return e.kind() == ExprKind::FloorDiv ? kShift : kAnd;
      return plain_division(e.operand(0), e.operand(1)) ? kMul : kAtom;
    case ExprKind::Xor:
      return kXor;
    case ExprKind::And:
      return kAnd;
    case ExprKind::Or:
      return kOr;
    case ExprKind::Shl:
    case ExprKind::Shr:
      return kShift;
    }
    return kAtom;
  }

  void literal(int64_t v) {
    if (!cpp_) {
      out_ += std::to_string(v);
      return;
    }
    if (v == kNegInf) {
      out_ += "(-9223372036854775807LL - 1)";
      return;
    }
    out_ += std::to_string(v);
    if (v > 2147483647 || v < -2147483647)
      out_ += "LL";
  }

  // Operands of everything but a sum are parenthesized unless atomic: both
  // for readability and to keep C++ compilers' -Wparentheses quiet.
  void operand(ExprRef e) {
    if (prec(e) < kAtom) {
      out_ += '(';
      emit(e);
      out_ += ')';
    } else {
      emit(e);
    }
  }

  void emit_mul(int64_t coeff, std::span<const ExprRef> factors) {
    if (coeff == -1 && !factors.empty()) {
      out_ += '-';
    } else if (coeff != 1 || factors.empty()) {
      literal(coeff);
      if (!factors.empty())
        out_ += " * ";
    }
    for (size_t i = 0; i < factors.size(); ++i) {
      if (i > 0)
        out_ += " * ";
      operand(factors[i]);
    }
  }

  static bool negative_term(ExprRef t) {
    if (t.is_constant())
      return t.constant() < 0 && t.constant() != kNegInf;
    return t.kind() == ExprKind::Mul && t.coefficient() < 0 && t.coefficient() != kNegInf;
  }

  void emit_sum(ExprRef e) {
    const auto ops = e.operands();
    for (size_t i = 0; i < ops.size(); ++i) {
      const ExprRef t = ops[i];
      if (i > 0 && negative_term(t)) {
        out_ += " - ";
        if (t.is_constant())
          literal(-t.constant());
        else
          emit_mul(-t.coefficient(), t.operands());
        continue;
      }
      if (i > 0)
        out_ += " + ";
      if (prec(t) <= kAdd) {
        out_ += '(';
        emit(t);
        out_ += ')';
      } else {
        emit(t);
      }
    }
  }

  void emit_call(std::string_view fn, ExprRef a, ExprRef b) {
    out_ += fn;
    out_ += '(';
    emit(a);
    out_ += ", ";
    emit(b);
    out_ += ')';
  }

  void emit_division(ExprRef e) {
    const ExprRef a = e.operand(0), d = e.operand(1);
    const bool is_div = e.kind() == ExprKind::FloorDiv;
    if (!cpp_) {
      operand(a);
      out_ += is_div ? " // " : " % ";
      operand(d);
      return;
    }
    if (pow2_divisor(d)) {
      operand(a);
      if (is_div) {
        out_ += " >> ";
        out_ += std::to_string(log2_exact(d.constant()));
      } else {
        out_ += " & ";
        literal(d.constant() - 1);
      }
      return;
    }
    if (plain_division(a, d)) {
      operand(a);
      out_ += is_div ? " / " : " % ";
      operand(d);
      return;
    }
    emit_call(is_div ? options_->floor_div_function : options_->floor_mod_function, a, d);
  }

  void emit_min_max(ExprRef e) {
    const bool is_min = e.kind() == ExprKind::Min;
    const auto ops = e.operands();
    if (!cpp_) {
      out_ += is_min ? "min(" : "max(";
      for (size_t i = 0; i < ops.size(); ++i) {
        if (i > 0)
          out_ += ", ";
        emit(ops[i]);
      }
      out_ += ')';
      return;
    }
    // Nested binary calls: f(a, f(b, c)).
    const std::string &fn = is_min ? options_->min_function : options_->max_function;
    for (size_t i = 0; i + 1 < ops.size(); ++i) {
      out_ += fn;
      out_ += '(';
      emit(ops[i]);
      out_ += ", ";
    }
    emit(ops.back());
    out_.append(ops.size() - 1, ')');
  }

  void emit(ExprRef e) {
    switch (e.kind()) {
    case ExprKind::Constant:
      literal(e.constant());
      return;
    case ExprKind::Symbol:
      out_ += e.symbol_name();
      return;
    case ExprKind::Add:
      emit_sum(e);
      return;
    case ExprKind::Mul:
      emit_mul(e.coefficient(), e.operands());
      return;
    case ExprKind::FloorDiv:
    case ExprKind::Mod:
      emit_division(e);
      return;
    case ExprKind::Xor:
    case ExprKind::And:
    case ExprKind::Or: {
      const char *sep =
          e.kind() == ExprKind::Xor ? " ^ " : (e.kind() == ExprKind::And ? " & " : " | ");
      const auto ops = e.operands();
      for (size_t i = 0; i < ops.size(); ++i) {
        if (i > 0)
          out_ += sep;
        operand(ops[i]);
      }
      return;
    }
    case ExprKind::Shl:
    case ExprKind::Shr:
      operand(e.operand(0));
      out_ += e.kind() == ExprKind::Shl ? " << " : " >> ";
      operand(e.operand(1));
      return;
    case ExprKind::Min:
    case ExprKind::Max:
      emit_min_max(e);
      return;
    }
  }

  bool cpp_;
  const CppPrintOptions *options_;
  std::string out_;
};

} // namespace

std::string to_string(ExprRef e) {
  if (e.is_null())
    return "<null>";
  return Printer(false, nullptr).print(e);
}

std::ostream &operator<<(std::ostream &os, ExprRef e) { return os << to_string(e); }

std::string to_cpp(ExprRef e, const CppPrintOptions &options) {
  if (e.is_null())
    return "<null>";
  return Printer(true, &options).print(e);
}

} // namespace argus::layout
