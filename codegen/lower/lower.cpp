// Lowering of checked kernels to CUDA C++ (sm90) and HIP C++ (gfx942).
//
// One walk over each function's AST with the sema side tables: scalar
// expressions print as C++ with Argus semantics; integer index arithmetic goes
// through the layout library's symbolic expressions (constants folded,
// division and modulo by powers of two as shifts and masks, floor-division
// helpers only where an operand may be negative); tensors are compile-time
// views (buffer, byte offset, shape, strides) folded into index arithmetic;
// intrinsics print as inline PTX or __builtin_amdgcn_* builtins. The host
// side (launchers, checks, the artifact description) is in host.cpp.
#include "lower_internal.h"

#include "argus/codegen/codes.h"
#include "argus/codegen/fp8_prelude_text.h"
#include "prelude.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include <sstream>

namespace argus::codegen {

std::string_view target_name(GpuTarget target) {
  return target == GpuTarget::Sm90 ? "sm90" : "gfx942";
}

std::optional<GpuTarget> parse_target(std::string_view name) {
  if (name == "sm90" || name == "sm_90a" || name == "sm_90")
    return GpuTarget::Sm90;
  if (name == "gfx942")
    return GpuTarget::Gfx942;
  return std::nullopt;
}

std::string_view source_file_name(GpuTarget target) {
  return target == GpuTarget::Sm90 ? "kernels.cu" : "kernels.hip";
}

namespace detail {

using ast::BinaryOp;
using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;
using layout::ExprRef;
using layout::Interval;
using sema::MemorySpace;
using sema::ScalarKind;
using sema::Symbol;
using sema::SymbolKind;
using sema::Type;
using sema::TypeKind;

// ---------------------------------------------------------------------------
// Names and types.

const std::set<std::string> &reserved_words() {
  static const std::set<std::string> words = {"alignas",      "alignof",
                                              "asm",          "auto",
                                              "bool",         "break",
                                              "case",         "catch",
                                              "char",         "class",
                                              "const",        "constexpr",
                                              "const_cast",   "continue",
                                              "default",      "delete",
                                              "do",           "double",
                                              "dynamic_cast", "else",
                                              "enum",         "explicit",
                                              "export",       "extern",
                                              "false",        "float",
                                              "for",          "friend",
                                              "goto",         "if",
                                              "inline",       "int",
                                              "long",         "mutable",
                                              "namespace",    "new",
                                              "noexcept",     "nullptr",
                                              "operator",     "private",
                                              "protected",    "public",
                                              "register",     "reinterpret_cast",
                                              "return",       "short",
                                              "signed",       "sizeof",
                                              "static",       "static_assert",
                                              "static_cast",  "struct",
                                              "switch",       "template",
                                              "this",         "throw",
                                              "true",         "try",
                                              "typedef",      "typeid",
                                              "typename",     "union",
                                              "unsigned",     "using",
                                              "virtual",      "void",
                                              "volatile",     "wchar_t",
                                              "while",        "and",
                                              "or",           "not",
                                              "xor",          "bitand",
                                              "bitor",        "compl",
                                              "threadIdx",    "blockIdx",
                                              "blockDim",     "gridDim",
                                              "warpSize",     "min",
                                              "max",          "abs",
                                              "error",        "error_size",
                                              "stream",       "grid",
                                              "args",         "nargs",
                                              "kernel",       "main",
                                              "dim3",         "uint2",
                                              "uint4",        "int8_t",
                                              "int16_t",      "int32_t",
                                              "int64_t",      "uint8_t",
                                              "uint16_t",     "uint32_t",
                                              "uint64_t",     "size_t",
                                              "INFINITY",     "NULL",
                                              "memcpy",       "printf",
                                              "exp",          "log",
                                              "sqrt",         "fma",
                                              "tanh",         "exp2",
                                              "log2",         "rsqrt"};
  return words;
}

std::string cpp_name(std::string_view name) {
  std::string out(name);
  if (reserved_words().count(out) || out.rfind("argus_", 0) == 0 || out.rfind("__", 0) == 0 ||
      (!out.empty() && out.back() == '_'))
    out += "_v";
  return out;
}

int bytes_of(ScalarKind kind) { return std::max(1, sema::bit_width(kind) / 8); }

bool is_signed_int(ScalarKind kind) { return sema::is_integer(kind) && sema::is_signed(kind); }

std::string type_name(ScalarKind kind, GpuTarget target) {
  const bool cuda = target == GpuTarget::Sm90;
  switch (kind) {
  case ScalarKind::I8:
    return "int8_t";
  case ScalarKind::I16:
    return "int16_t";
  case ScalarKind::I32:
    return "int32_t";
  case ScalarKind::I64:
    return "int64_t";
  case ScalarKind::U8:
    return "uint8_t";
  case ScalarKind::U16:
    return "uint16_t";
  case ScalarKind::U32:
    return "uint32_t";
  case ScalarKind::U64:
    return "uint64_t";
  case ScalarKind::F16:
    return cuda ? "__half" : "_Float16";
  case ScalarKind::BF16:
    return cuda ? "__nv_bfloat16" : "argus_bf16";
  case ScalarKind::F32:
    return "float";
  case ScalarKind::F64:
    return "double";
  case ScalarKind::FP8E4M3:
    return cuda ? "__nv_fp8_e4m3" : "argus_fp8e4m3";
  case ScalarKind::FP8E5M2:
    return cuda ? "__nv_fp8_e5m2" : "argus_fp8e5m2";
  case ScalarKind::FP8E4M3FNUZ: // no CUDA type: the prelude's software format on both
    return "argus_fp8e4m3fnuz";
  case ScalarKind::FP8E5M2FNUZ:
    return "argus_fp8e5m2fnuz";
  case ScalarKind::Bool:
    return "bool";
  }
  return "int32_t";
}

std::string vector_type(int64_t bytes, GpuTarget target) {
  const bool cuda = target == GpuTarget::Sm90;
  switch (bytes) {
  case 1:
    return "unsigned char";
  case 2:
    return "unsigned short";
  case 4:
    return "unsigned int";
  case 8:
    return cuda ? "uint2" : "argus_u32x2";
  case 16:
    return cuda ? "uint4" : "argus_u32x4";
  default:
    return "";
  }
}

std::string float_text(double v, ScalarKind kind) {
  // Rounded to the literal's type first (IEEE, to nearest even): 9 digits
  // then name that float exactly, where printing the double itself could
  // round twice.
  if (kind != ScalarKind::F64 && std::isfinite(v))
    v = static_cast<double>(static_cast<float>(v));
  if (std::isinf(v))
    return v > 0 ? "INFINITY" : "(-INFINITY)";
  if (std::isnan(v))
    return "NAN";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, kind == ScalarKind::F64 ? "%.17g" : "%.9g", v);
  std::string text = buffer;
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  if (kind != ScalarKind::F64)
    text += "f";
  return v < 0 ? "(" + text + ")" : text;
}

bool is_identifier_like(const std::string &s) {
  if (s.empty())
    return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'))
      return false;
  }
  return true;
}

// `s` wrapped in parentheses unless it is already a primary expression.
std::string paren(const std::string &s) {
  if (is_identifier_like(s))
    return s;
  if (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
    int depth = 0;
    bool outer = true;
    for (size_t i = 0; i < s.size(); ++i) {
      depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
      if (depth == 0 && i + 1 < s.size()) {
        outer = false;
        break;
      }
    }
    if (outer)
      return s;
  }
  return "(" + s + ")";
}

std::string comment_text(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    // A newline would end the comment and a backslash before one would splice
    // the next line into it: such bytes are written as \xNN.
    if (u < 0x20 || u == 0x7f || c == '\\') {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", u);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out;
}

std::string c_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "\\%03o", static_cast<unsigned char>(c));
        out += buffer;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

std::string printf_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '%')
      out += '%';
  }
  return out;
}

// ---------------------------------------------------------------------------
// The lowering of one file.

const Expr *call_arg(const Expr &call, size_t index, std::string_view keyword) {
  if (const ast::Keyword *k = call.keyword(keyword))
    return k->value.get();
  if (index < call.arg_count())
    return &call.arg(index);
  return nullptr;
}

} // namespace detail
} // namespace argus::codegen

namespace argus::codegen {
namespace detail {

using ast::Expr;
using ast::ExprKind;
using sema::MemorySpace;
using sema::ScalarKind;
using sema::Symbol;
using sema::SymbolKind;
using sema::TypeKind;

Lowerer::Lowerer(const CheckedFile &file, GpuTarget target, const LowerOptions &options)
    : file_(file), sema_(*file.sema), target_(target), options_(options) {
  if (options_.source_name.empty() && file.source)
    options_.source_name = file.source->path();
  simple_.sema = &sema_;
  for (const Symbol &s : sema_.symbols) {
    if (s.kind == SymbolKind::Constant && s.value)
      simple_.constants[s.name] = *s.value;
  }
}

void Lowerer::error(const Range &range, const std::string &message) {
  if (quiet_)
    return;
  failed_function_ = true;
  Diagnostic d;
  d.severity = Severity::Error;
  d.code = std::string(codes::kUnsupported);
  d.range = range;
  d.message = message;
  diagnostics_.push_back(std::move(d));
}

void Lowerer::line(const std::string &text) {
  if (!text.empty() && text[0] == '#') {
    body_ << text << '\n';
    return;
  }
  for (int i = 0; i < indent_; ++i)
    body_ << "  ";
  body_ << text << '\n';
}

void Lowerer::line_directive(const Range &range) {
  if (!options_.line_directives)
    return;
  line("#line " + std::to_string(range.begin.line + 1) + " " + c_string(options_.source_name));
}

std::string Lowerer::unique_name(const std::string &base) {
  std::string name = base;
  for (int i = 1; used_names_.count(name); ++i)
    name = base + "_" + std::to_string(i);
  used_names_.insert(name);
  return name;
}

const sema::Type *Lowerer::type_of(const Expr &e) const { return sema_.type_of(e); }

const Symbol *Lowerer::symbol_of(const Expr &e) const {
  if (auto it = sema_.references.find(&e); it != sema_.references.end())
    return it->second;
  if (e.kind != ExprKind::Name)
    return nullptr;
  if (fn_) {
    for (const Symbol *p : fn_->params)
      if (p && p->name == e.name)
        return p;
  }
  for (const Symbol &s : sema_.symbols) {
    if ((s.kind == SymbolKind::Constant || s.kind == SymbolKind::Function) && s.name == e.name)
      return &s;
  }
  return nullptr;
}

std::string Lowerer::local_name(const Symbol *symbol) {
  if (symbol->kind == SymbolKind::LoopVariable || symbol->type.is_tensor())
    return cpp_name(symbol->name);
  if (auto it = local_names_.find(symbol); it != local_names_.end())
    return it->second;
  const std::string name = unique_name(cpp_name(symbol->name));
  local_names_[symbol] = name;
  return name;
}

namespace {

// Device functions called (directly or not) by `roots`, callees first.
std::vector<const sema::FunctionInfo *>
reachable_device_functions(const sema::SemaResult &sema,
                           const std::vector<const sema::FunctionInfo *> &roots) {
  std::vector<const sema::FunctionInfo *> order;
  std::set<const ast::Function *> seen;
  std::function<void(const Expr &)> scan_expr;
  std::function<void(const std::vector<ast::StmtPtr> &)> scan_block;
  std::function<void(const sema::FunctionInfo &)> visit = [&](const sema::FunctionInfo &info) {
    scan_block(info.function->body);
  };
  scan_expr = [&](const Expr &e) {
    if (e.kind == ExprKind::Call && e.callee().kind == ExprKind::Name) {
      auto it = sema.references.find(&e.callee());
      if (it != sema.references.end() && it->second->kind == SymbolKind::Function &&
          it->second->function && !seen.count(it->second->function)) {
        seen.insert(it->second->function);
        if (const sema::FunctionInfo *callee = sema.function_info(it->second->function->name);
            callee && callee->role == sema::FunctionRole::Device) {
          visit(*callee);
          order.push_back(callee);
        }
      }
    }
    for (const auto &op : e.operands)
      if (op)
        scan_expr(*op);
    for (const auto &k : e.keywords)
      if (k.value)
        scan_expr(*k.value);
  };
  scan_block = [&](const std::vector<ast::StmtPtr> &body) {
    for (const auto &s : body) {
      for (const auto &t : s->targets)
        scan_expr(*t);
      if (s->target)
        scan_expr(*s->target);
      if (s->value)
        scan_expr(*s->value);
      scan_block(s->body);
      scan_block(s->orelse);
    }
  };
  for (const sema::FunctionInfo *root : roots)
    visit(*root);
  return order;
}

} // namespace

// Accumulator registers of a wgmma in flight must not be read or written by
// other instructions until wgmma_wait_group retires it. The compiler orders
// volatile asm statements but may move plain register moves across them (a
// value read after the wait, hoisted above it), and ptxas then serializes
// every wgmma of the kernel (C7514). An empty asm that "modifies" each
// accumulator, after each wait and before each wgmma_fence, pins every other
// access on its side of the wait or fence.
void Lowerer::fill_wgmma_fences() {
  std::string fences;
  for (const std::string &name : wgmma_accumulators_)
    fences += (fences.empty() ? "" : " ") + std::string("argus_register_fence(") + name + ");";
  for (const std::string &name : wgmma_packed_fragments_)
    fences += (fences.empty() ? "" : " ") + std::string("argus_pack_fence(") + name +
              ", argus_packed_" + name + ");";
  std::string body = body_.str();
  for (size_t at = body.find(kWgmmaFenceMarker); at != std::string::npos;
       at = body.find(kWgmmaFenceMarker, at + fences.size())) {
    body.replace(at, kWgmmaFenceMarker.size(), fences);
  }
  body_.str(body);
  body_.seekp(0, std::ios_base::end);
}

void Lowerer::emit_function(const sema::FunctionInfo &info, std::ostringstream &out,
                            KernelMeta *meta) {
  prepare_function(info);
  const bool kernel = info.role == sema::FunctionRole::Kernel;
  const bool cuda = target_ == GpuTarget::Sm90;
  const ast::Function &function = *info.function;
  block(function.body);
  if (failed_function_)
    return;
  fill_wgmma_fences();

  // Parameters (constexpr ones are folded away).
  std::vector<std::string> params;
  std::vector<std::string> launch_params; // "type name" for the host launcher
  for (size_t i = 0; i < info.params.size(); ++i) {
    const Symbol *p = info.params[i];
    if (!p || p->is_constexpr)
      continue;
    const std::string name = cpp_name(p->name);
    if (p->type.is_tensor()) {
      const Buffer &b = buffers_[static_cast<size_t>(param_buffers_[p])];
      const std::string t = type_name(b.dtype, target_);
      // A @device function's tensors may alias (a caller can pass one tensor
      // twice, or a shared array): no __restrict__ there.
      params.push_back((b.written ? "" : "const ") + t + (kernel ? " *__restrict__ " : " *") +
                       name);
      launch_params.push_back((b.written ? "" : "const ") + t + " *" + name);
      if (!kernel) {
        auto &writes = device_writes_[info.function];
        writes.resize(info.params.size(), false);
        writes[i] = b.written;
      }
    } else if (p->type.kind == TypeKind::Scalar) {
      params.push_back(type_name(p->type.scalar, target_) + " " + name);
      launch_params.push_back(type_name(p->type.scalar, target_) + " " + name);
    }
  }

  // TMA tensor maps: parameters in the kernel's constant bank, built by the launcher.
  if (kernel && cuda)
    for (const TensorMap &map : tensor_maps_)
      params.push_back("const __grid_constant__ CUtensorMap " + map.name);

  // Declarations hoisted to the top: shared and register arrays, locals
  // whose first use is not a plain assignment at the level that encloses all uses.
  std::vector<std::string> preamble;
  // A swizzled buffer starts on a boundary of its pattern (1024 bytes for
  // Swizzle(3, 4, 3)): the hardware swizzles wgmma and TMA tiles by address
  // bits, so offsets in the buffer and addresses must agree.
  auto alignment = [](const Buffer &b) -> int64_t {
    if (!b.swizzle)
      return 16;
    const int span = b.swizzle->bits + b.swizzle->base + b.swizzle->shift;
    return std::clamp<int64_t>(int64_t{1} << std::min(span, 10), 16, 1024);
  };
  auto round_up = [](int64_t x, int64_t to) { return (x + to - 1) / to * to; };
  int64_t static_shared = 0, largest_alignment = 16;
  for (const Buffer &b : buffers_)
    if (b.space == MemorySpace::Shared) {
      static_shared =
          round_up(static_shared, alignment(b)) + round_up(b.elements * bytes_of(b.dtype), 16);
      largest_alignment = std::max(largest_alignment, alignment(b));
    }
  use_dynamic_shared_ = cuda && kernel && static_shared > 48 * 1024;
  if (use_dynamic_shared_)
    preamble.push_back("extern __shared__ __align__(" + std::to_string(largest_alignment) +
                       ") unsigned char argus_dynamic_smem[];");
  int64_t dynamic_offset = 0;
  for (Buffer &b : buffers_) {
    const std::string t = type_name(b.dtype, target_);
    if (b.space == MemorySpace::Shared) {
      std::string comment;
      if (b.swizzle) {
        comment = " // Swizzle<" + std::to_string(b.swizzle->bits) + ", " +
                  std::to_string(b.swizzle->base) + ", " + std::to_string(b.swizzle->shift) +
                  "> on byte offsets";
      }
      if (use_dynamic_shared_) {
        dynamic_offset = round_up(dynamic_offset, alignment(b));
        b.dynamic = true;
        b.dynamic_offset = dynamic_offset;
        preamble.push_back(t + " *const " + b.name + " = reinterpret_cast<" + t +
                           " *>(argus_dynamic_smem + " + std::to_string(dynamic_offset) + ");" +
                           comment);
        dynamic_offset += (b.elements * bytes_of(b.dtype) + 15) / 16 * 16;
      } else {
        const std::string align = std::to_string(alignment(b));
        preamble.push_back(
            std::string("__shared__ ") +
            (cuda ? "__align__(" + align + ") " : "__attribute__((aligned(" + align + "))) ") + t +
            " " + b.name + "[" + std::to_string(b.elements) + "];" + comment);
      }
    } else if (b.space == MemorySpace::Local) {
      // A packed wgmma fragment is packed at every fence, also before its
      // first write: zeros, not indeterminate values.
      const bool packed = wgmma_packed_fragments_.count(b.name) > 0;
      preamble.push_back(t + " " + b.name + "[" + std::to_string(b.elements) + "]" +
                         (packed ? " = {}" : "") + ";");
      if (packed)
        preamble.push_back("uint32_t argus_packed_" + b.name + "[" +
                           std::to_string(b.elements / 2) + "];");
    }
  }
  dynamic_shared_bytes_ = use_dynamic_shared_ ? dynamic_offset : 0;
  std::vector<std::string> hoisted;
  for (const auto &[sym, decl] : decls_) {
    if (decl.at || sym->value || sym->type.kind != TypeKind::Scalar)
      continue;
    hoisted.push_back(type_name(sym->type.scalar, target_) + " " + local_name(sym) + ";");
  }
  std::sort(hoisted.begin(), hoisted.end());
  preamble.insert(preamble.end(), hoisted.begin(), hoisted.end());
  for (const std::string &off : offset_vars_)
    preamble.push_back("int " + off + ";");

  // Signature.
  const std::string name = cpp_name(function.name);
  const uint32_t def_line = function.name_range.begin.line + 1;
  out << "\n";
  if (options_.line_directives)
    out << "#line " << def_line << " " << c_string(options_.source_name) << "\n";
  if (kernel) {
    const int64_t threads = info.block[0] * info.block[1] * info.block[2];
    const int64_t bound =
        info.policies.count("launch_bounds") ? info.policies.at("launch_bounds") : threads;
    std::string attributes;
    if (cuda) {
      if (info.policies.count("max_registers") && !info.policies.count("min_blocks_per_sm")) {
        // nvcc accepts __maxnreg__ or __launch_bounds__, not both.
        attributes = "__maxnreg__(" + std::to_string(info.policies.at("max_registers")) +
                     ") /* max_registers; launch_bounds=" + std::to_string(bound) + " */";
      } else {
        attributes = "__launch_bounds__(" + std::to_string(bound);
        if (info.policies.count("min_blocks_per_sm"))
          attributes += ", " + std::to_string(info.policies.at("min_blocks_per_sm"));
        attributes += ")";
        if (info.policies.count("max_registers"))
          attributes += " /* max_registers dropped: nvcc refuses __maxnreg__ with "
                        "__launch_bounds__ */";
      }
      if (info.cluster_size() > 1) // a compile-time cluster: any launch of the kernel uses it
        attributes += " __cluster_dims__(" + std::to_string(info.cluster[0]) + ", " +
                      std::to_string(info.cluster[1]) + ", " + std::to_string(info.cluster[2]) +
                      ")";
    } else {
      attributes = "__attribute__((amdgpu_flat_work_group_size(1, " + std::to_string(bound) + ")";
      if (info.policies.count("waves_per_eu"))
        attributes +=
            ", amdgpu_waves_per_eu(" + std::to_string(info.policies.at("waves_per_eu")) + ")";
      if (info.policies.count("max_registers"))
        attributes +=
            ", amdgpu_num_vgpr(" + std::to_string(info.policies.at("max_registers")) + ")";
      attributes += "))";
    }
    out << "extern \"C\" __global__ void " << attributes << "\n" << name << "(";
  } else {
    std::string ret = "void";
    if (info.return_type.kind == TypeKind::Scalar)
      ret = type_name(info.return_type.scalar, target_);
    out << "__device__ __forceinline__ " << ret << " " << name << "(";
  }
  for (size_t i = 0; i < params.size(); ++i)
    out << (i ? ", " : "") << params[i];
  out << ") {\n";
  if (options_.line_directives)
    out << "#line ARGUS_RESTORE\n";
  for (const std::string &p : preamble)
    out << "  " << p << "\n";
  out << body_.str();
  if (options_.line_directives)
    out << "#line ARGUS_RESTORE\n";
  out << "}\n";

  if (meta) {
    meta->name = function.name;
    meta->launcher = "argus_launch_" + function.name;
    meta->check = "argus_check_" + function.name;
    meta->block = {info.block[0], info.block[1], info.block[2]};
    meta->shared_bytes = info.shared_bytes;
    meta->dynamic_shared_bytes = dynamic_shared_bytes_;
    meta->line = def_line;
    for (size_t i = 0; i < info.params.size(); ++i) {
      const Symbol *p = info.params[i];
      if (!p || p->is_constexpr)
        continue;
      ParamMeta pm;
      pm.name = p->name;
      if (p->type.is_tensor()) {
        const Buffer &b = buffers_[static_cast<size_t>(param_buffers_[p])];
        pm.is_tensor = true;
        pm.dtype = sema::to_string(b.dtype);
        pm.output = b.written;
      } else {
        pm.dtype = sema::to_string(p->type.scalar);
        pm.default_num_sms =
            i < info.function->params.size() && sema::defaults_to_num_sms(info.function->params[i]);
      }
      meta->params.push_back(pm);
    }
    host_for_kernel(info, *meta, launch_params);
  }
}

LowerResult Lowerer::run() {
  LowerResult result;
  if (!file_.sema || file_.has_errors()) {
    Diagnostic d;
    d.code = std::string(codes::kNoKernelForTarget);
    d.message = "the file has front-end errors; nothing to lower";
    result.diagnostics.push_back(d);
    return result;
  }
  std::vector<const sema::FunctionInfo *> kernels;
  for (const sema::FunctionInfo &info : sema_.functions) {
    if (info.role != sema::FunctionRole::Kernel)
      continue;
    const bool fits = info.target == sema::Target::Any ||
                      (info.target == sema::Target::Sm90 && target_ == GpuTarget::Sm90) ||
                      (info.target == sema::Target::Gfx942 && target_ == GpuTarget::Gfx942);
    if (fits) {
      kernels.push_back(&info);
      continue;
    }
    Diagnostic d;
    d.severity = Severity::Warning;
    d.code = std::string(codes::kKernelSkipped);
    d.range = info.function->name_range;
    d.message = "kernel '" + info.function->name + "' " +
                (info.declared_target != sema::Target::Any
                     ? "is declared for " + std::string(sema::to_string(info.target))
                 : info.target == sema::Target::Sm90 ? "uses nvvm.* intrinsics (sm90 only)"
                                                     : "uses amdgpu.* intrinsics (gfx942 only)") +
                "; it is not part of the " + std::string(target_name(target_)) + " artifact";
    diagnostics_.push_back(d);
  }
  if (kernels.empty()) {
    Diagnostic d;
    d.code = std::string(codes::kNoKernelForTarget);
    d.message = "no kernel of this file can be lowered for " + std::string(target_name(target_));
    if (!sema_.functions.empty()) {
      for (const sema::FunctionInfo &info : sema_.functions)
        if (info.role == sema::FunctionRole::Kernel) {
          d.range = info.function->name_range;
          d.message += ": '" + info.function->name + "' targets " + sema::to_string(info.target);
          break;
        }
    }
    diagnostics_.push_back(d);
    result.diagnostics = diagnostics_;
    return result;
  }

  std::ostringstream out;
  out << "// Generated by argus from " << comment_text(options_.source_name) << " for "
      << target_name(target_) << ". Do not edit: change the .argus file and run\n"
      << "// `argus compile`. #line directives map device code to the .argus source.\n";
  out << (target_ == GpuTarget::Sm90 ? kCudaPrelude : kHipPrelude) << kFp8Prelude;

  // gfx942 with ARGUS_HIP_MODULE: the runner's host-only build, which
  // launches the code object argus compiled through HIP's module API (a
  // hipcc that does not know gfx942 compiles the rest).
  if (target_ == GpuTarget::Gfx942)
    out << "\n#if !defined(ARGUS_HIP_MODULE)";
  // Device functions, callees first.
  const auto device_functions = reachable_device_functions(sema_, kernels);
  if (!device_functions.empty())
    out << "\n// ---- @device functions ----\n";
  for (const sema::FunctionInfo *info : device_functions)
    emit_function(*info, out, nullptr);

  out << "\n// ---- kernels ----\n";
  std::vector<KernelMeta> metas;
  for (const sema::FunctionInfo *info : kernels) {
    KernelMeta meta;
    emit_function(*info, out, &meta);
    if (!failed_function_)
      metas.push_back(std::move(meta));
  }
  fn_ = nullptr;
  if (target_ == GpuTarget::Gfx942)
    out << "#endif // !ARGUS_HIP_MODULE\n";

  // Host side.
  std::ostringstream host;
  host << "\n// ---- host checks: plain C++, no GPU runtime (tests compile this part alone) ----\n";
  host << "// BEGIN ARGUS HOST CHECKS\n"
       << kHostCheckPrelude << host_checks_ << "// END ARGUS HOST CHECKS\n";
  result.host_checks = std::string(kHostCheckPrelude) + host_checks_;
  out << host.str();
  host_tail(metas);
  out << host_code_;

  // #line directives that return to the generated file.
  std::string text = out.str();
  std::string final_text;
  std::istringstream lines(text);
  std::string l;
  int number = 0;
  const std::string self(source_file_name(target_));
  while (std::getline(lines, l)) {
    ++number;
    if (l == "#line ARGUS_RESTORE")
      l = "#line " + std::to_string(number + 1) + " " + c_string(self);
    final_text += l;
    final_text += '\n';
  }
  result.source = std::move(final_text);
  result.kernels = std::move(metas);
  result.diagnostics = diagnostics_;
  result.ok = std::none_of(diagnostics_.begin(), diagnostics_.end(),
                           [](const Diagnostic &d) { return d.severity == Severity::Error; });
  return result;
}

} // namespace detail

LowerResult lower(const CheckedFile &file, GpuTarget target, const LowerOptions &options) {
  detail::Lowerer lowerer(file, target, options);
  return lowerer.run();
}

} // namespace argus::codegen
