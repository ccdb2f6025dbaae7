// Internal: the state of one lowering (lower.cpp, expr.cpp, stmt.cpp, host.cpp).
#pragma once

#include "argus/dsl/view_model.h"

#include "argus/codegen/lower.h"
#include "argus/layout/expr.h"
#include "argus/layout/layout.h"
#include "simple_expr.h"

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace argus::codegen::detail {

// A line of lowered code where the wgmma accumulators get a register fence,
// filled in once the function's wgmma are all known.
inline constexpr std::string_view kWgmmaFenceMarker = "/*argus: wgmma register fence*/";

std::string cpp_name(std::string_view name);
int bytes_of(sema::ScalarKind kind);
bool is_signed_int(sema::ScalarKind kind);
std::string type_name(sema::ScalarKind kind, GpuTarget target);
std::string vector_type(int64_t bytes, GpuTarget target);
std::string float_text(double v, sema::ScalarKind kind);
std::string paren(const std::string &s);
std::string c_string(std::string_view s);
// Text for a // comment: one line whatever `s` holds.
std::string comment_text(std::string_view s);
std::string printf_escape(std::string_view s);
const ast::Expr *call_arg(const ast::Expr &call, size_t index, std::string_view keyword);

// Memory a view points into: a tensor parameter, a shared array or a register array.
struct Buffer {
  std::string name; // C++ name
  sema::MemorySpace space = sema::MemorySpace::Global;
  sema::ScalarKind dtype = sema::ScalarKind::F32;
  int64_t elements = 0;                   // shared/local arrays
  std::optional<layout::Swizzle> swizzle; // shared arrays: applies to byte offsets
  const sema::Symbol *param = nullptr;    // tensor parameters
  bool written = false;
  bool dynamic = false; // a slice of the dynamic shared-memory block
  int64_t dynamic_offset = 0;
};

// A tensor value: a box of a buffer. Never materialized unless its offset
// depends on values that may change (then `offset` is a C++ variable).
// A view's layout, derived by the front end's view model (view_model.h).
using View = sema::SymbolicView;

struct LocalDecl {
  const ast::Stmt *at = nullptr; // declared by this assignment; null: at the top of the function
};

class Lowerer {
public:
  Lowerer(const CheckedFile &file, GpuTarget target, const LowerOptions &options);
  LowerResult run();

  // --- shared by the parts ---
  const CheckedFile &file_;
  const sema::SemaResult &sema_;
  GpuTarget target_;
  LowerOptions options_;
  std::vector<Diagnostic> diagnostics_;
  layout::ExprContext ctx_;
  SimpleContext simple_; // module constants

  // Per function.
  const sema::FunctionInfo *fn_ = nullptr;
  bool fast_math_ = false;
  std::deque<Buffer> buffers_;
  std::unordered_map<const sema::Symbol *, int> param_buffers_;
  // Per @device function (emitted before its callers): which tensor
  // parameters it stores into, so a call marks the caller's buffer written.
  std::unordered_map<const ast::Function *, std::vector<bool>> device_writes_;
  std::unordered_map<const sema::Symbol *, View> views_;
  std::unordered_map<const sema::Symbol *, LocalDecl> decls_;
  std::unordered_map<const sema::Symbol *, layout::Interval> facts_;
  std::set<const sema::Symbol *> positive_params_;
  std::unordered_map<const sema::Symbol *, std::string> local_names_;
  std::set<std::string> used_names_;
  std::ostringstream body_;
  int indent_ = 1;
  int temp_counter_ = 0;
  int64_t dynamic_shared_bytes_ = 0;
  bool use_dynamic_shared_ = false;
  bool failed_function_ = false;
  bool quiet_ = false;
  std::set<std::string> offset_vars_;
  std::set<const sema::Symbol *> buffer_loads_; // tensors read by raw buffer loads
  // The TMA tensor maps of the kernel being lowered (stmt.cpp: one per tensor,
  // box and swizzle its tma_load calls use), kernel parameters built by its
  // launcher (host.cpp).
  struct TensorMap {
    const sema::Symbol *tensor = nullptr;
    int64_t box_rows = 0, box_cols = 0;
    int swizzle_bytes = 0; // 0 (none), 32, 64 or 128
    std::string name;      // the kernel parameter
  };
  std::vector<TensorMap> tensor_maps_;
  bool uses_tensor_maps_ = false; // any kernel of the file: the host helper is emitted
  // Accumulator arrays of the function's wgmma: fenced as registers around
  // wgmma_fence and after wgmma_wait_group (kWgmmaFenceMarker, lower.cpp).
  std::set<std::string> wgmma_accumulators_;
  // 16-bit register arrays read as wgmma A fragments: packed at every
  // wgmma_fence into argus_packed_NAME (argus_pack_fence), which the wgmma read.
  std::set<std::string> wgmma_packed_fragments_;

  // lower.cpp
  void error(const Range &range, const std::string &message);
  void line(const std::string &text);
  void line_directive(const Range &range);
  std::string unique_name(const std::string &base);
  const sema::Symbol *symbol_of(const ast::Expr &name) const;
  void emit_function(const sema::FunctionInfo &info, std::ostringstream &out, KernelMeta *meta);
  void fill_wgmma_fences();
  std::string local_name(const sema::Symbol *symbol);
  const sema::Type *type_of(const ast::Expr &e) const;
  BuiltinId builtin_of(const ast::Expr &call) const { return sema_.builtin_of(call); }

  // expr.cpp: scalar expressions
  std::string expr(const ast::Expr &e, std::optional<sema::ScalarKind> want = std::nullopt);
  sema::ScalarKind kind_of(const ast::Expr &e, std::optional<sema::ScalarKind> want) const;
  std::string literal_int(int64_t value, sema::ScalarKind kind) const;
  std::string literal_float(double value, sema::ScalarKind kind) const;
  std::string convert(const std::string &text, sema::ScalarKind from, sema::ScalarKind to) const;
  std::string call_expr(const ast::Expr &call, std::optional<sema::ScalarKind> want);
  // atomic_add(T[i], v) ...: the prelude's argus_atomic_* on the element's address.
  std::string atomic_expr(const ast::Expr &call);
  std::string device_tensor_argument(const ast::Expr &arg, const ast::Function &callee,
                                     size_t index);
  std::string math(BuiltinId id, const std::vector<std::string> &args, sema::ScalarKind kind);
  layout::ExprRef iexpr(const ast::Expr &e);
  // `a op b` on signed integers as a symbolic expression (shared by binary
  // expressions and augmented assignments); null where it cannot be built.
  layout::ExprRef int_binary(ast::BinaryOp op, layout::ExprRef a, layout::ExprRef b);
  layout::ExprRef opaque(const std::string &text, layout::Interval range = layout::Interval::all());
  std::string cpp(layout::ExprRef e) const;
  layout::ExprRef launch_coordinate(BuiltinId id, int dim);
  layout::ExprRef linear_thread();

  // expr.cpp: views
  std::optional<View> view_of(const ast::Expr &e);
  // The view of a call's argument (by position or keyword), if it has one.
  std::optional<View> arg_view(const ast::Expr &call, size_t index, const char *name);
  View buffer_view(int buffer, const std::vector<layout::ExprRef> &shape,
                   const std::vector<layout::ExprRef> &strides);
  std::vector<layout::ExprRef> row_major(const std::vector<layout::ExprRef> &shape);
  std::optional<std::vector<layout::ExprRef>> int_tuple(const ast::Expr &e);
  View index_view(const View &v, const std::vector<layout::ExprRef> &indices);
  std::string element_ref(const View &v);
  std::string element_at(const View &v, layout::ExprRef byte_offset);
  std::optional<int64_t> element_count(const View &v) const;
  bool contiguous(const View &v);
  std::vector<std::string> element_refs(const View &v);
  std::string address_of(const View &v);

  // stmt.cpp
  void prepare_function(const sema::FunctionInfo &info);
  void block(const std::vector<ast::StmtPtr> &body);
  void stmt(const ast::Stmt &s);
  void assign(const ast::Stmt &s, const ast::Expr &target, const ast::Expr &value);
  void assign_tensor(const ast::Stmt &s, const ast::Expr &target, const ast::Expr &value);
  void bind_new_buffer(const ast::Stmt &s, const sema::Symbol *symbol, const ast::Expr &call);
  void copy(const View &dst, const View &src, const std::string &what);
  void store_values(const View &dst, const std::vector<std::string> &values);
  bool intrinsic_into(const ast::Expr &call, const View &dst);
  bool buffer_load(BuiltinId id, const View &dst, const View &src, const Range &at);
  // The load's expression, or nullopt with `why` (for the error: the checker
  // models every buffer load as one, range check included, so none falls
  // back to a plain load).
  std::optional<std::string> buffer_load_text(BuiltinId id, const View &src,
                                              std::string *why = nullptr);
  void intrinsic_statement(const ast::Expr &call);
  void wgmma(const ast::Expr &call, const std::string &type);
  std::optional<std::vector<std::string>> packed_fragment(const View &a);
  void tma_load(const ast::Expr &call);
  void tma_store(const ast::Expr &call);
  // The tensor map of (tensor, box, swizzle), made once per kernel.
  const TensorMap &tensor_map(const sema::Symbol *tensor, int64_t rows, int64_t cols,
                              int swizzle_bytes);
  // The last extent of a tensor parameter, as kernel C++ ("" if it has none).
  std::vector<std::string> extents(const sema::Symbol *tensor);
  struct TmaCoords {
    int rank = 2;                    // of the tensor map: 2, or 3 (pages of rows)
    std::vector<std::string> values; // innermost first
    // "%first, %first+1, ..." for the asm template, and the values as "r" inputs.
    std::string placeholders(size_t first) const;
    std::string inputs() const;
  };
  std::optional<TmaCoords> tma_coords(const sema::Symbol *tensor, const std::string &first,
                                      const Range &at, const char *what);
  void for_loop(const ast::Stmt &s);
  void mark_written(const View &v);

  // host.cpp
  std::string host_checks_;
  std::string host_code_;
  std::vector<std::string> launchers_, dispatch_, describe_, kernel_infos_, bench_infos_,
      shape_dispatch_;
  std::string source_text(const Range &range) const;
  void host_for_kernel(const sema::FunctionInfo &info, KernelMeta &meta,
                       const std::vector<std::string> &kernel_params);
  void host_tail(const std::vector<KernelMeta> &metas);
};

} // namespace argus::codegen::detail
